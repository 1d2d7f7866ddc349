package cli

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"launchdir/db"
)

// TestBackupCarriesEverySite: the sites are rows of the one database file,
// so a backup served on its own answers for the second site's host with
// that site's name, and still refuses a host no site claims.
func TestBackupCarriesEverySite(t *testing.T) {
	if testing.Short() {
		t.Skip("server process")
	}
	path, _ := crashDB(t)
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO sites(key, origin, created_at, updated_at) VALUES('devtools', 'http://devtools.test', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
		`INSERT INTO site_settings(site_key, key, value) VALUES('devtools', 'site_name', 'DevTools Hunt')`,
	} {
		if _, err := d.W.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	out := filepath.Join(t.TempDir(), "copy.db")
	if msg, err := runCmd(t, "backup", "-db", path, "-to", out); err != nil {
		t.Fatalf("backup: %v %s", err, msg)
	}
	c := startChild(t, "-db", out, "-demo=false", "-rate", "0")
	get := func(host, path string) (int, string) {
		req, _ := http.NewRequest("GET", c.base+path, nil)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
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
