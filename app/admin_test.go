package app_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/admin"
	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/ops"
)

var bg = context.Background()

type adminEnv struct {
	*apitest.Env
	admin int64    // admin@example.com
	owner []string // owner@example.com (user 1) bearer
	other []string // other@example.com (user 2) bearer
}

func newAdminEnv(t *testing.T) *adminEnv {
	t.Helper()
	e := apitest.New(t, apitest.Options{Fixture: true})
	u, err := e.App.People.CreateUser(bg, "admin@example.com", "Ada Admin", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.Admin.SetAdmin(bg, "admin@example.com", true); err != nil {
		t.Fatal(err)
	}
	return &adminEnv{Env: e, admin: u.ID, owner: apitest.Bearer(e.APIKey("owner@example.com")),
		other: apitest.Bearer(e.APIKey("other@example.com"))}
}

// code returns the ops error code of err ("" for nil).
func code(err error) ops.Code {
	if err == nil {
		return ""
	}
	var e *ops.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return "internal: " + ops.Code(err.Error())
}

func wantCode(t *testing.T, what string, err error, want ops.Code) {
	t.Helper()
	if got := code(err); got != want {
		t.Fatalf("%s: got %q (%v), want %q", what, got, err, want)
	}
}

func (e *adminEnv) count(q string, args ...any) int {
	e.T.Helper()
	var n int
	if err := e.DB.R.QueryRow(q, args...).Scan(&n); err != nil {
		e.T.Fatal(err)
	}
	return n
}

func (e *adminEnv) exec(q string, args ...any) {
	e.T.Helper()
	if _, err := e.DB.W.Exec(q, args...); err != nil {
		e.T.Fatal(err)
	}
}

// Every admin function refuses a non-admin (and an unknown user) with 404,
// and writes nothing.
func TestAdminFunctionsAreNotFoundForNonAdmins(t *testing.T) {
	e := newAdminEnv(t)
	a := e.App
	p := admin.AdminPage{}
	calls := map[string]func(id int64) error{
		"ListAudit":       func(id int64) error { _, err := a.Admin.ListAudit(bg, id, p); return err },
		"ListRevisions":   func(id int64) error { _, err := a.Admin.ListRevisions(bg, id, 0, p); return err },
		"GetRevision":     func(id int64) error { _, err := a.Admin.GetRevision(bg, id, 1); return err },
		"RevertRevision":  func(id int64) error { _, err := a.Admin.RevertRevision(bg, id, 1); return err },
		"ModerateListing": func(id int64) error { return a.Admin.ModerateListing(bg, id, 1, "rejected", "spam") },
		"ListReviews":     func(id int64) error { _, err := a.Admin.ListReviews(bg, id, 0, p); return err },
		"HideReview":      func(id int64) error { return a.Admin.HideReview(bg, id, 1, "spam") },
		"BanUser":         func(id int64) error { return a.Admin.BanUser(bg, id, 3, "spam") },
		"ListAccounts":    func(id int64) error { _, err := a.Admin.ListAccounts(bg, id, "", p); return err },
		"LaunchWeeks":     func(id int64) error { _, err := a.Admin.LaunchWeeks(bg, id, 4); return err },
		"SetWeekCapacity": func(id int64) error { return a.Admin.SetWeekCapacity(bg, id, "2026-12-14", 3) },
		"MoveListingWeek": func(id int64) error { _, err := a.Admin.MoveListingWeek(bg, id, 5, "2026-12-21"); return err },
		"FreeQueue":       func(id int64) error { _, err := a.Admin.FreeQueue(bg, id, p); return err },
		"AdminSetPrice":   func(id int64) error { return a.Admin.AdminSetPrice(bg, id, "launch", 100, nil) },
		"AdminCreatePromo": func(id int64) error {
			return a.Admin.AdminCreatePromo(bg, id, commerce.PromoCode{Code: "X", Kind: "percent", Value: 5})
		},
		"SetPromoPaused": func(id int64) error { return a.Admin.SetPromoPaused(bg, id, "X", true) },
		"PromoCodes":     func(id int64) error { _, err := a.Admin.PromoCodes(bg, id); return err },
		"AdminOrders":    func(id int64) error { _, err := a.Admin.AdminOrders(bg, id, "", p); return err },
		"AdminRefund":    func(id int64) error { return a.Admin.AdminRefund(bg, id, "LD-2026-000001", "") },
		"PreviewImport": func(id int64) error {
			_, err := a.Admin.PreviewImport(bg, id, admin.ImportRequest{Kind: "domain_rating", Source: "s", AsOf: "2026-11-01", CSV: []byte("slug,domain_rating\nquickbase,1\n")})
			return err
		},
		"ApplyImport": func(id int64) error {
			_, err := a.Admin.ApplyImport(bg, id, admin.ImportRequest{Kind: "domain_rating", Source: "s", AsOf: "2026-11-01", CSV: []byte("slug,domain_rating\nquickbase,1\n")})
			return err
		},
		"ListReports":   func(id int64) error { _, err := a.Admin.ListReports(bg, id, "", p); return err },
		"DismissReport": func(id int64) error { return a.Admin.DismissReport(bg, id, 1) },
		"ListOutbox":    func(id int64) error { _, err := a.Admin.ListOutbox(bg, id, "pending", p); return err },
		"RetryOutbox":   func(id int64) error { return a.Admin.RetryOutbox(bg, id, 1) },
		"UpdateSettings": func(id int64) error {
			return a.Admin.UpdateSettings(bg, id, admin.SiteSettings{SiteName: "X", FreeQueueWeeks: 1, FreeWeeklyCapacity: 1})
		},
	}
	for name, call := range calls {
		for _, uid := range []int64{1, 2, 3, 9999} {
			if err := call(uid); code(err) != ops.CodeNotFound {
				t.Errorf("%s as user %d: %v, want not_found", name, uid, err)
			}
		}
	}
	if n := e.count(`SELECT count(*) FROM admin_audit`); n != 0 {
		t.Fatalf("non-admin calls wrote %d audit rows", n)
	}
	if a.Admin.IsAdmin(bg, 1) || !a.Admin.IsAdmin(bg, e.admin) {
		t.Fatal("IsAdmin wrong")
	}
}

func TestAdminRevertsOwnerEditAndAPIShowsIt(t *testing.T) {
	e := newAdminEnv(t)
	before := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]
	r := e.Do("PATCH", "/api/v1/me/listings/1", map[string]any{"fields": map[string]any{"tagline": "Edited by the owner"},
		"faqs": []any{map[string]any{"question": "New?", "answer": "Yes."}}}, e.owner...)
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	e.Do("PATCH", "/api/v1/me/listings/2", map[string]any{"fields": map[string]any{"tagline": "Other edit"}}, e.other...)

	all, err := e.App.Admin.ListRevisions(bg, e.admin, 0, admin.AdminPage{})
	if err != nil || all.Total != 2 || all.Items[0].ListingID != 2 {
		t.Fatalf("all revisions (newest first): %+v %v", all, err)
	}
	revs, err := e.App.Admin.ListRevisions(bg, e.admin, 1, admin.AdminPage{})
	if err != nil || revs.Total != 1 {
		t.Fatalf("listing 1 revisions: %+v %v", revs, err)
	}
	rev := revs.Items[0]
	if !rev.Revertible || rev.UserEmail != "owner@example.com" || rev.ListingSlug != "quickbase" {
		t.Fatalf("revision: %+v", rev)
	}
	fields := map[string]admin.FieldChange{}
	for _, c := range rev.Changes {
		fields[c.Field] = c
	}
	if c := fields["tagline"]; c.Before != fmt.Sprintf("%q", before) || c.After != `"Edited by the owner"` {
		t.Fatalf("tagline diff: %+v (changes %+v)", c, rev.Changes)
	}
	if _, ok := fields["faqs"]; !ok || len(rev.Changes) != 2 {
		t.Fatalf("changes: %+v", rev.Changes)
	}
	if got := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]; got != "Edited by the owner" {
		t.Fatalf("edit not public: %v", got)
	}

	nr, err := e.App.Admin.RevertRevision(bg, e.admin, rev.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(nr.Operation, "admin_revert:") || nr.UserEmail != "admin@example.com" || nr.ListingID != 1 {
		t.Fatalf("revert revision: %+v", nr)
	}
	pub := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()
	if pub["tagline"] != before {
		t.Fatalf("API after revert: tagline %v, want %v", pub["tagline"], before)
	}
	if faqs, _ := pub["faqs"].([]any); len(faqs) != 2 {
		t.Fatalf("faqs after revert: %v", pub["faqs"])
	}
	// The search index follows (FTS triggers in the same transaction).
	if s := e.Do("GET", "/api/v1/listings?q=Edited", nil).JSON(); s["total"] != float64(0) {
		t.Fatalf("search still finds the reverted text: %v", s["total"])
	}
	audit, _ := e.App.Admin.ListAudit(bg, e.admin, admin.AdminPage{})
	if audit.Total != 1 || audit.Items[0].Action != "revert_revision" || audit.Items[0].AdminEmail != "admin@example.com" ||
		!strings.Contains(audit.Items[0].Before, "Edited by the owner") {
		t.Fatalf("audit: %+v", audit)
	}
	// Reverting the revert puts the owner's edit back.
	if _, err := e.App.Admin.RevertRevision(bg, e.admin, nr.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["tagline"]; got != "Edited by the owner" {
		t.Fatalf("revert of revert: %v", got)
	}
	_, err = e.App.Admin.RevertRevision(bg, e.admin, 9999)
	wantCode(t, "unknown revision", err, ops.CodeNotFound)
	_, err = e.App.Admin.ListRevisions(bg, e.admin, 0, admin.AdminPage{Page: 1001})
	wantCode(t, "page 1001", err, ops.CodeInvalid)
	_, err = e.App.Admin.ListRevisions(bg, e.admin, 0, admin.AdminPage{PerPage: 101})
	wantCode(t, "per_page 101", err, ops.CodeInvalid)
	if p, err := e.App.Admin.ListRevisions(bg, e.admin, 0, admin.AdminPage{Page: 1000, PerPage: 100}); err != nil || len(p.Items) != 0 {
		t.Fatalf("page 1000: %v %v", p, err)
	}
}

func TestRevertStoryMilestoneAndUpdate(t *testing.T) {
	e := newAdminEnv(t)
	for _, req := range []struct{ method, path string }{
		{"PUT", "/api/v1/me/listings/1/story"}, {"POST", "/api/v1/me/listings/1/milestones"}, {"POST", "/api/v1/me/listings/1/updates"},
	} {
		body := map[string]any{"title": "T1", "story": "Once", "date": "2026-01-01", "body": "B"}
		if req.method == "PUT" {
			delete(body, "date")
			delete(body, "body")
		} else if strings.HasSuffix(req.path, "milestones") {
			body = map[string]any{"title": "M1", "date": "2026-01-01"}
		} else {
			body = map[string]any{"title": "U1", "body": "B"}
		}
		if r := e.Do(req.method, req.path, body, e.owner...); r.Status/100 != 2 {
			t.Fatalf("%s %s: %d %s", req.method, req.path, r.Status, r.Body)
		}
	}
	revs, _ := e.App.Admin.ListRevisions(bg, e.admin, 1, admin.AdminPage{})
	if revs.Total != 3 {
		t.Fatalf("revisions: %+v", revs)
	}
	for _, r := range revs.Items {
		if _, err := e.App.Admin.RevertRevision(bg, e.admin, r.ID); err != nil {
			t.Fatalf("revert %s: %v", r.Entity, err)
		}
	}
	if n := e.count(`SELECT count(*) FROM stories WHERE listing_id = 1 AND title = 'Why we built QuickBase'`); n != 1 {
		t.Fatalf("the fixture's story is not back: %d", n)
	}
	if n := e.count(`SELECT count(*) FROM milestones WHERE listing_id = 1 AND title = 'M1'`); n != 0 {
		t.Fatalf("milestone still there: %d", n)
	}
	if n := e.count(`SELECT count(*) FROM listing_updates WHERE title = 'U1'`); n != 0 {
		t.Fatalf("update still there: %d", n)
	}
	// Reverting the same update twice: it is already gone.
	_, err := e.App.Admin.RevertRevision(bg, e.admin, revs.Items[0].ID)
	wantCode(t, "second revert of a posted update", err, ops.CodeConflict)
	// A status change cannot be reverted.
	e.exec(`INSERT INTO revisions(entity, entity_id, listing_id, user_id, operation, before, after, created_at)
		VALUES('listing_status', 6, 6, 1, 'choose_free_listing', '{"status":"draft"}', '{"status":"scheduled"}', '2026-11-18T00:00:00Z')`)
	var id int64
	e.DB.R.QueryRow(`SELECT max(id) FROM revisions`).Scan(&id)
	_, err = e.App.Admin.RevertRevision(bg, e.admin, id)
	wantCode(t, "status revert", err, ops.CodeInvalid)
}

func TestModerateListingWithReasonTheOwnerSees(t *testing.T) {
	e := newAdminEnv(t)
	wantCode(t, "bad status", e.App.Admin.ModerateListing(bg, e.admin, 2, "live", "x"), ops.CodeInvalid)
	wantCode(t, "empty reason", e.App.Admin.ModerateListing(bg, e.admin, 2, "rejected", "  "), ops.CodeInvalid)
	wantCode(t, "501 chars", e.App.Admin.ModerateListing(bg, e.admin, 2, "rejected", strings.Repeat("é", 501)), ops.CodeInvalid)
	wantCode(t, "unknown listing", e.App.Admin.ModerateListing(bg, e.admin, 999, "rejected", "x"), ops.CodeNotFound)
	liveBefore := e.count(`SELECT live_count FROM categories WHERE slug = 'seo'`)
	reason := strings.Repeat("é", 499) + "!"
	if err := e.App.Admin.ModerateListing(bg, e.admin, 2, "rejected", reason); err != nil {
		t.Fatal(err)
	}
	if r := e.Do("GET", "/api/v1/listings/rankrocket", nil); r.Status != 404 {
		t.Fatalf("rejected listing public: %d", r.Status)
	}
	if n := e.count(`SELECT live_count FROM categories WHERE slug = 'seo'`); n != liveBefore-1 {
		t.Fatalf("category live count %d, was %d", n, liveBefore)
	}
	mine := e.Do("GET", "/api/v1/me/listings/2", nil, e.other...).JSON()
	if mine["status"] != "rejected" || mine["moderation_reason"] != reason {
		t.Fatalf("owner view: %v %v", mine["status"], mine["moderation_reason"])
	}
	if n := e.count(`SELECT count(*) FROM outbox WHERE to_addr = 'other@example.com' AND kind = 'listing_rejected' AND body LIKE '%' || ? || '%'`, reason); n != 1 {
		t.Fatalf("owner email: %d", n)
	}
	wantCode(t, "again", e.App.Admin.ModerateListing(bg, e.admin, 2, "rejected", "x"), ops.CodeInvalid)
	if err := e.App.Admin.ModerateListing(bg, e.admin, 2, "archived", "withdrawn"); err != nil {
		t.Fatal(err)
	}
	a, _ := e.App.Admin.ListAudit(bg, e.admin, admin.AdminPage{})
	if a.Total != 2 || a.Items[0].Action != "moderate_listing" || !strings.Contains(a.Items[0].Before, "rejected") {
		t.Fatalf("audit: %+v", a.Items)
	}
}

func TestHideReviewAndBanAccount(t *testing.T) {
	e := newAdminEnv(t)
	e.exec(`INSERT INTO reviews(id, listing_id, author_name, rating, body, genuine, created_at) VALUES (50, 1, 'Fiona', 5, 'Great', 1, '2026-11-17T00:00:00Z')`)
	e.exec(`UPDATE listings SET rating_sum = rating_sum + 5, rating_count = rating_count + 1 WHERE id = 1`)
	rating := func() float64 {
		return e.Do("GET", "/api/v1/listings/quickbase", nil).JSON()["community_rating"].(map[string]any)["count"].(float64)
	}
	n0 := rating()
	wantCode(t, "no reason", e.App.Admin.HideReview(bg, e.admin, 50, ""), ops.CodeInvalid)
	wantCode(t, "unknown", e.App.Admin.HideReview(bg, e.admin, 51, "x"), ops.CodeNotFound)
	if err := e.App.Admin.HideReview(bg, e.admin, 50, "fake"); err != nil {
		t.Fatal(err)
	}
	if rating() != n0-1 {
		t.Fatalf("rating count %v, want %v", rating(), n0-1)
	}
	wantCode(t, "hide twice", e.App.Admin.HideReview(bg, e.admin, 50, "x"), ops.CodeInvalid)
	rv, _ := e.App.Admin.ListReviews(bg, e.admin, 1, admin.AdminPage{})
	if rv.Total != 4 || rv.Items[0].ID != 50 || rv.Items[0].HiddenReason != "fake" || rv.Items[0].Genuine {
		t.Fatalf("reviews: %+v", rv)
	}

	// User 3 voted for listing 1 this week: the counters include it.
	e.exec(`INSERT INTO votes(listing_id, voter, week, created_at) VALUES (1, '3', '2026-11-16', '2026-11-17T00:00:00Z')`)
	e.exec(`UPDATE listings SET votes = votes + 1 WHERE id = 1`)
	e.exec(`INSERT INTO weekly_votes(week, listing_id, votes) VALUES ('2026-11-16', 1, 1) ON CONFLICT DO UPDATE SET votes = votes + 1`)
	votes := func() (int, int) {
		return e.count(`SELECT votes FROM listings WHERE id = 1`), e.count(`SELECT votes FROM weekly_votes WHERE week = '2026-11-16' AND listing_id = 1`)
	}
	v0, w0 := votes()
	wantCode(t, "ban admin", e.App.Admin.BanUser(bg, e.admin, e.admin, "x"), ops.CodeInvalid)
	wantCode(t, "ban unknown", e.App.Admin.BanUser(bg, e.admin, 999, "x"), ops.CodeNotFound)
	if err := e.App.Admin.BanUser(bg, e.admin, 3, "vote ring"); err != nil {
		t.Fatal(err)
	}
	if v, w := votes(); v != v0-1 || w != w0-1 {
		t.Fatalf("votes after ban: %d/%d, want %d/%d", v, w, v0-1, w0-1)
	}
	if !e.App.Admin.IsBanned(bg, 3) || e.App.Admin.IsBanned(bg, 2) {
		t.Fatal("IsBanned")
	}
	wantCode(t, "ban twice", e.App.Admin.BanUser(bg, e.admin, 3, "x"), ops.CodeInvalid)
	acc, _ := e.App.Admin.ListAccounts(bg, e.admin, "fan@", admin.AdminPage{})
	if acc.Total != 1 || acc.Items[0].BanReason != "vote ring" {
		t.Fatalf("accounts: %+v", acc)
	}
	if acc, _ := e.App.Admin.ListAccounts(bg, e.admin, "%", admin.AdminPage{}); acc.Total != 0 {
		t.Fatalf("%% is matched literally: %+v", acc)
	}
}

func TestLaunchWeeksCapacityMoveAndQueue(t *testing.T) {
	e := newAdminEnv(t)
	for _, bad := range []string{"2026-12-15", "2026-11-09", "14-12-2026", "2036-12-15"} {
		wantCode(t, "week "+bad, e.App.Admin.SetWeekCapacity(bg, e.admin, bad, 1), ops.CodeInvalid)
	}
	wantCode(t, "capacity 1001", e.App.Admin.SetWeekCapacity(bg, e.admin, "2026-12-14", 1001), ops.CodeInvalid)
	// This week (2026-11-16) is allowed; free_queue_weeks = 4 puts the first free week at 2026-12-14.
	if err := e.App.Admin.SetWeekCapacity(bg, e.admin, "2026-11-16", 1000); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Admin.SetWeekCapacity(bg, e.admin, "2026-12-14", 0); err != nil {
		t.Fatal(err)
	}
	weeks, err := e.App.Admin.LaunchWeeks(bg, e.admin, 6)
	if err != nil || len(weeks) != 6 || weeks[0].Week != "2026-11-16" || weeks[0].FreeCapacity != 1000 || !weeks[4].Overridden ||
		weeks[4].FreeCapacity != 0 || weeks[4].FreeBooked != 1 || weeks[1].FreeCapacity != 2 {
		t.Fatalf("weeks: %+v %v", weeks, err)
	}
	_, err = e.App.Admin.LaunchWeeks(bg, e.admin, 53)
	wantCode(t, "53 weeks", err, ops.CodeInvalid)

	// The free queue orders by week: listing 5 (2026-12-14) first.
	e.exec(`UPDATE listings SET status = 'scheduled', launch_week = '2026-12-28', plan = 'free' WHERE id = 6`)
	q, err := e.App.Admin.FreeQueue(bg, e.admin, admin.AdminPage{})
	if err != nil || q.Total != 2 || q.Items[0].ListingID != 5 || q.Items[1].ListingID != 6 || q.Items[1].Position != 2 {
		t.Fatalf("queue: %+v %v", q, err)
	}
	// Move 6 before 5.
	plan, err := e.App.Admin.MoveListingWeek(bg, e.admin, 6, "2026-12-07")
	if err != nil || plan.Week != "2026-12-07" || plan.FreeBooked != 1 {
		t.Fatalf("move: %+v %v", plan, err)
	}
	q, _ = e.App.Admin.FreeQueue(bg, e.admin, admin.AdminPage{})
	if q.Items[0].ListingID != 6 {
		t.Fatalf("queue after move: %+v", q.Items)
	}
	if pub := e.Do("GET", "/api/v1/launches/weeks/2026-12-07", nil); pub.Status != 200 || !strings.Contains(string(pub.Body), "secretdraft") {
		t.Fatalf("week page: %d %s", pub.Status, pub.Body)
	}
	_, err = e.App.Admin.MoveListingWeek(bg, e.admin, 1, "2026-12-07")
	wantCode(t, "move live", err, ops.CodeInvalid)
	_, err = e.App.Admin.MoveListingWeek(bg, e.admin, 6, "2026-12-07")
	wantCode(t, "same week", err, ops.CodeInvalid)
	_, err = e.App.Admin.MoveListingWeek(bg, e.admin, 999, "2026-12-07")
	wantCode(t, "unknown listing", err, ops.CodeNotFound)
	// Removing the override: the week takes the default again.
	if err := e.App.Admin.SetWeekCapacity(bg, e.admin, "2026-12-14", -1); err != nil {
		t.Fatal(err)
	}
	weeks, _ = e.App.Admin.LaunchWeeks(bg, e.admin, 5)
	if weeks[4].Overridden || weeks[4].FreeCapacity != 2 {
		t.Fatalf("override removed: %+v", weeks[4])
	}
}

// backlinkWeb answers every homepage with a link to its listing page.
type backlinkWeb struct{ a *app.App }

func (w backlinkWeb) FetchHTML(_ context.Context, url string) (string, error) {
	return `<a href="` + w.a.Cfg.BaseURL + `/listings/tablely">on launchdir</a>`, nil
}

// choose_free_listing skips a week whose own capacity is full.
func TestFreeListingSkipsAFullWeek(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) {
		a.SetExternals(kernel.Externals{Fetcher: backlinkWeb{a}})
	}})
	u, _ := e.App.People.CreateUser(bg, "admin@example.com", "", "")
	e.App.Admin.SetAdmin(bg, "admin@example.com", true)
	owner := apitest.Bearer(e.APIKey("owner@example.com"))
	// Listing 5 already holds the first free week (2026-12-14); capacity 1 fills it.
	if err := e.App.Admin.SetWeekCapacity(bg, u.ID, "2026-12-14", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.W.Exec(`UPDATE listings SET status = 'draft', plan = 'none', launch_week = NULL WHERE id = 3`); err != nil {
		t.Fatal(err)
	}
	r := e.Do("POST", "/api/v1/me/listings/3/free", nil, owner...)
	if r.Status != 200 || r.JSON()["launch_week"] != "2026-12-21" {
		t.Fatalf("free listing: %d %s", r.Status, r.Body)
	}
}
