package crawl

import (
	"bufio"
	"bytes"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// siteServer serves testdata/sites/<name> over httptest and counts requests.
type siteServer struct {
	*httptest.Server
	dir       string
	expand    map[string]string // extra {{KEY}} replacements
	redirects map[string][2]string
	mu        sync.Mutex
	hits      map[string]int
	total     int
	override  map[string]http.HandlerFunc
}

// serveSite maps "/" to index.html, "/x" to x.html or x/index.html, and
// serves robots.txt/sitemap.xml when present (404 otherwise). "{{BASE}}" in
// text files becomes the server's URL; _redirects lines "from to status"
// become redirects.
func serveSite(t testing.TB, name string, expand map[string]string) *siteServer {
	t.Helper()
	s := &siteServer{dir: filepath.Join("..", "testdata", "sites", name), expand: expand, hits: map[string]int{}, override: map[string]http.HandlerFunc{}}
	if _, err := os.Stat(s.dir); err != nil {
		t.Fatalf("site %s: %v", name, err)
	}
	s.loadRedirects(t)
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *siteServer) loadRedirects(t testing.TB) {
	s.redirects = map[string][2]string{}
	data, err := os.ReadFile(filepath.Join(s.dir, "_redirects"))
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && !strings.HasPrefix(f[0], "#") {
			s.redirects[f[0]] = [2]string{f[1], f[2]}
		}
	}
}

func (s *siteServer) count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

func (s *siteServer) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func (s *siteServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.total++
	h := s.override[r.URL.Path]
	s.mu.Unlock()
	if h != nil {
		h(w, r)
		return
	}
	if rd, ok := s.redirects[r.URL.Path]; ok {
		code, _ := strconv.Atoi(rd[1])
		w.Header().Set("Location", rd[0])
		w.WriteHeader(code)
		return
	}
	file := s.resolve(r.URL.Path)
	if file == "" {
		http.NotFound(w, r)
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	data = bytes.ReplaceAll(data, []byte("{{BASE}}"), []byte(s.URL))
	for k, v := range s.expand {
		data = bytes.ReplaceAll(data, []byte("{{"+k+"}}"), []byte(v))
	}
	ct := mime.TypeByExtension(path.Ext(file))
	if strings.HasSuffix(file, ".html") {
		ct = "text/html" // charset left to the page, as many servers do
	}
	w.Header().Set("Content-Type", ct)
	w.Write(data)
}

func (s *siteServer) resolve(p string) string {
	clean := strings.Trim(path.Clean(p), "/")
	var tries []string
	if clean == "" || clean == "." {
		tries = []string{"index.html"}
	} else {
		tries = []string{clean, clean + ".html", filepath.Join(clean, "index.html")}
	}
	for _, f := range tries {
		full := filepath.Join(s.dir, f)
		if st, err := os.Stat(full); err == nil && !st.IsDir() && !strings.HasPrefix(filepath.Base(f), "_") {
			return full
		}
	}
	return ""
}

// testCrawler is a crawler for local fixtures: SSRF guard off, tiny delays.
func testCrawler() *Crawler {
	return New(Options{AllowPrivate: true, Timeout: 5 * time.Second, MaxCrawlDelay: 20 * time.Millisecond, UserAgent: "launchdirbot/1.0 (+http://launchdir.test/bot)"})
}

// crawlSite crawls a fixture site from its homepage.
func crawlSite(t testing.TB, name string) (*Result, *siteServer) {
	t.Helper()
	s := serveSite(t, name, nil)
	res, err := testCrawler().Crawl(t.Context(), s.URL+"/", nil)
	if err != nil {
		t.Fatalf("crawl %s: %v", name, err)
	}
	return res, s
}
