package site_test

import (
	"io"
	"launchdir/apitest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// No request holds a read connection while it asks the pool for another.
// Code that did (a loop over a query's rows reading more inside it) held
// every connection once as many requests did so at once as the pool has
// connections, and each waited forever for one more: a page of the
// signed-in home beside a writer stalled every request for 30 s, until
// the clients gave up (the listing thumbnails read the list of sites,
// which is read again every 2 s, inside their rows). With a pool of one
// connection any such request waits at once, so this crawl, signed in,
// over two sites, with the list of sites read again all the time,
// finds them on the paths it visits: it fails on the request that does
// not answer within 10 s.
func TestNoRequestWaitsForASecondReadConnection(t *testing.T) {
	e := peopleEnv(t)
	signUp(t, e, "pool@example.com")
	dev, _ := halfSite(t, e)
	// Every listing has a picture, so cards look for thumbnails.
	if _, err := e.DB.W.Exec(`INSERT INTO media(listing_id, kind, url, position)
		SELECT id, 'image', 'https://pictures.example/' || slug || '.png', 0 FROM listings`); err != nil {
		t.Fatal(err)
	}
	// And the person owns two listings, so the founder pages have some.
	if _, err := e.DB.W.Exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at)
		SELECT l.id, u.id, 'owner', '2026-01-01T00:00:00Z' FROM listings l, users u
		WHERE u.email = 'pool@example.com' AND l.status = 'live' ORDER BY l.id LIMIT 2`); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e)
	b.c.Timeout = 10 * time.Second
	b.signIn(e.URL, "pool@example.com")
	seeds := []string{"/", "/launches", "/launches/this", "/launches/last", "/categories", "/leaderboards", "/awards",
		"/founders", "/blog", "/search?q=a", "/compare", "/sitemap.xml", "/me", "/me/listings", "/me/settings",
		"/api/v1/listings?per_page=50", "/api/v1/listings?q=a&per_page=50", "/api/v1/launches", "/api/v1/categories"}
	// The list of sites is read again whenever it is asked for: in the
	// middle of a request too, as when its 2 s run out there.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				e.App.ReloadSites()
				time.Sleep(50 * time.Microsecond)
			}
		}
	}()
	// A search of two words of a listing's name (several words take
	// another way than one).
	var name string
	if err := e.DB.R.QueryRow(`SELECT name || ' ' || tagline FROM listings WHERE status = 'live' ORDER BY id LIMIT 1`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	two := url.QueryEscape(strings.Join(strings.Fields(name)[:2], " "))
	seeds = append(seeds, "/search?q="+two, "/api/v1/listings?per_page=50&q="+two)
	// One connection: no page is pinned (db/pin.go), and any request that
	// asks for a second connection waits. Two: a page pinned to one, and
	// the reads that bypass its pin share the other.
	for _, conns := range []int{1, 2} {
		e.DB.R.SetMaxOpenConns(conns)
		crawlOnePool(t, e, b, seeds, e.URL, dev)
	}
}

func crawlOnePool(t *testing.T, e *apitest.Env, b *browser, seeds []string, origins ...string) {
	seen := map[string]bool{}
	for _, origin := range origins {
		base, _ := url.Parse(origin)
		queue := append([]string(nil), seeds...)
		for n := 0; len(queue) > 0 && n < 250; {
			p := queue[0]
			queue = queue[1:]
			if seen[origin+p] {
				continue
			}
			seen[origin+p], n = true, n+1
			resp, err := b.c.Get(origin + p)
			if err != nil {
				// Give the pool its connections back so the stuck request
				// (some wait without a deadline) ends and the server closes.
				// (a connection put back goes to a waiting request).
				e.DB.R.SetMaxOpenConns(4)
				e.DB.R.Exec(`SELECT 1`)
				t.Fatalf("%s%s waited for a second read connection: %v", origin, p, err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode >= 500 {
				t.Errorf("%s%s: %d", origin, p, resp.StatusCode)
			}
			for _, m := range linkRE.FindAllStringSubmatch(string(raw), -1) {
				u, err := base.Parse(strings.ReplaceAll(m[1]+m[2]+m[3], "&amp;", "&"))
				if err != nil || u.Host != base.Host {
					continue
				}
				q := u.RequestURI()
				if strings.HasPrefix(q, "/static/") || strings.HasPrefix(q, "/signout") || strings.HasPrefix(q, "/signin/handoff") {
					continue
				}
				queue = append(queue, q)
			}
		}
	}
	made, _ := e.DB.PinStats()
	t.Logf("%d addresses answered (pages pinned so far: %d)", len(seen), made)
}
