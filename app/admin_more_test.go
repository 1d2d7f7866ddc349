package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app/admin"
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/ops"
)

func TestAdminPricesPromosAndRefunds(t *testing.T) {
	e := newAdminEnv(t)
	wantCode(t, "negative price", e.App.Admin.AdminSetPrice(bg, e.admin, "launch", -1, nil), ops.CodeInvalid)
	wantCode(t, "unknown product", e.App.Admin.AdminSetPrice(bg, e.admin, "nope", 1, nil), ops.CodeNotFound)
	big := int64(1001)
	wantCode(t, "capacity 1001", e.App.Admin.AdminSetPrice(bg, e.admin, "launch", 1, &big), ops.CodeInvalid)
	capacity := int64(1000)
	if err := e.App.Admin.AdminSetPrice(bg, e.admin, "ai_review", 4200, &capacity); err != nil {
		t.Fatal(err)
	}
	q := e.Do("POST", "/api/v1/orders/quote", apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1)), e.owner...)
	if q.Status != 200 || !strings.Contains(string(q.Body), `"net_cents":4200`) {
		t.Fatalf("quote at the new price: %d %s", q.Status, q.Body)
	}
	unlimited := int64(-1)
	if err := e.App.Admin.AdminSetPrice(bg, e.admin, "ai_review", 4200, &unlimited); err != nil {
		t.Fatal(err)
	}
	if n := e.count(`SELECT count(*) FROM products WHERE code = 'ai_review' AND weekly_capacity IS NULL`); n != 1 {
		t.Fatal("capacity not unlimited")
	}

	// Promo codes: created with the CLI's validation, paused, resumed, usage.
	wantCode(t, "bad promo", e.App.Admin.AdminCreatePromo(bg, e.admin, commerce.PromoCode{Code: "P", Kind: "percent", Value: 101}), ops.CodeInvalid)
	if err := e.App.Admin.AdminCreatePromo(bg, e.admin, commerce.PromoCode{Code: "TEN", Kind: "percent", Value: 10}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "duplicate promo", e.App.Admin.AdminCreatePromo(bg, e.admin, commerce.PromoCode{Code: "TEN", Kind: "percent", Value: 10}), ops.CodeConflict)
	body := apitest.Order(apitest.OrderItem("ai_review", "listing_id", 1))
	body["promo_code"] = "TEN"
	if r := e.Do("POST", "/api/v1/orders/quote", body, e.owner...); r.Status != 200 {
		t.Fatalf("promo quote: %d %s", r.Status, r.Body)
	}
	if err := e.App.Admin.SetPromoPaused(bg, e.admin, "TEN", true); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "pause twice", e.App.Admin.SetPromoPaused(bg, e.admin, "TEN", true), ops.CodeInvalid)
	wantCode(t, "pause unknown", e.App.Admin.SetPromoPaused(bg, e.admin, "NOPE", true), ops.CodeNotFound)
	if r := e.Do("POST", "/api/v1/orders/quote", body, e.owner...); r.Status != 400 || !strings.Contains(string(r.Body), "paused") {
		t.Fatalf("paused promo: %d %s", r.Status, r.Body)
	}
	if err := e.App.Admin.SetPromoPaused(bg, e.admin, "TEN", false); err != nil {
		t.Fatal(err)
	}
	r := e.Do("POST", "/api/v1/orders/checkout", body, e.owner...)
	if r.Status != 201 {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	number := r.JSON()["number"].(string)
	wantCode(t, "refund pending", e.App.Admin.AdminRefund(bg, e.admin, number, ""), ops.CodeInvalid)
	if _, err := e.App.Commerce.ConfirmPayment(bg, number, "test", "t"); err != nil {
		t.Fatal(err)
	}
	usage, err := e.App.Admin.PromoCodes(bg, e.admin)
	if err != nil || len(usage) != 1 || usage[0].OrdersByStatus["paid"] != 1 || usage[0].PaidDiscount != 420 || usage[0].Redemptions != 1 {
		t.Fatalf("usage: %+v %v", usage, err)
	}
	wantCode(t, "note 501", e.App.Admin.AdminRefund(bg, e.admin, number, strings.Repeat("n", 501)), ops.CodeInvalid)
	wantCode(t, "refund unknown", e.App.Admin.AdminRefund(bg, e.admin, "LD-2026-999999", ""), ops.CodeNotFound)
	if err := e.App.Admin.AdminRefund(bg, e.admin, number, strings.Repeat("n", 500)); err != nil {
		t.Fatal(err)
	}
	if o := e.Do("GET", "/api/v1/orders/"+number, nil, e.owner...).JSON(); o["status"] != "refunded" {
		t.Fatalf("order after refund: %v", o["status"])
	}
	orders, _ := e.App.Admin.AdminOrders(bg, e.admin, "refunded", admin.AdminPage{})
	if orders.Total != 1 || orders.Items[0].Number != number || orders.Items[0].UserEmail != "owner@example.com" {
		t.Fatalf("orders: %+v", orders)
	}
	_, err = e.App.Admin.AdminOrders(bg, e.admin, "weird", admin.AdminPage{})
	wantCode(t, "order status", err, ops.CodeInvalid)
	audit, _ := e.App.Admin.ListAudit(bg, e.admin, admin.AdminPage{PerPage: 100})
	actions := map[string]int{}
	for _, a := range audit.Items {
		actions[a.Action]++
	}
	if actions["set_price"] != 2 || actions["create_promo"] != 1 || actions["pause_promo"] != 2 || actions["refund_order"] != 1 {
		t.Fatalf("audit actions: %v", actions)
	}
}

func TestImportDomainRatingCSV(t *testing.T) {
	e := newAdminEnv(t)
	req := func(csv string) admin.ImportRequest {
		return admin.ImportRequest{Kind: admin.ImportDomainRating, Source: "Ahrefs export", AsOf: "2026-11-15", CSV: []byte(csv)}
	}
	// Whole-request problems are field errors.
	for name, r := range map[string]admin.ImportRequest{
		"kind":   {Kind: "x", Source: "s", AsOf: "2026-11-15", CSV: []byte("a")},
		"source": {Kind: admin.ImportDomainRating, Source: strings.Repeat("s", 101), AsOf: "2026-11-15", CSV: []byte("a")},
		"future": {Kind: admin.ImportDomainRating, Source: "s", AsOf: "2026-11-19", CSV: []byte("a")},
		"date":   {Kind: admin.ImportDomainRating, Source: "s", AsOf: "15/11/2026", CSV: []byte("a")},
		"empty":  {Kind: admin.ImportDomainRating, Source: "s", AsOf: "2026-11-15"},
		"binary": {Kind: admin.ImportDomainRating, Source: "s", AsOf: "2026-11-15", CSV: []byte{0xff, 0xfe}},
		"large":  {Kind: admin.ImportDomainRating, Source: "s", AsOf: "2026-11-15", CSV: make([]byte, admin.MaxImportBytes+1)},
	} {
		_, err := e.App.Admin.PreviewImport(bg, e.admin, r)
		wantCode(t, name, err, ops.CodeInvalid)
	}
	// Every bad cell is reported with its line and column.
	p, err := e.App.Admin.PreviewImport(bg, e.admin, req("slug,domain_rating\nquickbase,101\nnope,5\ntablely,x\n\nrankrocket,-1\n,4\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"line 2, column domain_rating", "line 3, column slug", "line 4, column domain_rating", "line 6, column domain_rating", "line 7, column slug"}
	if len(p.Errors) != len(want) || len(p.Rows) != 0 {
		t.Fatalf("errors: %+v rows %+v", p.Errors, p.Rows)
	}
	for i, w := range want {
		if !strings.HasPrefix(p.Errors[i].String(), w) {
			t.Errorf("error %d: %s, want %s", i, p.Errors[i], w)
		}
	}
	_, err = e.App.Admin.ApplyImport(bg, e.admin, req("slug,domain_rating\nquickbase,101\n"))
	wantCode(t, "apply with errors", err, ops.CodeInvalid)
	if n := e.count(`SELECT domain_rating FROM listings WHERE id = 1`); n != 55 {
		t.Fatalf("a failed import changed the rating: %d", n)
	}
	for csv, msg := range map[string]string{
		"name,domain_rating\nx,1\n":                      "slug or domain",
		"slug,rating\nquickbase,1\n":                     "domain_rating column",
		"slug,domain_rating\n":                           "no data rows",
		"slug,domain_rating\nquickbase,1\nquickbase,2\n": "already on line 2",
		"slug,domain_rating\n\"bad,1\n":                  "not valid CSV",
	} {
		p, err := e.App.Admin.PreviewImport(bg, e.admin, req(csv))
		if err != nil || len(p.Errors) == 0 || !strings.Contains(p.Errors[len(p.Errors)-1].Message, msg) {
			t.Errorf("%q: %+v %v, want %q", csv, p, err, msg)
		}
	}
	// Bounds: 0 and 100 pass; a domain finds the listing (www. ignored).
	p, err = e.App.Admin.PreviewImport(bg, e.admin, req("\ufeffDomain, Domain_Rating\nwww.tablely.example,100\nquickbase.example,0\n"))
	if err != nil || len(p.Errors) != 0 || len(p.Rows) != 2 || p.Rows[1].Old != "55" || p.Rows[1].New != "0" || p.Rows[0].Old != "" {
		t.Fatalf("preview: %+v %v", p, err)
	}
	if _, err := e.App.Admin.ApplyImport(bg, e.admin, req("domain,domain_rating\nwww.tablely.example,100\nquickbase.example,0\n")); err != nil {
		t.Fatal(err)
	}
	board := e.Do("GET", "/api/v1/leaderboards/domain-rating", nil).JSON()
	items := board["items"].([]any)
	first := items[0].(map[string]any)
	metric := fmt.Sprint(first)
	if first["listing"].(map[string]any)["slug"] != "tablely" || !strings.Contains(metric, "as_of:2026-11-15") ||
		!strings.Contains(metric, "source:Ahrefs export") {
		t.Fatalf("board: %v", board)
	}
	// The listing's profile names the imported source and date, not the default.
	dr := e.Do("GET", "/api/v1/listings/tablely", nil).JSON()["domain_rating"].(map[string]any)
	if dr["source"] != "Ahrefs export (Domain Rating, third-party estimate, 0-100), as of 2026-11-15" || dr["value"] != 100.0 {
		t.Fatalf("listing domain_rating after the import: %v", dr)
	}
	audit, _ := e.App.Admin.ListAudit(bg, e.admin, admin.AdminPage{})
	if audit.Total != 1 || audit.Items[0].Action != "import_domain_rating" {
		t.Fatalf("audit: %+v", audit)
	}
}

func TestImportRevenueCSV(t *testing.T) {
	e := newAdminEnv(t)
	r := admin.ImportRequest{Kind: admin.ImportRevenue, Source: "Stripe dashboards", AsOf: "2026-11-01",
		CSV: []byte("slug,mrr_cents,currency,verified\nquickbase,123456,eur,yes\ntablely,-5,USD,maybe\nrankrocket,100,EURO,\n")}
	p, err := e.App.Admin.PreviewImport(bg, e.admin, r)
	if err != nil || len(p.Errors) != 3 || p.Errors[0].Column != "mrr_cents" || p.Errors[1].Column != "verified" || p.Errors[2].Column != "currency" {
		t.Fatalf("preview: %+v %v", p, err)
	}
	r.CSV = []byte("slug,mrr_cents,currency,verified\nquickbase,123456,eur,yes\n")
	if _, err := e.App.Admin.ApplyImport(bg, e.admin, r); err != nil {
		t.Fatal(err)
	}
	board := e.Do("GET", "/api/v1/leaderboards/revenue", nil)
	if !strings.Contains(string(board.Body), `"as_of":"2026-11-01"`) || !strings.Contains(string(board.Body), `"source":"Stripe dashboards"`) ||
		!strings.Contains(string(board.Body), `"currency":"EUR"`) {
		t.Fatalf("revenue board: %s", board.Body)
	}
}

func TestOutboxListAndRetry(t *testing.T) {
	e := newAdminEnv(t)
	e.exec(`INSERT INTO outbox(id, kind, to_addr, subject, body, status, attempts, last_error, next_attempt_at, created_at) VALUES
		(1,'k','a@example.com','s','b','failed',8,'smtp down','2026-11-18T00:00:00Z','2026-11-17T00:00:00Z'),
		(2,'k','b@example.com','s','b','pending',1,'timeout','2026-11-19T00:00:00Z','2026-11-17T00:00:00Z'),
		(3,'k','c@example.com','s','b','sent',1,'','2026-11-17T00:00:00Z','2026-11-17T00:00:00Z')`)
	failed, err := e.App.Admin.ListOutbox(bg, e.admin, "failed", admin.AdminPage{})
	if err != nil || failed.Total != 1 || failed.Items[0].LastError != "smtp down" {
		t.Fatalf("failed: %+v %v", failed, err)
	}
	_, err = e.App.Admin.ListOutbox(bg, e.admin, "all", admin.AdminPage{})
	wantCode(t, "status", err, ops.CodeInvalid)
	if err := e.App.Admin.RetryOutbox(bg, e.admin, 1); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "retry sent", e.App.Admin.RetryOutbox(bg, e.admin, 3), ops.CodeInvalid)
	wantCode(t, "retry unknown", e.App.Admin.RetryOutbox(bg, e.admin, 4), ops.CodeNotFound)
	pending, _ := e.App.Admin.ListOutbox(bg, e.admin, "pending", admin.AdminPage{})
	if pending.Total != 2 || pending.Items[0].ID != 1 || pending.Items[0].Attempts != 0 {
		t.Fatalf("pending: %+v", pending)
	}
	// The worker delivers it now.
	if err := e.App.DeliverOutbox(bg); err != nil {
		t.Fatal(err)
	}
	if n := e.count(`SELECT count(*) FROM outbox WHERE id = 1 AND status = 'sent'`); n != 1 {
		t.Fatal("retried email not delivered")
	}
}

func TestSettingsBounds(t *testing.T) {
	e := newAdminEnv(t)
	ok := admin.SiteSettings{SiteName: strings.Repeat("n", 80), SiteDescription: strings.Repeat("d", 300), FreeQueueWeeks: 52, FreeWeeklyCapacity: 1000}
	for name, s := range map[string]admin.SiteSettings{
		"name 0":   {SiteName: " ", FreeQueueWeeks: 1, FreeWeeklyCapacity: 1},
		"name 81":  {SiteName: strings.Repeat("n", 81), FreeQueueWeeks: 1, FreeWeeklyCapacity: 1},
		"desc 301": {SiteName: "x", SiteDescription: strings.Repeat("d", 301), FreeQueueWeeks: 1, FreeWeeklyCapacity: 1},
		"weeks 53": {SiteName: "x", FreeQueueWeeks: 53, FreeWeeklyCapacity: 1},
		"weeks -1": {SiteName: "x", FreeQueueWeeks: -1, FreeWeeklyCapacity: 1},
		"cap 0":    {SiteName: "x", FreeQueueWeeks: 1, FreeWeeklyCapacity: 0},
		"cap 1001": {SiteName: "x", FreeQueueWeeks: 1, FreeWeeklyCapacity: 1001},
	} {
		wantCode(t, name, e.App.Admin.UpdateSettings(bg, e.admin, s), ops.CodeInvalid)
	}
	if err := e.App.Admin.UpdateSettings(bg, e.admin, ok); err != nil {
		t.Fatal(err)
	}
	if got := e.App.Admin.Settings(bg); got != ok {
		t.Fatalf("settings: %+v", got)
	}
	if r := e.Do("GET", "/api/v1/site", nil); !strings.Contains(string(r.Body), strings.Repeat("n", 80)) {
		t.Fatalf("API index does not show the site name: %d %.200s", r.Status, r.Body)
	}
	if err := e.App.Admin.UpdateSettings(bg, e.admin, admin.SiteSettings{SiteName: "x", FreeQueueWeeks: 0, FreeWeeklyCapacity: 1}); err != nil {
		t.Fatal(err)
	}
	a, _ := e.App.Admin.ListAudit(bg, e.admin, admin.AdminPage{})
	if a.Total != 2 || !strings.Contains(a.Items[0].Before, `"free_queue_weeks":52`) {
		t.Fatalf("audit: %+v", a.Items)
	}
}

func TestFounderAPIKeys(t *testing.T) {
	e := newAdminEnv(t)
	_, _, err := e.App.People.CreateUserAPIKey(bg, 1, strings.Repeat("k", 101), []string{"account:read"})
	wantCode(t, "name 101", err, ops.CodeInvalid)
	_, _, err = e.App.People.CreateUserAPIKey(bg, 1, "k", []string{"admin"})
	wantCode(t, "unknown scope", err, ops.CodeInvalid)
	_, _, err = e.App.People.CreateUserAPIKey(bg, 1, "k", nil)
	wantCode(t, "no scope", err, ops.CodeInvalid)
	secret, k, err := e.App.People.CreateUserAPIKey(bg, 1, strings.Repeat("k", 100), []string{"account:read"})
	if err != nil || !strings.HasPrefix(secret, "ldk_") || k.Prefix != secret[:12] || k.Email != "owner@example.com" {
		t.Fatalf("create: %v %+v", err, k)
	}
	if r := e.Do("GET", "/api/v1/me", nil, apitest.Bearer(secret)...); r.Status != 200 || r.JSON()["user"].(map[string]any)["email"] != "owner@example.com" {
		t.Fatalf("key against the API: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{}, apitest.Bearer(secret)...); r.Status != 403 {
		t.Fatalf("scope not granted: %d", r.Status)
	}
	// Last use is recorded off the request path (touchAPIKey), so wait for
	// it, bounded, rather than racing the background write.
	var keys []people.APIKey
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		keys, _ = e.App.People.UserAPIKeys(bg, 1)
		if len(keys) == 2 && keys[0].LastUsedAt != "" || time.Now().After(deadline) {
			break
		}
	}
	if len(keys) != 2 || keys[0].ID != k.ID || keys[0].LastUsedAt == "" {
		t.Fatalf("keys (newest first, last used set): %+v", keys)
	}
	if others, _ := e.App.People.UserAPIKeys(bg, 2); len(others) != 1 || others[0].UserID != 2 {
		t.Fatalf("other's keys: %+v", others)
	}
	wantCode(t, "revoke another's key", e.App.People.RevokeUserAPIKey(bg, 2, k.ID), ops.CodeNotFound)
	if err := e.App.People.RevokeUserAPIKey(bg, 1, k.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "revoke twice", e.App.People.RevokeUserAPIKey(bg, 1, k.ID), ops.CodeInvalid)
	if r := e.Do("GET", "/api/v1/me", nil, apitest.Bearer(secret)...); r.Status != 401 {
		t.Fatalf("revoked key: %d", r.Status)
	}
	// At most 25 active keys (owner has 1 from the env).
	for i := 0; i < 24; i++ {
		if _, _, err := e.App.People.CreateUserAPIKey(bg, 1, "k", []string{"account:read"}); err != nil {
			t.Fatal(i, err)
		}
	}
	_, _, err = e.App.People.CreateUserAPIKey(bg, 1, "k", []string{"account:read"})
	wantCode(t, "26th key", err, ops.CodeInvalid)
}

func TestFounderOAuthGrants(t *testing.T) {
	e := newAdminEnv(t)
	e.exec(`INSERT INTO oauth_clients(client_id, client_name, redirect_uris, grant_types, response_types, scope, created_at)
		VALUES ('c1', 'Claude Desktop', '[]', '[]', '[]', 'account:read', '2026-11-01T00:00:00Z')`)
	e.exec(`INSERT INTO oauth_grants(id, client_id, user_id, scope, resource, created_at) VALUES
		(1, 'c1', 1, 'account:read listings:write', ?, '2026-11-01T00:00:00Z'),
		(2, 'https://client.example/meta.json', 2, 'account:read', ?, '2026-11-01T00:00:00Z')`, e.App.MCPURL(context.Background()), e.App.MCPURL(context.Background()))
	token := "lda_testtokenforgrantone"
	e.exec(`INSERT INTO oauth_tokens(hash, kind, grant_id, scope, created_at, expires_at) VALUES (?, 'access', 1, 'account:read', '2026-11-18T00:00:00Z', '2026-11-19T00:00:00Z')`,
		kernel.HashSecret(token))
	grants, err := e.App.People.UserOAuthGrants(bg, 1)
	if err != nil || len(grants) != 1 || grants[0].ClientName != "Claude Desktop" || len(grants[0].Scopes) != 2 || grants[0].LastUsedAt == "" {
		t.Fatalf("grants: %+v %v", grants, err)
	}
	if g, _ := e.App.People.UserOAuthGrants(bg, 2); len(g) != 1 || g[0].ClientName != "https://client.example/meta.json" {
		t.Fatalf("other's grants: %+v", g)
	}
	wantCode(t, "revoke another's grant", e.App.People.RevokeOAuthGrant(bg, 2, 1), ops.CodeNotFound)
	if err := e.App.People.RevokeOAuthGrant(bg, 1, 1); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "revoke twice", e.App.People.RevokeOAuthGrant(bg, 1, 1), ops.CodeInvalid)
	if n := e.count(`SELECT count(*) FROM oauth_tokens WHERE grant_id = 1 AND revoked_at IS NULL`); n != 0 {
		t.Fatalf("%d tokens still active", n)
	}
	if r := e.Do("GET", "/api/v1/me", nil, apitest.Bearer(token)...); r.Status != 401 {
		t.Fatalf("token of a revoked grant: %d", r.Status)
	}
	if g, _ := e.App.People.UserOAuthGrants(bg, 1); g[0].RevokedAt == "" {
		t.Fatalf("revoked grant listed: %+v", g)
	}
}
