package crawl

import (
	"context"
	"fmt"
	"net/url"
)

// FetchImage fetches one image URL through the guarded client, with the
// crawler's politeness and robots rules (an image is fetched like a page),
// and returns at most limit bytes: a longer body is refused, never cut,
// because a cut image would decode as a damaged one. The caller decodes and
// checks the bytes; the Content-Type a server sends is not trusted.
func (c *Crawler) FetchImage(ctx context.Context, rawURL string, limit int64) ([]byte, error) {
	norm, err := ValidateSubmitURL(rawURL)
	if err != nil {
		return nil, badURL("The address is not valid: " + err.Error() + ".")
	}
	u, _ := url.Parse(norm)
	s := &session{c: c}
	resp, err := s.get(ctx, u, true, limit, nil, false)
	if err != nil {
		return nil, classifyError(err, norm)
	}
	if resp.status < 200 || resp.status > 299 {
		return nil, httpStatusError(resp.url.String(), resp.status)
	}
	if resp.truncated {
		return nil, fmt.Errorf("the image at %s is larger than %d bytes", resp.url, limit)
	}
	return resp.body, nil
}
