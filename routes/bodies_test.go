package routes_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/demo"
	"launchdir/routes"
)

// slowClient opens a connection, sends a POST declaring size bytes and
// then trickles one byte every interval until stop closes or the server
// answers; it returns the status line the server sent (or "" if none).
func slowClient(t *testing.T, addr, path string, size int, interval time.Duration, stop <-chan struct{}) <-chan string {
	out := make(chan string, 1)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\ne", path, size)
	go func() {
		defer c.Close()
		answered := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(c).ReadString('\n')
			answered <- strings.TrimSpace(line)
		}()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case line := <-answered:
				out <- line
				return
			case <-stop:
				out <- ""
				return
			case <-tick.C:
				c.Write([]byte("x"))
			}
		}
	}()
	return out
}

// The attack of issue 25 against a real listener: as many slow bodies as
// there are write slots (16, the default), each declaring 100,000 bytes
// and sending one byte every 200 ms, while 30 ordinary writes arrive in
// parallel. Bodies are read before a slot is taken, so every ordinary
// write is admitted at once (the queue timeout is 1 s: a starved write
// would be a 503), and each slow client gets 408 when its body deadline
// passes.
func TestSlowBodiesDoNotHoldWriteSlots(t *testing.T) {
	const slots = 16
	e := apitest.New(t, apitest.Options{Fixture: true, Routes: routes.Options{MaxInFlight: 8, MaxInFlightWrites: slots,
		QueueTimeout: time.Second, BodyGrace: 500 * time.Millisecond}})
	addr := strings.TrimPrefix(e.URL, "http://")
	stop := make(chan struct{})
	defer close(stop)
	var slow []<-chan string
	for range slots {
		slow = append(slow, slowClient(t, addr, "/api/v1/drafts", 100000, 200*time.Millisecond, stop))
	}
	time.Sleep(300 * time.Millisecond) // every slow request is in, trickling
	var wg sync.WaitGroup
	statuses := make(chan int, 30)
	start := time.Now()
	for range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.Do("POST", "/api/v1/drafts", map[string]any{"url": "https://example.com"}).Status
		}()
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != http.StatusUnauthorized { // admitted and answered: no key
			t.Errorf("ordinary write during the attack: %d, want 401", s)
		}
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("30 writes took %v during the attack", d)
	}
	// 0.5 s grace + 100,000 bytes at 16 KiB/s (6 s): each slow body is
	// refused with 408 well before the server's read timeout.
	for i, ch := range slow {
		select {
		case line := <-ch:
			if !strings.Contains(line, " 408 ") {
				t.Errorf("slow client %d answered %q, want 408", i, line)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("slow client %d never refused", i)
		}
	}
}

// Bodies reach handlers intact around the buffering bound: 4 MiB exactly
// (all buffered) and one byte more (the rest streams after admission),
// with and without a declared length.
func TestBufferedBodiesIntact(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Routes: routes.Options{MaxInFlight: 4, MaxInFlightWrites: 2}})
	e.Routes.Handle("POST", "/test/echo", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.Copy(h, r.Body)
		fmt.Fprintf(w, "%d %x %v", n, h.Sum(nil), err)
	}))
	for _, size := range []int{1, 4 << 20, 4<<20 + 1} {
		body := bytes.Repeat([]byte("ab"), size/2+1)[:size]
		want := fmt.Sprintf("%d %x <nil>", size, sha256.Sum256(body))
		for _, chunked := range []bool{false, true} {
			var rd io.Reader = bytes.NewReader(body)
			if chunked {
				rd = io.MultiReader(rd) // hides the length: chunked encoding
			}
			req, _ := http.NewRequest("POST", e.URL+"/test/echo", rd)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != want {
				t.Errorf("size %d chunked %v: handler read %q, want %q", size, chunked, got, want)
			}
		}
	}
}

// A JSON answer states its length: without it net/http chunks any body
// over 2 KB. A client that takes no compression gets Content-Length and
// no Transfer-Encoding, for a body well past that size; one that takes
// gzip gets the same document compressed.
func TestJSONAnswersCarryTheirLength(t *testing.T) {
	e := apitest.New(t, apitest.Options{Setup: func(a *app.App) {
		if err := demo.Generate(context.Background(), a.DB, demo.Options{Seed: 1, Now: apitest.Now, BaseURL: a.Cfg.BaseURL}); err != nil {
			t.Fatal(err)
		}
	}})
	plain := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := plain.Get(e.URL + "/api/v1/listings?per_page=50")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(body) < 4096 || resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
		t.Fatalf("%d: %d bytes, Content-Length %d, Transfer-Encoding %v", resp.StatusCode, len(body), resp.ContentLength, resp.TransferEncoding)
	}
	zipped := e.Do("GET", "/api/v1/listings?per_page=50", nil)
	if zipped.Status != 200 || !bytes.Equal(zipped.Body, body) {
		t.Fatalf("with gzip: %d, %d bytes, want the same %d", zipped.Status, len(zipped.Body), len(body))
	}
}
