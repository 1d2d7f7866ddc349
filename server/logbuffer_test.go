package server

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to read while the flusher writes.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) String() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.writes
}

// Access-log lines wait for the interval, in one write; any other line (a
// warning, an info line of another kind) takes them with it at once; the
// flush at exit writes the rest.
func TestLogBufferBatchesInfoNotWarnings(t *testing.T) {
	var out lockedBuffer
	cfg := DefaultConfig()
	cfg.LogFlush = time.Hour // only size, warnings and the final flush write
	log, flush := cfg.NewBufferedLogger(&out)
	for i := range 100 {
		log.Info("request", "n", i)
	}
	if s, w := out.String(); s != "" || w != 0 {
		t.Fatalf("info lines written before the interval: %d writes", w)
	}
	log.Warn("something is off")
	s, w := out.String()
	if w != 1 || strings.Count(s, "msg=request") != 100 || !strings.HasSuffix(s, "msg=\"something is off\"\n") {
		t.Fatalf("after a warning: %d writes, %d request lines, ends %q", w, strings.Count(s, "msg=request"), s[max(0, len(s)-40):])
	}
	log.Info("request", "n", 100)
	log.Info("following the primary")
	if s, w := out.String(); w != 2 || !strings.Contains(s, "n=100\n") || !strings.HasSuffix(s, "msg=\"following the primary\"\n") {
		t.Fatalf("another info line was held back or out of order: %d writes, ends %q", w, s[max(0, len(s)-80):])
	}
	log.Info("request", "n", 101)
	flush()
	if s, _ := out.String(); !strings.HasSuffix(s, "n=101\n") {
		t.Fatal("the final flush lost a line")
	}
	flush() // twice is harmless
}

// The interval writes what gathered; 64 KiB is written without waiting; 0
// writes every line at once.
func TestLogBufferIntervalAndSize(t *testing.T) {
	var out lockedBuffer
	cfg := DefaultConfig()
	cfg.LogFlush = 20 * time.Millisecond
	log, flush := cfg.NewBufferedLogger(&out)
	defer flush()
	log.Info("request", "soon", true)
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if s, _ := out.String(); strings.Contains(s, "soon=true") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an info line was not written within 2 s at a 20 ms interval")
		}
	}

	var big lockedBuffer
	cfg.LogFlush = time.Hour
	log, flush2 := cfg.NewBufferedLogger(&big)
	defer flush2()
	line := strings.Repeat("x", 1000)
	for range 70 { // about 70 KB: over the buffer once
		log.Info("request", "x", line)
	}
	if s, w := big.String(); w != 1 || len(s) < 60<<10 || len(s) > logBufferSize {
		t.Fatalf("%d writes of %d bytes, want one of at most %d", w, len(s), logBufferSize)
	}
	huge := strings.Repeat("y", logBufferSize+10)
	log.Info("request", "y", huge)
	if s, _ := big.String(); !strings.Contains(s, huge) {
		t.Fatal("a record over the buffer's size was not written through")
	}

	var direct lockedBuffer
	cfg.LogFlush = 0
	log, flush3 := cfg.NewBufferedLogger(&direct)
	defer flush3()
	log.Info("request", "n", 1)
	log.Info("request", "n", 2)
	if s, w := direct.String(); w != 2 || !strings.Contains(s, "n=2") {
		t.Fatalf("-log-flush 0: %d writes", w)
	}
}
