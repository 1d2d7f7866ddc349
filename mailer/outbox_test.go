package mailer

import (
	"context"
	"mime"
	"net/mail"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app/kernel"
)

// A follower email goes from post_listing_update through the outbox to a
// real (local) SMTP server with both parts and its List-Unsubscribe link.
func TestOutboxDeliversFollowerEmail(t *testing.T) {
	addr, got := fakeSMTP(t)
	m, err := New("smtp://" + addr + "?from=news@launchdir.test")
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{Fixture: true})
	e.App.SetExternals(kernel.Externals{Mailer: m})
	ctx := context.Background()
	u, err := e.App.People.EnsureUser(ctx, "follower@example.com", "Fay")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.People.ToggleFollow(ctx, u.ID, "quickbase"); err != nil {
		t.Fatal(err)
	}
	r := e.Do("POST", "/api/v1/me/listings/1/updates", map[string]any{"title": "Größer und schneller", "body": "v3 ist da."},
		apitest.Bearer(e.APIKey("owner@example.com"))...)
	if r.Status/100 != 2 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if err := e.App.DeliverOutbox(ctx); err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(<-got))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	unsub := msg.Header.Get("List-Unsubscribe")
	if subject != "QuickBase: Größer und schneller" || !strings.HasPrefix(unsub, "<"+e.URL+"/unsubscribe/") ||
		!strings.HasPrefix(msg.Header.Get("Content-Type"), "multipart/alternative") || msg.Header.Get("Precedence") != "bulk" {
		t.Fatalf("headers %v (subject %q)", msg.Header, subject)
	}
	var sent int
	e.DB.R.QueryRow(`SELECT count(*) FROM outbox WHERE status = 'sent' AND kind = 'follower_update'`).Scan(&sent)
	if sent != 1 {
		t.Fatalf("%d sent", sent)
	}
	// The link in the header works.
	token := strings.TrimSuffix(unsub[strings.LastIndex(unsub, "/")+1:], ">")
	if err := e.App.People.Unsubscribe(ctx, token); err != nil {
		t.Fatal(err)
	}
}
