package crawl

import "context"

// FetchHTML fetches one page through the guarded client and returns its
// markup decoded to UTF-8, or the text of a text/plain file (the app's
// Fetcher interface: badge and claim checks).
func (c *Crawler) FetchHTML(ctx context.Context, url string) (string, error) {
	p, err := c.FetchPage(ctx, url)
	if err != nil {
		return "", err
	}
	if p.HTML == nil {
		return p.Text, nil
	}
	return string(p.HTML), nil
}
