package kernel

import (
	"fmt"
	"time"
)

// The one way dates and times are written for people, on every page and in
// every email: "18 Nov 2026", and "18 Nov 2026, 12:00 UTC" for a moment.
const (
	humanDateLayout = "2 Jan 2006"
	humanTimeLayout = "2 Jan 2006, 15:04 UTC"
)

// HumanDate writes a date (a time.Time, an RFC 3339 or YYYY-MM-DD string,
// or a pointer to one) for people; what it cannot read is shown as is.
func HumanDate(v any) string {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format(humanDateLayout)
	case *string: // optional dates in typed responses (e.g. a quote line's week)
		if x == nil {
			return ""
		}
		v = *x
	case nil:
		return ""
	}
	s := fmt.Sprint(v)
	for _, layout := range []string{time.RFC3339, DateLayout} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(humanDateLayout)
		}
	}
	return s
}

// HumanTime writes an RFC 3339 moment for people, in UTC.
func HumanTime(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return rfc3339
	}
	return t.UTC().Format(humanTimeLayout)
}
