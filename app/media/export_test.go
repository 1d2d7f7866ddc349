package media

import "time"

// SetDecodeTimeout shortens the decode limit for a test; call the result
// to restore it.
func SetDecodeTimeout(d time.Duration) func() {
	old := decodeTimeout
	decodeTimeout = d
	return func() { decodeTimeout = old }
}
