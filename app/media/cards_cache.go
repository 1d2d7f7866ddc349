package media

import "sync"

// cardCache keeps rendered social cards by key (a hash of what they show),
// so a card is drawn once per change of its content, not once per request.
type cardCache struct {
	mu  sync.Mutex
	max int
	m   map[string][]byte
}

func newCardCache(max int) *cardCache { return &cardCache{max: max, m: map[string][]byte{}} }

func (c *cardCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[key]
	return b, ok
}

// put stores a card; a full cache starts over (cards are cheap to redraw).
func (c *cardCache) put(key string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		c.m = map[string][]byte{}
	}
	c.m[key] = b
}
