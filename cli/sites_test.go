package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"launchdir/db"
	"launchdir/server"
)

// TestBackupCarriesEverySite: the sites are rows of the one database file,
// so a backup served on its own answers for the second site's host with
// that site's name, and still refuses a host no site claims.
func TestBackupCarriesEverySite(t *testing.T) {
	if testing.Short() {
		t.Skip("server process")
	}
	path, _ := crashDB(t)
	addDevtools(t, path)
	out := filepath.Join(t.TempDir(), "copy.db")
	if msg, err := runCmd(t, "backup", "-db", path, "-to", out); err != nil {
		t.Fatalf("backup: %v %s", err, msg)
	}
	c := startChild(t, "-db", out, "-demo=false", "-rate", "0")
	get := func(host, path string) (int, string) { return hostGet(t, c.base, host, path) }
	if st, body := get("devtools.test", "/api/v1/site"); st != 200 || !strings.Contains(body, `"name":"DevTools Hunt"`) || !strings.Contains(body, `"base":"http://devtools.test"`) {
		t.Errorf("the backup's second site: %d %.300s", st, body)
	}
	if st, body := get("devtools.test", "/"); st != 200 || !strings.Contains(body, "<title>DevTools Hunt") {
		t.Errorf("the backup's second site's home page: %d %.200s", st, body)
	}
	if st, _ := get(strings.TrimPrefix(c.base, "http://"), "/api/v1/site"); st != 200 {
		t.Errorf("the backup's main site: %d", st)
	}
	if st, _ := get("other.test", "/"); st != 421 {
		t.Errorf("unknown host on the backup: %d", st)
	}
}

// addDevtools adds the second site of these drills to a database file.
func addDevtools(t *testing.T, path string) {
	t.Helper()
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, q := range []string{
		`INSERT INTO sites(key, origin, created_at, updated_at) VALUES('devtools', 'http://devtools.test', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
		`INSERT INTO site_settings(site_key, key, value) VALUES('devtools', 'site_name', 'DevTools Hunt')`,
	} {
		if _, err := d.W.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// hostGet GETs base+path for the site of host.
func hostGet(t *testing.T, base, host, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestReadReplicaServesEverySite: a read replica follows the one file, so
// it serves the second site by its host; a write it forwards reaches the
// primary for the same site (the host the browser used goes along).
func TestReadReplicaServesEverySite(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, bearer := crashDB(t)
	addDevtools(t, path)
	repURL := "file://" + filepath.Join(t.TempDir(), "replica")
	primary := startChild(t, "-db", path, "-demo=false", "-rate", "0", "-base-url", "http://launchdir.test", "-replicate", repURL, "-replicate-sync-interval", "50ms")
	waitInSync(t, primary, time.Now())
	rep := startChild(t, "-db", filepath.Join(t.TempDir(), "copy.db"), "-rate", "0", "-base-url", "http://launchdir.test",
		"-replica-of", repURL, "-primary-url", primary.base, "-replica-poll-interval", "50ms", "-trust-proxy")
	if st, body := hostGet(t, rep.base, "devtools.test", "/api/v1/site"); st != 200 || !strings.Contains(body, `"name":"DevTools Hunt"`) || !strings.Contains(body, `"base":"http://devtools.test"`) {
		t.Fatalf("the replica's second site: %d %.300s", st, body)
	}
	if st, body := hostGet(t, rep.base, "devtools.test", "/robots.txt"); st != 200 || !strings.Contains(body, "Sitemap: http://devtools.test/sitemap.xml") {
		t.Errorf("the replica's second site's robots.txt: %d %s", st, body)
	}
	if st, _ := hostGet(t, rep.base, "other.test", "/"); st != 421 {
		t.Errorf("unknown host on the replica: %d", st)
	}
	// A write on the replica for devtools is answered by the primary for
	// devtools: the listing's public address in the answer is devtools'.
	// Directly by its host, and behind a proxy that names it in
	// X-Forwarded-Host (the replica passes the host it took on).
	for i, hdr := range [][2]string{{"Host", "devtools.test"}, {"X-Forwarded-Host", "devtools.test"}} {
		req, _ := http.NewRequest("PATCH", rep.base+"/api/v1/me/listings/1", bytes.NewReader([]byte(`{"fields":{"tagline":"via the devtools replica `+string(rune('a'+i))+`"}}`)))
		if hdr[0] == "Host" {
			req.Host = hdr[1]
		} else {
			req.Header.Set(hdr[0], hdr[1])
		}
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("Content-Type", "application/json")
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		pb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Via") != server.ViaReplica || !strings.Contains(string(pb), "http://devtools.test/") || strings.Contains(string(pb), "http://launchdir.test/listings/") {
			t.Errorf("PATCH for devtools through the replica (%s): %d %v %.500s", hdr[0], resp.StatusCode, resp.Header, pb)
		}
	}
}
