package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"launchdir/db"
	"launchdir/replica"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// The replica drills of issue 12: a real server process replicating with
// Litestream to a file or S3 replica, write load, kill -9, the database
// file lost, `launchdir restore`, and a new server on the restored file.

func get(t *testing.T, base, path, bearer string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitInSync polls /healthz until the replica holds every local
// transaction and has synced since after (plus a few sync intervals, so the
// WAL written before after has been read into a local transaction).
func waitInSync(t *testing.T, c *child, after time.Time) replica.Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, body := get(t, c.base, "/healthz", "")
		var h struct {
			Replication *replica.Status `json:"replication"`
		}
		json.Unmarshal([]byte(body), &h)
		if h.Replication == nil {
			t.Fatalf("healthz has no replication: %s", body)
		}
		last, _ := time.Parse(time.RFC3339Nano, h.Replication.LastSyncAt)
		if h.Replication.InSync && h.Replication.ReplicaTXID > 0 && last.After(after.Add(300*time.Millisecond)) {
			return *h.Replication
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never caught up: %s\n%s", body, c.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// loseDatabase deletes the database with everything beside it.
func loseDatabase(t *testing.T, path string) {
	t.Helper()
	dir, file := filepath.Split(path)
	for _, p := range []string{path, path + "-wal", path + "-shm", filepath.Join(dir, "."+file+"-litestream")} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

// postUpdate posts a listing update and reports whether it was acknowledged.
func postUpdate(t *testing.T, c *child, bearer, title string) bool {
	t.Helper()
	ic := idemCall{"u-" + title, "POST", "/api/v1/me/listings/1/updates", map[string]any{"title": title, "body": "b"}}
	st, _, err := ic.do(context.Background(), c.base, bearer)
	return err == nil && st == 201
}

func replicaDrill(t *testing.T, replicaURL string, env []string) {
	path, bearer := crashDB(t)
	args := []string{"-db", path, "-demo=false", "-rate", "0", "-base-url", "http://launchdir.test", "-replicate", replicaURL, "-replicate-sync-interval", "100ms"}
	c := startChildEnv(t, env, args...)
	var acked []string
	orders := 0
	for i := 0; i < 40; i++ {
		title := fmt.Sprintf("drill %03d", i)
		if postUpdate(t, c, bearer, title) {
			acked = append(acked, title)
		}
		if i%4 == 0 {
			ic := idemCall{fmt.Sprintf("o-%d", i), "POST", "/api/v1/orders/checkout", map[string]any{
				"items": []any{map[string]any{"product": "ai_review", "listing_id": 6}}, "billing_country": "US"}}
			if st, body, err := ic.do(context.Background(), c.base, bearer); err != nil || st != 201 {
				t.Fatalf("checkout: %d %s %v", st, body, err)
			}
			orders++
		}
	}
	st := waitInSync(t, c, time.Now())
	// What the server served before the disaster.
	paths := []string{"/api/v1/orders?per_page=100", "/api/v1/me/listings/1", "/api/v1/drafts", "/api/v1/listings?per_page=100"}
	before := map[string]string{}
	for _, p := range paths {
		code, body := get(t, c.base, p, bearer)
		if code != 200 {
			t.Fatalf("%s: %d %s", p, code, body)
		}
		before[p] = body
	}
	c.kill()
	loseDatabase(t, path)

	start := time.Now()
	out, err := runCmd(t, "restore", "-db", path, "-from", replicaURL)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	took := time.Since(start)
	if !strings.Contains(out, "integrity_check ok") {
		t.Fatalf("restore said %q", out)
	}
	// Restoring again refuses to overwrite the database.
	if _, err := runCmd(t, "restore", "-db", path, "-from", replicaURL); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("second restore: %v", err)
	}
	c2 := startChild(t, "-db", path, "-demo=false", "-rate", "0", "-base-url", "http://launchdir.test")
	for _, p := range paths {
		if _, body := get(t, c2.base, p, bearer); body != before[p] {
			t.Errorf("%s differs after restore:\n%s\nwas\n%s", p, body, before[p])
		}
	}
	c2.kill()
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	missing := 0
	for _, title := range acked {
		var n int
		if err := d.R.QueryRow(`SELECT count(*) FROM listing_updates WHERE title = ?`, title).Scan(&n); err != nil || n != 1 {
			missing++
		}
	}
	if missing > 0 || len(acked) != 40 {
		t.Errorf("%d of %d acknowledged updates missing after restore", missing, len(acked))
	}
	t.Logf("%s: %d updates + %d orders acknowledged, replica txid %d, restore %v, 0 missing", replica.Redact(replicaURL), len(acked), orders, st.ReplicaTXID, took.Round(time.Millisecond))
}

func TestFileReplicaDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	replicaDrill(t, "file://"+t.TempDir(), nil)
}

func TestS3ReplicaDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	s3 := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	t.Cleanup(s3.Close)
	// AWS_CA_BUNDLE (set on some machines) breaks Litestream's S3 client
	// ("unable to add custom RootCAs HTTPClient"); see README.
	env := []string{"AWS_ACCESS_KEY_ID=drill", "AWS_SECRET_ACCESS_KEY=drill-secret", "AWS_REGION=us-east-1", "AWS_CA_BUNDLE="}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v) // for the in-process restore command
	}
	u := "s3://drill-bucket/launchdir?region=us-east-1&endpoint=" + url.QueryEscape(s3.URL)
	replicaDrill(t, u, env)
}

// TestPointInTimeRestore restores to a moment between two known writes.
func TestPointInTimeRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, bearer := crashDB(t)
	rep := "file://" + t.TempDir()
	c := startChild(t, "-db", path, "-demo=false", "-rate", "0", "-replicate", rep, "-replicate-sync-interval", "100ms")
	if !postUpdate(t, c, bearer, "before the mark") {
		t.Fatal("first write")
	}
	waitInSync(t, c, time.Now())
	time.Sleep(1100 * time.Millisecond)
	mark := time.Now().UTC().Truncate(time.Second)
	time.Sleep(1100 * time.Millisecond)
	if !postUpdate(t, c, bearer, "after the mark") {
		t.Fatal("second write")
	}
	waitInSync(t, c, time.Now())
	c.kill()

	check := func(args []string, wantAfter bool) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "pitr.db")
		if _, err := runCmd(t, append([]string{"restore", "-db", out, "-from", rep}, args...)...); err != nil {
			t.Fatalf("restore %v: %v", args, err)
		}
		c := startChild(t, "-db", out, "-demo=false", "-rate", "0")
		_, body := get(t, c.base, "/api/v1/me/listings/1", bearer)
		if !strings.Contains(body, "before the mark") || strings.Contains(body, "after the mark") != wantAfter {
			t.Errorf("restore %v: %s", args, body)
		}
		c.kill()
	}
	check([]string{"-at", mark.Format(time.RFC3339)}, false)
	check(nil, true)
	if _, err := runCmd(t, "restore", "-db", filepath.Join(t.TempDir(), "x.db"), "-from", rep, "-at", "yesterday"); err == nil {
		t.Error("bad -at accepted")
	}
}

// TestRestoreIfMissing is the replaced-VM start: the database file is gone,
// the server restores it from the replica before serving.
func TestRestoreIfMissing(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, bearer := crashDB(t)
	rep := "file://" + t.TempDir()
	args := []string{"-db", path, "-demo=false", "-rate", "0", "-replicate", rep, "-replicate-sync-interval", "100ms", "-restore-if-missing"}
	c := startChild(t, args...)
	if !postUpdate(t, c, bearer, "survives the VM") {
		t.Fatal("write")
	}
	waitInSync(t, c, time.Now())
	c.kill()
	loseDatabase(t, path)
	c = startChild(t, args...)
	if code, body := get(t, c.base, "/api/v1/me/listings/1", bearer); code != 200 || !strings.Contains(body, "survives the VM") {
		t.Fatalf("after restore-if-missing: %d %s\n%s", code, body, c.log)
	}
	// The restored server replicates again.
	if !postUpdate(t, c, bearer, "after the restore") {
		t.Fatal("write after restore")
	}
	waitInSync(t, c, time.Now())
	if _, err := runCmd(t, "restore", "-db", path, "-from", rep); err == nil {
		t.Error("restore over an existing database")
	}
}

// TestReplicaDownKeepsServing points the replica at a closed port: the
// server serves and takes writes; /healthz reports the error and the lag.
func TestReplicaDownKeepsServing(t *testing.T) {
	if testing.Short() {
		t.Skip("replica drill")
	}
	path, bearer := crashDB(t)
	env := []string{"AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=y", "AWS_CA_BUNDLE="}
	c := startChildEnv(t, env, "-db", path, "-demo=false", "-rate", "0", "-replicate-sync-interval", "100ms",
		"-replicate", "s3://b/p?region=us-east-1&endpoint="+url.QueryEscape("http://"+freeAddr(t)))
	if !postUpdate(t, c, bearer, "while the replica is down") {
		t.Fatal("write refused while the replica is down")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get(t, c.base, "/healthz", "")
		var h struct{ Replication replica.Status }
		json.Unmarshal([]byte(body), &h)
		if code != 200 {
			t.Fatalf("healthz %d %s", code, body)
		}
		if h.Replication.Error != "" && !h.Replication.InSync && h.Replication.LagSeconds > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no replication error reported: %s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // the watcher logs on its next tick
	c.kill()                            // the log buffer is written by the process until it exits
	if !strings.Contains(c.log.String(), "replication failing; still serving") {
		t.Errorf("log: %s", c.log)
	}
}
