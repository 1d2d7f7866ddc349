package routes

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"

	"launchdir/ops"

	"golang.org/x/sync/semaphore"
)

// Request bodies are read before admission control gives out a slot, so a
// client that sends its body slowly waits on its own connection and never
// holds a write slot (16 connections trickling one byte every 2 s used to
// hold every slot for the server's 30 s read timeout). Two bounds keep the
// early read from becoming the next thing to exhaust:
//
//   - time: the whole buffered body must arrive within bodyGrace plus one
//     second per minBodyRate bytes declared (100 kB: 16 s), never more than
//     the server's 30 s read timeout; a body that stalls is answered 408
//     and the connection closed.
//   - memory: every buffered byte counts against one budget (bodyBudget),
//     taken as the bytes arrive, so a trickling client holds almost none;
//     when it is spent the request is refused with 503 and Retry-After.
//
// Bodies larger than maxBuffered (uploads on the site) are buffered up to
// that size and the rest streams after admission, under the same deadline.
const (
	maxBuffered = 4 << 20
	bodyBudget  = 256 << 20
	bodyGrace   = 10 * time.Second
	minBodyRate = 16 << 10
	maxBodyWait = 30 * time.Second // the server's ReadTimeout (server/serve.go)
)

// bodyBuffer holds the memory budget of bodies being read early.
type bodyBuffer struct {
	budget *semaphore.Weighted
	grace  time.Duration
}

func newBodyBuffer(grace time.Duration) *bodyBuffer {
	if grace <= 0 {
		grace = bodyGrace
	}
	return &bodyBuffer{budget: semaphore.NewWeighted(bodyBudget), grace: grace}
}

// hasBody reports whether r carries a body to read before admission.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 && r.Method != http.MethodGet && r.Method != http.MethodHead
}

// read buffers r's body (up to maxBuffered) and returns the function that
// gives the memory back, or nil after answering the request itself.
func (b *bodyBuffer) read(w http.ResponseWriter, r *http.Request) func() {
	limit := int64(maxBuffered)
	if r.ContentLength > 0 && r.ContentLength < limit {
		limit = r.ContentLength
	}
	// Not every ResponseWriter has a connection (tests' recorders): then
	// the server's own ReadTimeout is the only bound.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(b.deadline(limit)))
	buf, held, err := b.fill(r.Body, limit)
	release := func() { b.budget.Release(held) }
	switch {
	case errors.Is(err, errBudget):
		release()
		writeProblem(w, r, &ops.Error{Code: ops.CodeUnavailable, RetryAfter: time.Second,
			Detail: "the server is receiving too many request bodies at once; retry shortly"})
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		release()
		w.Header().Set("Connection", "close")
		writeProblem(w, r, &ops.Error{Code: ops.CodeTimeout,
			Detail: "the request body did not arrive in time (" + strconv.FormatInt(limit, 10) + " bytes may take " + b.deadline(limit).String() + ")"})
		return nil
	case err != nil:
		// The client went away or sent a broken chunked body: the handler
		// reads the same error after what did arrive.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf), errReader{err}))
		return release
	}
	if int64(len(buf)) < limit || r.ContentLength == limit {
		// All of it is here: lift the deadline, or the connection's
		// background read would hit it and cancel a long handler.
		_ = rc.SetReadDeadline(time.Time{})
	}
	rest := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), rest), rest}
	return release
}

var errBudget = errors.New("body budget spent")

// fill reads up to limit bytes of body, taking memory from the budget as
// bytes arrive (a client trickling its body holds only what it sent). It
// returns what was read and how much budget it holds.
func (b *bodyBuffer) fill(body io.Reader, limit int64) ([]byte, int64, error) {
	const chunk = 32 << 10
	var buf []byte
	var held int64
	for int64(len(buf)) < limit {
		if int64(len(buf)) == held {
			n := min(chunk, limit-held)
			if !b.budget.TryAcquire(n) {
				return nil, held, errBudget
			}
			held += n
			buf = slices.Grow(buf, int(n))
		}
		n, err := body.Read(buf[len(buf):held])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			return buf, held, err
		}
	}
	return buf, held, nil
}

// deadline is how long size bytes may take, never past maxBodyWait.
func (b *bodyBuffer) deadline(size int64) time.Duration {
	return min(b.grace+time.Duration(size/minBodyRate)*time.Second, maxBodyWait)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
