package media

import "context"

// ownPath is OwnPath against every site's origin: an image is stored with
// the origin of the site it was uploaded on, and every site serves
// /media/, so any site's page may show it.
func (a *Service) ownPath(ctx context.Context, u string) (string, bool) {
	return a.ownPaths(ctx)(u)
}

// ownPaths is ownPath with the sites read once, for a loop over a query's
// rows: reading them inside the loop (every 2 s the list is read again)
// asked the read pool for a second connection while the rows held one,
// and four pages doing so at once held every connection and waited
// forever for a fifth.
func (a *Service) ownPaths(ctx context.Context) func(u string) (string, bool) {
	sites, origin := a.Sites(ctx), a.Origin(ctx)
	return func(u string) (string, bool) {
		for _, s := range sites {
			if p, ok := OwnPath(s.Origin, u); ok {
				return p, true
			}
		}
		return OwnPath(origin, u)
	}
}
