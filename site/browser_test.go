package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"

	"github.com/chromedp/chromedp"
)

// chromium finds Debian's chromium (CHROMIUM overrides); browser tests
// skip when there is none, and .ci/run installs it so CI always runs them.
func chromium(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium installed (apt-get install chromium); .ci/run installs it")
	return ""
}

// browserCtx starts headless chromium for one test; a loaded 2-core CI
// machine is slow, hence the generous limit.
func browserCtx(t *testing.T) context.Context { return browserCtxFor(t, 4*time.Minute) }

// browserCtxFor starts headless chromium with the flags a closed network
// needs, stopped after timeout or at the test's end.
func browserCtxFor(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	// Chromium leaves its singleton socket's directory in TMPDIR when it
	// is stopped (about one per browser test in /tmp): it gets a TMPDIR of
	// its own, short enough for a socket path, removed after it stops.
	tmp, err := os.MkdirTemp("", "ldcr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	opts := []chromedp.ExecAllocatorOption{
		chromedp.Env("TMPDIR=" + tmp),
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx); err != nil { // start the browser now
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// artifactsDir is ./artifacts/ at the repository root (gitignored).
func artifactsDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "artifacts", "site")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves a full-page PNG of the current page under artifacts/.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(artifactsDir(t), name+".png"), png, 0o644); err != nil {
		t.Error(err)
	}
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// checkAxe injects axe-core (AXE_JS names axe.min.js; .ci/run installs it)
// into the current page and fails on serious or critical violations.
func checkAxe(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	path := os.Getenv("AXE_JS")
	if path == "" {
		t.Log("AXE_JS unset: accessibility check skipped (.ci/run sets it)")
		return
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("AXE_JS: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](string(src))); err != nil {
		t.Fatalf("inject axe: %v", err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify({violations: r.violations, passes: r.passes.length}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe on %s: %v", page, err)
	}
	var res struct {
		Violations []axeViolation `json:"violations"`
		Passes     int            `json:"passes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Passes == 0 {
		t.Fatalf("axe result (%d rules passed): %v %.200s", res.Passes, err, out)
	}
	vs := res.Violations
	bad := 0
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad++
			t.Errorf("axe %s on %s: %s (%s) at %v", v.Impact, page, v.ID, v.Help, v.Nodes[0].Target)
		} else {
			t.Logf("axe %s on %s: %s", v.Impact, page, v.ID)
		}
	}
	t.Logf("axe on %s: %d rules passed, %d violations, %d serious or critical", page, res.Passes, len(vs), bad)
}

// TestBrowserPublicPages opens the main pages in headless chromium, saves
// screenshots and runs axe-core on the home, listing and sign-in pages.
func TestBrowserPublicPages(t *testing.T) {
	ctx := browserCtx(t)
	e := newEnv(t)
	slug := firstSlug(t, e, "/api/v1/launches?section=this-week")
	signin := oauthSignInURL(t, e)
	pages := []struct {
		name, path, want string
		axe              bool
	}{
		{"home", "/", "This week, ranked by votes", true},
		{"listing", "/listings/" + slug, "Community rating", true},
		{"oauth-signin", signin, "Sign in to", true},
		{"week", "/launches/this", "Launch week of", false},
		{"categories", "/categories", "Categories", false},
		{"billboard", "/leaderboards/billboard", "Paid placement", false},
		{"search", "/search?q=a", "Search: a", false},
		{"blog", "/blog", "Blog", false},
	}
	for _, p := range pages {
		text, err := pageText(ctx, e.URL+p.path)
		if err != nil {
			t.Fatalf("%s: %v", p.path, err)
		}
		if !strings.Contains(text, p.want) {
			t.Errorf("%s: page text lacks %q", p.path, p.want)
		}
		screenshot(t, ctx, p.name)
		if p.axe {
			checkAxe(t, ctx, p.name)
		}
	}
}

// pageText opens url and returns the text of its main element.
func pageText(ctx context.Context, url string) (string, error) {
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return "", err
	}
	return chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
}

// oauthSignInURL registers an MCP-style client and returns the address of
// the OAuth sign-in page it would send a person to.
func oauthSignInURL(t *testing.T, e *apitest.Env) string {
	r := e.Do("POST", "/oauth/register", map[string]any{"client_name": "Browser test", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(r.Body, &reg); err != nil || reg.ClientID == "" {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	q := url.Values{"client_id": {reg.ClientID}, "response_type": {"code"}, "redirect_uri": {"http://127.0.0.1:9/cb"},
		"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}, "state": {"s"}}
	return fmt.Sprintf("/oauth/authorize?%s", q.Encode())
}
