package crawl

import (
	"context"
	"net/url"
	"time"
)

const (
	robotsTTL      = 24 * time.Hour
	robotsErrorTTL = time.Minute // network failures are retried soon
)

// robotsEntry is one host's cached policy; ready closes once it is known.
type robotsEntry struct {
	ready   chan struct{}
	policy  *robotsPolicy
	err     *FetchError // set when robots.txt could not be fetched at all
	expires time.Time
}

func (c *Crawler) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func robotsKey(u *url.URL) string {
	return u.Scheme + "://" + hostKey(u)
}

// robotsFor returns the policy for u's scheme+host, fetching robots.txt once
// per host and TTL; concurrent callers wait for the same fetch.
func (s *session) robotsFor(ctx context.Context, u *url.URL) (*robotsPolicy, *FetchError) {
	c := s.c
	key := robotsKey(u)
	c.robotsMu.Lock()
	e := c.robots[key]
	if e != nil {
		select {
		case <-e.ready:
			if c.clock().After(e.expires) {
				e = nil
			}
		default:
		}
	}
	owner := e == nil
	if owner {
		e = &robotsEntry{ready: make(chan struct{})}
		c.robots[key] = e
	}
	c.robotsMu.Unlock()
	if owner {
		e.policy, e.err = s.fetchRobots(ctx, u)
		e.expires = c.clock().Add(robotsTTL)
		if e.err != nil || e.policy.disallowAll {
			e.expires = c.clock().Add(robotsErrorTTL)
		}
		close(e.ready)
		if ctx.Err() != nil {
			c.forgetRobots(key, e) // a cancelled caller must not poison the cache
		}
	}
	select {
	case <-e.ready:
		return e.policy, e.err
	case <-ctx.Done():
		return nil, classifyError(ctx.Err(), u.String())
	}
}

// fetchRobots applies RFC 9309: 2xx obey, 4xx allow all, 5xx or a network
// error disallow all (redirects are followed, up to five).
func (s *session) fetchRobots(ctx context.Context, u *url.URL) (*robotsPolicy, *FetchError) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	resp, err := s.get(ctx, ru, false, robotsMaxBytes, nil, true)
	if err != nil {
		fe := classifyError(err, ru.String())
		if fe.Kind == "too_many_redirects" {
			return parseRobots(404, nil, RobotsToken), nil // RFC 9309: unavailable
		}
		return &robotsPolicy{disallowAll: true}, fe
	}
	return parseRobots(resp.status, resp.body, RobotsToken), nil
}

// crawlDelay is the cached Crawl-delay for u's host, capped; it never
// triggers a fetch so robots.txt requests themselves are not delayed twice.
func (c *Crawler) crawlDelay(u *url.URL) time.Duration {
	c.robotsMu.Lock()
	e := c.robots[robotsKey(u)]
	c.robotsMu.Unlock()
	if e == nil {
		return 0
	}
	select {
	case <-e.ready:
	default:
		return 0
	}
	if e.policy == nil {
		return 0
	}
	return min(e.policy.crawlDelay, c.opts.MaxCrawlDelay)
}

func (c *Crawler) forgetRobots(key string, e *robotsEntry) {
	c.robotsMu.Lock()
	defer c.robotsMu.Unlock()
	if c.robots[key] == e {
		delete(c.robots, key)
	}
}
