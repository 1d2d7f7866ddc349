package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"launchdir/app/people"
	"launchdir/replica"
	"launchdir/server"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The read-replica topology of issue 12, with real processes: a primary
// replicating to a file:// replica and a read replica following it.

type replicaHealth struct {
	Replication *replica.FollowStatus `json:"replication"`
}

func tagline(t *testing.T, base string) string {
	t.Helper()
	code, body := get(t, base, "/api/v1/listings/quickbase", "")
	if code != 200 {
		t.Fatalf("replica get_listing: %d %s", code, body)
	}
	var l struct {
		Tagline string `json:"tagline"`
	}
	json.Unmarshal([]byte(body), &l)
	return l.Tagline
}

// waitTagline polls the replica until the listing shows want; it returns
// how long the write took to appear there.
func waitTagline(t *testing.T, c *child, want string, since time.Time) time.Duration {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if tagline(t, c.base) == want {
			return time.Since(since)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, h := get(t, c.base, "/healthz", "")
	t.Fatalf("replica never showed %q (shows %q): %s\n%s", want, tagline(t, c.base), h, c.log)
	return 0
}

func patchTagline(t *testing.T, base, bearer, v string) {
	t.Helper()
	ic := idemCall{"t-" + v, "PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": v}}}
	if st, body, err := ic.do(context.Background(), base, bearer); err != nil || st != 200 {
		t.Fatalf("PATCH on the primary: %d %s %v", st, body, err)
	}
}

func TestReadReplica(t *testing.T) {
	readReplicaTopology(t, "file://"+filepath.Join(t.TempDir(), "replica"), nil)
}

// TestReadReplicaS3 is the same topology through S3 (gofakes3 on loopback).
func TestReadReplicaS3(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	s3 := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	t.Cleanup(s3.Close)
	env := []string{"AWS_ACCESS_KEY_ID=drill", "AWS_SECRET_ACCESS_KEY=drill-secret", "AWS_REGION=us-east-1", "AWS_CA_BUNDLE="}
	readReplicaTopology(t, "s3://drill-bucket/launchdir?region=us-east-1&endpoint="+url.QueryEscape(s3.URL), env)
}

func readReplicaTopology(t *testing.T, repURL string, env []string) {
	path, bearer := crashDB(t)
	dir := t.TempDir()
	// One public origin in front of both (the documented topology).
	primary := startChildEnv(t, env, "-db", path, "-demo=false", "-rate", "0", "-base-url", "http://launchdir.test", "-replicate", repURL, "-replicate-sync-interval", "50ms")
	waitInSync(t, primary, time.Now())

	copyPath := filepath.Join(dir, "copy.db")
	args := []string{"-db", copyPath, "-rate", "0", "-base-url", "http://launchdir.test", "-replica-of", repURL, "-primary-url", primary.base, "-replica-poll-interval", "50ms"}
	rep := startChildEnv(t, env, args...)

	_, h := get(t, rep.base, "/healthz", "")
	var hz replicaHealth
	if err := json.Unmarshal([]byte(h), &hz); err != nil || hz.Replication == nil || hz.Replication.Role != "replica" ||
		hz.Replication.Primary != primary.base || hz.Replication.AppliedTXID == 0 {
		t.Fatalf("replica /healthz: %s", h)
	}
	// The replica serves what the primary serves.
	for _, p := range []string{"/api/v1/listings?per_page=100", "/api/v1/categories", "/api/v1/listings/quickbase", "/api/v1/me/listings/1", "/api/v1/orders"} {
		_, want := get(t, primary.base, p, bearer)
		if _, got := get(t, rep.base, p, bearer); got != want {
			t.Errorf("%s on the replica differs:\n%s\nprimary:\n%s", p, got, want)
		}
	}

	// Writes on the primary reach the replica while readers hammer it; no
	// read fails meanwhile.
	stop := make(chan struct{})
	var reads, bad atomic.Int64
	var wg sync.WaitGroup
	var firstBad atomic.Value
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths := []string{"/api/v1/listings/quickbase", "/api/v1/listings?per_page=50", "/", "/listings/quickbase", "/api/v1/search?q=database"}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Get(rep.base + paths[(n+i)%len(paths)])
				if err != nil {
					bad.Add(1)
					firstBad.CompareAndSwap(nil, err.Error())
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 500 {
					bad.Add(1)
					firstBad.CompareAndSwap(nil, fmt.Sprintf("%s: %d", paths[(n+i)%len(paths)], resp.StatusCode))
				}
				reads.Add(1)
			}
		}()
	}
	var lags []time.Duration
	for i := range 15 {
		v := fmt.Sprintf("replicated tagline %02d", i)
		at := time.Now()
		patchTagline(t, primary.base, bearer, v)
		lags = append(lags, waitTagline(t, rep, v, at))
	}
	close(stop)
	wg.Wait()
	if bad.Load() > 0 {
		t.Fatalf("%d of %d replica reads failed during replication, first: %v\n%s", bad.Load(), reads.Load(), firstBad.Load(), rep.log)
	}
	var worst time.Duration
	for _, l := range lags {
		worst = max(worst, l)
	}
	t.Logf("%s: 15 writes reached the replica, worst lag %v, %d concurrent replica reads, 0 failed", replica.Redact(repURL), worst.Round(time.Millisecond), reads.Load())

	// A REST write on the replica is forwarded to the primary, which
	// answers it; the browser-facing recent-write cookie comes back too.
	body := []byte(`{"fields":{"tagline":"via the replica"}}`)
	req, _ := http.NewRequest("PATCH", rep.base+"/api/v1/me/listings/1", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(pb), `"tagline":"via the replica"`) || !hasCookie(resp, server.RecentWriteCookie) || resp.Header.Get("Via") != server.ViaReplica {
		t.Fatalf("PATCH through the replica: %d %v %s", resp.StatusCode, resp.Header, pb)
	}
	waitTagline(t, rep, "via the replica", time.Now())
	siteReadYourWrites(t, rep)
	// CORS preflights stay here; a request another replica forwarded is a loop.
	for _, r := range []struct {
		method, path string
		hdr          string
		want         int
	}{{"OPTIONS", "/oauth/token", "", 204}, {"GET", "/api/v1/categories", server.ForwardedHeader, 508}} {
		req, _ := http.NewRequest(r.method, rep.base+r.path, nil)
		req.Header.Set("Origin", "https://client.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		if r.hdr != "" {
			req.Header.Set(r.hdr, "1")
		}
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != r.want {
			t.Errorf("%s %s on the replica: %d, want %d", r.method, r.path, resp.StatusCode, r.want)
		}
	}

	// With -replica-writes redirect, writes get 307 to the same URL on the
	// primary (307 keeps method and body); a client following it lands the
	// write. Site forms and the pages that write on GET go there too.
	redirArgs := []string{"-db", filepath.Join(dir, "copy2.db"), "-rate", "0", "-base-url", "http://launchdir.test", "-replica-of", repURL,
		"-primary-url", primary.base, "-replica-poll-interval", "50ms", "-replica-writes", "redirect"}
	red := startChildEnv(t, env, redirArgs...)
	req, _ = http.NewRequest("PATCH", red.base+"/api/v1/me/listings/1?x=1", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	if resp, err = noRedirects.Do(req); err != nil {
		t.Fatal(err)
	}
	pb, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 307 || resp.Header.Get("Location") != primary.base+"/api/v1/me/listings/1?x=1" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") || !strings.Contains(string(pb), `"primary":"`+primary.base+`"`) {
		t.Fatalf("write on the redirecting replica: %d %v %s", resp.StatusCode, resp.Header, pb)
	}
	req, _ = http.NewRequest("PATCH", red.base+"/api/v1/me/listings/1", bytes.NewReader([]byte(`{"fields":{"tagline":"via a redirect"}}`)))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("followed redirect: %v %v", resp, err)
	}
	resp.Body.Close()
	waitTagline(t, red, "via a redirect", time.Now())
	waitTagline(t, rep, "via a redirect", time.Now()) // the MCP check below reads it on the other replica
	for _, r := range []struct{ method, path string }{{"POST", "/signin"}, {"GET", "/verify/abc"}, {"GET", "/oauth/authorize?client_id=x"}, {"DELETE", "/api/v1/me/api-keys/1"}} {
		req, _ := http.NewRequest(r.method, red.base+r.path, strings.NewReader("email=a@b.c"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 307 || resp.Header.Get("Location") != primary.base+r.path {
			t.Errorf("%s %s on the redirecting replica: %d %q", r.method, r.path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	red.kill()

	// MCP on the replica: reads answer here, write tools are forwarded to
	// the primary like REST writes, and their effect comes back.
	cs := mcpSession(t, rep.base, bearer)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_listing", Arguments: map[string]any{"slug": "quickbase"}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), "via a redirect") {
		t.Fatalf("get_listing over MCP on the replica: %v %s", err, mcpText(res))
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "update_my_listing", Arguments: map[string]any{"listing_id": 1, "fields": map[string]any{"tagline": "via MCP on a replica"}}})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), "via MCP on a replica") {
		t.Fatalf("a write tool on the replica: %v %s", err, mcpText(res))
	}
	waitTagline(t, rep, "via MCP on a replica", time.Now())
	cs.Close()

	// A replica that was down resumes from its copy and catches up.
	rep.kill()
	patchTagline(t, primary.base, bearer, "written while the replica was down")
	rep2 := startChildEnv(t, env, args...)
	waitTagline(t, rep2, "written while the replica was down", time.Now())
	if !strings.Contains(rep2.log.String(), "following the primary") {
		t.Errorf("replica log: %s", rep2.log)
	}

	// With the primary gone, a forwarded write is a clear 503, reads go on.
	primary.kill()
	req, _ = http.NewRequest("PATCH", rep2.base+"/api/v1/me/listings/1", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	if resp, err = noRedirects.Do(req); err != nil {
		t.Fatal(err)
	}
	pb, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(pb), "could not reach the primary") {
		t.Fatalf("write with the primary down: %d %v %s", resp.StatusCode, resp.Header, pb)
	}
	if tagline(t, rep2.base) != "written while the replica was down" {
		t.Fatal("reads stopped with the primary")
	}

	// A replica refuses a write flag set that makes no sense.
	if _, err := runCmd(t, "-db", copyPath, "-replica-of", repURL); err == nil || !strings.Contains(err.Error(), "-primary-url") {
		t.Errorf("-replica-of without -primary-url: %v", err)
	}
	for _, bad := range [][]string{
		{"-replicate", repURL},
		{"-base-url", primary.base},
		{"-replica-writes", "forward"},
	} {
		if _, err := runCmd(t, append([]string{"-db", copyPath, "-replica-of", repURL, "-primary-url", primary.base}, bad...)...); err == nil {
			t.Errorf("-replica-of with %v was accepted", bad)
		}
	}
	// Read-write commands keep off the copy (a write there would be lost).
	if _, err := runCmd(t, "apikey", "create", "-email", "x@example.com", "-scopes", "account:read", "-db", copyPath); err == nil ||
		!strings.Contains(err.Error(), "read replica's copy") {
		t.Errorf("apikey create on a replica's copy: %v", err)
	}
}

func mcpSession(t *testing.T, base, bearer string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "replica-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearerTransport{bearer}, Timeout: 20 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func mcpText(res *sdk.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func hasCookie(resp *http.Response, name string) bool {
	for _, c := range resp.Cookies() {
		if c.Name == name && c.MaxAge > 0 {
			return true
		}
	}
	return false
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// siteReadYourWrites signs up and in through the replica (forms forwarded
// to the primary); right after, the signed-in page is already signed in
// (the recent-write cookie sends the browser's reads to the primary), and
// once that cookie is gone the replica itself knows the session.
func siteReadYourWrites(t *testing.T, rep *child) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar, CheckRedirect: noRedirects.CheckRedirect}
	form := func(path string, v url.Values) *http.Response {
		t.Helper()
		resp, err := b.Get(rep.base + path)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := csrfField.FindSubmatch(page)
		if m == nil {
			t.Fatalf("no csrf field on %s: %s", path, page)
		}
		v.Set("csrf", string(m[1]))
		// The sign-up challenge is signed with the key the primary made
		// (migration 0017), so a page served by the replica is solved and
		// checked by the primary the form is forwarded to.
		if c := regexp.MustCompile(`data-challenge="([^"]+)"`).FindSubmatch(page); c != nil {
			var ch people.SignupChallenge
			if err := json.Unmarshal([]byte(html.UnescapeString(string(c[1]))), &ch); err != nil {
				t.Fatal(err)
			}
			v.Set("altcha", people.SolveSignupChallenge(ch))
		}
		resp, err = b.PostForm(rep.base+path, v)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	creds := url.Values{"email": {"reader@example.com"}, "password": {"correct horse battery"}}
	if r := form("/signup", url.Values{"email": creds["email"], "password": creds["password"], "name": {"Reader"}}); r.StatusCode != 200 {
		t.Fatalf("sign-up through the replica: %d", r.StatusCode)
	}
	if r := form("/signin", creds); r.StatusCode != 303 || !hasCookie(r, server.RecentWriteCookie) {
		t.Fatalf("sign-in through the replica: %d %v", r.StatusCode, r.Header)
	}
	via := ""
	me := func() int {
		resp, err := b.Get(rep.base + "/me/keys")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		via = resp.Header.Get("Via")
		return resp.StatusCode
	}
	if st := me(); st != 200 || via != server.ViaReplica {
		t.Fatalf("the signed-in page right after sign-in through the replica: %d, Via %q", st, via)
	}
	u, _ := url.Parse(rep.base)
	var kept []*http.Cookie
	for _, c := range jar.Cookies(u) {
		if c.Name != server.RecentWriteCookie {
			kept = append(kept, c)
		}
	}
	jar2, _ := cookiejar.New(nil)
	jar2.SetCookies(u, kept)
	b.Jar = jar2
	deadline := time.Now().Add(10 * time.Second)
	for me() != 200 {
		if time.Now().After(deadline) {
			t.Fatal("the replica never knew the session")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if via != "" {
		t.Fatalf("without the recent-write cookie the page still came from the primary (Via %q)", via)
	}
}
