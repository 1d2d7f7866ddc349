package media

import "context"

// ownPath is OwnPath against every site's origin: an image is stored with
// the origin of the site it was uploaded on, and every site serves
// /media/, so any site's page may show it.
func (a *Service) ownPath(ctx context.Context, u string) (string, bool) {
	for _, s := range a.Sites(ctx) {
		if p, ok := OwnPath(s.Origin, u); ok {
			return p, true
		}
	}
	return OwnPath(a.Origin(ctx), u)
}
