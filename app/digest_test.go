package app_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/ops"
)

func TestWeeklyDigestDoubleOptIn(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true})
	d := e.App.Digest
	count := func(q string, args ...any) int {
		var n int
		if err := e.DB.R.QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	link := func(to, path string) string {
		var body string
		e.DB.R.QueryRow(`SELECT body FROM outbox WHERE to_addr = ? AND body LIKE '%' || ? || '%' ORDER BY id DESC LIMIT 1`, to, path).Scan(&body)
		m := regexp.MustCompile(regexp.QuoteMeta(path) + `([a-z0-9]+)`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no %s link to %s", path, to)
		}
		return m[1]
	}
	if err := d.Subscribe(bg, "not an email"); code(err) != ops.CodeInvalid {
		t.Fatalf("bad email: %v", err)
	}
	for _, who := range []string{"Reader@Example.com", "pending@example.com"} {
		if err := d.Subscribe(bg, who); err != nil {
			t.Fatal(err)
		}
	}
	// Asking again within the hour sends no second email.
	d.Subscribe(bg, "reader@example.com")
	if n := count(`SELECT count(*) FROM outbox WHERE kind = 'digest_confirm' AND to_addr = 'reader@example.com'`); n != 1 {
		t.Fatalf("confirmation emails %d", n)
	}
	tok := link("reader@example.com", "/digest/confirm/")
	if _, err := d.Confirm(bg, "nope"); code(err) != ops.CodeInvalid {
		t.Fatalf("bad token: %v", err)
	}
	if email, err := d.Confirm(bg, tok); err != nil || email != "reader@example.com" {
		t.Fatalf("confirm: %s %v", email, err)
	}
	if _, err := d.Confirm(bg, tok); code(err) != ops.CodeInvalid {
		t.Fatalf("confirm twice: %v", err)
	}
	// Not before Monday 07:00 UTC; then once, to confirmed addresses only.
	at := func(s string) {
		tm, _ := time.Parse(time.RFC3339, s)
		e.App.Now = func() time.Time { return tm }
	}
	at("2026-11-23T06:59:00Z")
	d.SendDue(bg)
	if n := count(`SELECT count(*) FROM digests`); n != 0 {
		t.Fatalf("sent early: %d", n)
	}
	at("2026-11-23T07:00:00Z")
	for range 2 {
		if err := d.SendDue(bg); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(`SELECT count(*) FROM outbox WHERE kind = 'digest'`); n != 1 {
		t.Fatalf("digest emails %d", n)
	}
	var subject, body, headers string
	e.DB.R.QueryRow(`SELECT subject, body, headers FROM outbox WHERE kind = 'digest'`).Scan(&subject, &body, &headers)
	if subject != "Test Directory weekly: the week of 16 Nov 2026" || !strings.Contains(body, "QuickBase (") ||
		!strings.Contains(body, "/digests/2026-11-16") || !strings.Contains(headers, "One-Click") {
		t.Fatalf("digest: %s\n%s\n%s", subject, body, headers)
	}
	is, err := d.Get(bg, "2026-11-16")
	if err != nil || is.Recipients != 1 || !strings.Contains(is.HTML, "QuickBase") {
		t.Fatalf("archive: %+v %v", is, err)
	}
	// One-click unsubscribe: next week's digest is not sent to them.
	if err := d.Unsubscribe(bg, link("reader@example.com", "/digest/unsubscribe/")); err != nil {
		t.Fatal(err)
	}
	at("2026-11-30T08:00:00Z")
	d.SendDue(bg)
	if n := count(`SELECT count(*) FROM outbox WHERE kind = 'digest'`); n != 1 {
		t.Fatalf("after unsubscribe: %d", n)
	}
	if n := count(`SELECT recipients FROM digests WHERE week = '2026-11-23'`); n != 0 {
		t.Fatalf("recipients after unsubscribe: %d", n)
	}
}
