package kernel

import (
	"launchdir/ops"
	"net/mail"
	"strings"
)

// NormEmail checks an email address and lower-cases it: one account per address.
func NormEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return "", ops.Invalid("email", "must be an email address of at most 254 characters")
	}
	return strings.ToLower(email), nil
}
