package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// newSecret is a whsec_ secret: 24 random bytes, base64.
func newSecret() string {
	b := make([]byte, 24)
	rand.Read(b)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// Sign is the webhook-signature value for one message under each secret
// (space-separated "v1,<base64>"; several during a rotation).
func Sign(id string, timestamp int64, body []byte, secrets ...string) (string, error) {
	var sigs []string
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil || len(key) == 0 {
			return "", errors.New("webhook secret is not whsec_ and base64")
		}
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
