package server

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"launchdir/routes"
)

// The access log is written in batches (-log-flush). Its line per
// request was one write system call per request: under a concurrent
// writer, 4% of the server's CPU on a get_listing load (issue 26). Those
// lines now wait in memory for at most the flush interval, or until 64 KiB
// have gathered. Every other line (start, shutdown, a replica catching
// up, a warning, an error) is written at once, with every line before it,
// so the order holds; so is everything at shutdown. A process killed with
// SIGKILL loses at most one interval of access-log lines.

// logBufferSize is how much the log gathers before it writes regardless.
const logBufferSize = 64 << 10

// logBuffer is an io.Writer that batches writes to w.
type logBuffer struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	stop chan struct{}
	done chan struct{}
}

// newLogBuffer batches writes to w, writing at least every interval; an
// interval of 0 writes each line at once (no buffer: w is returned).
func newLogBuffer(w io.Writer, interval time.Duration) (io.Writer, func()) {
	if interval <= 0 {
		return w, func() {}
	}
	b := &logBuffer{w: w, buf: make([]byte, 0, logBufferSize), stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop(interval)
	var once sync.Once
	return b, func() {
		once.Do(func() {
			close(b.stop)
			<-b.done
			b.Flush()
		})
	}
}

func (b *logBuffer) loop(interval time.Duration) {
	defer close(b.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.Flush()
		}
	}
}

// Write keeps p (one whole record: slog writes each in one call) for the
// next flush, writing first when it would not fit.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf)+len(p) > logBufferSize {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > logBufferSize {
			return b.w.Write(p)
		}
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Flush writes what the buffer holds.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *logBuffer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// flushingHandler writes the buffer out after every record but the
// access log's info lines, so nothing else is ever held back.
type flushingHandler struct {
	slog.Handler
	b *logBuffer
}

func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Message != routes.AccessLogMessage || r.Level >= slog.LevelWarn {
		if ferr := h.b.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return flushingHandler{h.Handler.WithAttrs(as), h.b}
}

func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{h.Handler.WithGroup(name), h.b}
}
