package db

import (
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
