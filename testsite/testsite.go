// Package testsite serves the fixture product websites of testdata/sites
// over httptest, for the crawler's and the API's tests.
package testsite

import (
	"bufio"
	"bytes"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func sitesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "sites")
}

// Server serves testdata/sites/<name> over httptest and counts requests.
type Server struct {
	*httptest.Server
	dir       string
	expand    map[string]string // extra {{KEY}} replacements
	redirects map[string][2]string
	mu        sync.Mutex
	hits      map[string]int
	total     int
	// Overrides replace the handler of a path; set them before requests.
	Overrides map[string]http.HandlerFunc
}

// serveSite maps "/" to index.html, "/x" to x.html or x/index.html, and
// serves robots.txt/sitemap.xml when present (404 otherwise). "{{BASE}}" in
// text files becomes the server's URL; _redirects lines "from to status"
// become redirects.
func Serve(t testing.TB, name string, expand map[string]string) *Server {
	t.Helper()
	s := &Server{dir: filepath.Join(sitesDir(), name), expand: expand, hits: map[string]int{}, Overrides: map[string]http.HandlerFunc{}}
	if _, err := os.Stat(s.dir); err != nil {
		t.Fatalf("site %s: %v", name, err)
	}
	s.loadRedirects(t)
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) loadRedirects(t testing.TB) {
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

// Count is how many requests asked for path p.
func (s *Server) Count(p string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[p]
}

// Requests is how many requests the server answered.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.total++
	h := s.Overrides[r.URL.Path]
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

func (s *Server) resolve(p string) string {
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
