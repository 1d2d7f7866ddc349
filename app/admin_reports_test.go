package app_test

import (
	"testing"

	"launchdir/app/admin"
	"launchdir/ops"
)

func TestReportsQueue(t *testing.T) {
	e := newAdminEnv(t)
	e.exec(`INSERT INTO reviews(id, listing_id, author_name, rating, body, genuine, created_at) VALUES (60, 1, 'X', 1, 'scam!!', 1, '2026-11-17T00:00:00Z')`)
	e.exec(`INSERT INTO reports(id, user_id, kind, listing_id, review_id, reason, created_at) VALUES
		(1, 3, 'listing', 2, NULL, 'spam listing', '2026-11-17T01:00:00Z'),
		(2, 3, 'review', 1, 60, 'fake review', '2026-11-17T02:00:00Z'),
		(3, 2, 'listing', 1, NULL, 'I just dislike it', '2026-11-17T03:00:00Z')`)
	q, err := e.App.Admin.ListReports(bg, e.admin, "", admin.AdminPage{})
	if err != nil || q.Total != 3 || q.Items[0].ID != 1 || q.Items[1].ReviewText != "scam!!" || q.Items[0].ReporterEmail != "fan@example.com" {
		t.Fatalf("queue: %+v %v", q, err)
	}
	_, err = e.App.Admin.ListReports(bg, e.admin, "all", admin.AdminPage{})
	wantCode(t, "status", err, ops.CodeInvalid)
	_, err = e.App.Admin.ListReports(bg, 1, "", admin.AdminPage{})
	wantCode(t, "non-admin", err, ops.CodeNotFound)
	// Acting resolves the reports it answers, in the same transaction.
	if err := e.App.Admin.ModerateListing(bg, e.admin, 2, "rejected", "spam"); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Admin.HideReview(bg, e.admin, 60, "fake"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "dismiss non-admin", e.App.Admin.DismissReport(bg, 2, 3), ops.CodeNotFound)
	if err := e.App.Admin.DismissReport(bg, e.admin, 3); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "dismiss twice", e.App.Admin.DismissReport(bg, e.admin, 3), ops.CodeInvalid)
	wantCode(t, "dismiss unknown", e.App.Admin.DismissReport(bg, e.admin, 99), ops.CodeNotFound)
	if open, _ := e.App.Admin.ListReports(bg, e.admin, "open", admin.AdminPage{}); open.Total != 0 {
		t.Fatalf("open: %+v", open)
	}
	if res, _ := e.App.Admin.ListReports(bg, e.admin, "resolved", admin.AdminPage{}); res.Total != 2 {
		t.Fatalf("resolved: %+v", res)
	}
	if dis, _ := e.App.Admin.ListReports(bg, e.admin, "dismissed", admin.AdminPage{}); dis.Total != 1 || dis.Items[0].ID != 3 {
		t.Fatalf("dismissed: %+v", dis)
	}
}

// A banned account's counted votes stop counting; uncounted ones change nothing.
func TestBanUncountsOnlyCountedVotes(t *testing.T) {
	e := newAdminEnv(t)
	e.exec(`INSERT INTO votes(listing_id, voter, week, created_at, counted) VALUES (1, '3', '2026-11-16', '2026-11-17T00:00:00Z', 1),
		(3, '3', '2026-11-16', '2026-11-17T00:00:00Z', 0)`)
	v1, v3 := e.count(`SELECT votes FROM listings WHERE id = 1`), e.count(`SELECT votes FROM listings WHERE id = 3`)
	if err := e.App.Admin.BanUser(bg, e.admin, 3, "ring"); err != nil {
		t.Fatal(err)
	}
	if a, b := e.count(`SELECT votes FROM listings WHERE id = 1`), e.count(`SELECT votes FROM listings WHERE id = 3`); a != v1-1 || b != v3 {
		t.Fatalf("votes %d/%d, want %d/%d", a, b, v1-1, v3)
	}
	if n := e.count(`SELECT count(*) FROM votes WHERE voter = '3' AND counted = 1`); n != 0 {
		t.Fatalf("%d votes still counted", n)
	}
}
