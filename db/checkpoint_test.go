package db

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// The checkpoint loop keeps its connection between rounds while commits
// go on: opening one per round read the whole schema every time.
func TestCheckpointerKeepsItsConnection(t *testing.T) {
	d, ctx := tempDB(t)
	deadline := time.Now().Add(time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		if _, err := d.W.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES(?, 'x')
			ON CONFLICT(key) DO UPDATE SET value = excluded.value || value`, "checkpoint-test"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	st := d.ckpt.conn.Stats()
	if st.MaxIdleClosed != 0 || st.OpenConnections != 1 {
		t.Fatalf("checkpoint connection closed %d times between rounds (%d open), want kept open", st.MaxIdleClosed, st.OpenConnections)
	}
}

// walLoad runs back-to-back group commits of about 6 KB each from 8
// goroutines, and readers beside them, for dur.
func walLoad(t *testing.T, d *DB, dur time.Duration) {
	t.Helper()
	ctx := context.Background()
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				err := d.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
					_, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES(?, ?)
						ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fmt.Sprintf("wal-%d-%d", w, i%50), strings.Repeat("x", 6000))
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				var n int
				if err := d.R.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func walSize(t *testing.T, d *DB) int64 {
	t.Helper()
	st, err := os.Stat(d.Path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// Under a stream of group commits a checkpoint never finds every frame
// copied at the moment a transaction starts, so without restarts the WAL
// grew for as long as the writes went on (743 MB after 12 s of owner
// PATCHes over HTTP; 72 MB with them, walRestartFrames' 64 MB plus one
// checkpoint round of writes). These lighter writes leave the checkpoint
// gaps of its own, so the test checks that past the restart point the
// writer restarts the WAL and the file stays small.
func TestWALStaysBoundedUnderContinuousWrites(t *testing.T) {
	defer func(n int64) { walRestartFrames = n }(walRestartFrames)
	walRestartFrames = 256 // 1 MB of 4 KB pages
	d, _ := tempDB(t)
	walLoad(t, d, 3*time.Second)
	size, restarts := walSize(t, d), d.WALRestarts()
	t.Logf("WAL %d bytes after 3 s, %d restarts, %d prevented", size, restarts, d.WALRestartFails())
	if restarts == 0 {
		t.Errorf("no WAL restart under 3 s of continuous writes past the restart point")
	}
	if limit := int64(8 << 20); size > limit {
		t.Errorf("WAL grew to %d bytes, want at most %d", size, limit)
	}
}

// A reader that keeps the old frames (a replication's read lock) makes a
// restart fail: the writer then backs off instead of waiting for it after
// every commit, and restarts once the reader is gone.
func TestWALRestartBacksOffWhileAReaderHoldsOldFrames(t *testing.T) {
	defer func(n int64) { walRestartFrames = n }(walRestartFrames)
	walRestartFrames = 256
	d, ctx := tempDB(t)
	conn, err := d.R.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM settings`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	walLoad(t, d, 1500*time.Millisecond)
	if r, f := d.WALRestarts(), d.WALRestartFails(); r != 0 || f == 0 || f > 2 {
		t.Errorf("with a reader holding the first frames for 1.5 s: %d restarts, %d failed tries; want 0 and 1–2 (1 s back-off)", r, f)
	}
	tx.Rollback()
	conn.Close()
	walLoad(t, d, 3*time.Second) // the back-off is 2 s after the second try
	if d.WALRestarts() == 0 {
		t.Errorf("no restart after the reader was gone (%d failed tries)", d.WALRestartFails())
	}
}
