package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"launchdir/apitest"
	"launchdir/app"
	"launchdir/app/admin"
	"launchdir/app/conversation"
	"launchdir/app/kernel"
	"launchdir/app/people"
	"launchdir/ops"
)

// convEnv is the fixture with verified commenters made directly in SQL
// (no bcrypt: the rate-limit tests need dozens).
type convEnv struct {
	*adminEnv
	t *testing.T
}

func newConvEnv(t *testing.T) *convEnv {
	e := &convEnv{adminEnv: newAdminEnv(t), t: t}
	// The fixture's owner (user 1) verifies their email; fan (3) too.
	e.exec(`UPDATE users SET verified_at = '2026-01-02T00:00:00Z' WHERE id IN (1, 2, 3)`)
	return e
}

func (e *convEnv) exec(q string, args ...any) {
	e.t.Helper()
	if _, err := e.DB.W.Exec(q, args...); err != nil {
		e.t.Fatal(q, err)
	}
}

func (e *convEnv) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.DB.R.QueryRow(q, args...).Scan(&n); err != nil {
		e.t.Fatal(q, err)
	}
	return n
}

// user makes a verified account of the given age.
func (e *convEnv) user(email string, age time.Duration) int64 {
	e.t.Helper()
	var id int64
	err := e.DB.W.QueryRow(`INSERT INTO users(email, name, created_at, verified_at) VALUES(?,?,?,?) RETURNING id`,
		email, "Person "+strings.Split(email, "@")[0], apitest.Now.Add(-age).Format(time.RFC3339), apitest.Now.Format(time.RFC3339)).Scan(&id)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *convEnv) post(userID int64, slug string, parent int64, body string) *conversation.Comment {
	e.t.Helper()
	c, err := e.App.Conversation.Post(bg, userID, slug, parent, body, "10.9.0.1")
	if err != nil {
		e.t.Fatalf("post %q: %v", body, err)
	}
	return c
}

// lastMail is the newest outbox email of kind to addr.
func (e *convEnv) lastMail(to, kind string) (subject, body, headers string) {
	e.t.Helper()
	err := e.DB.R.QueryRow(`SELECT subject, body, headers FROM outbox WHERE to_addr = ? AND kind = ? ORDER BY id DESC LIMIT 1`, to, kind).
		Scan(&subject, &body, &headers)
	if err != nil {
		e.t.Fatalf("no %s email to %s: %v", kind, to, err)
	}
	return
}

func TestCommentThreadMakerAndEmails(t *testing.T) {
	e := newConvEnv(t)
	visitor := e.user("visitor@example.com", 72*time.Hour)
	q := e.post(visitor, "tablely", 0, "Does it **import** CSV files?")
	if q.Maker || q.BodyHTML != "<p>Does it <strong>import</strong> CSV files?</p>\n" || q.Author != "Person visitor" {
		t.Fatalf("question: %+v", q)
	}
	// The owner (user 1 owns tablely) is emailed, with one-click unsubscribe.
	subj, body, headers := e.lastMail("owner@example.com", "comment")
	if !strings.Contains(subj, "Tablely") || !strings.Contains(body, "import** CSV") || !strings.Contains(headers, "List-Unsubscribe=One-Click") {
		t.Fatalf("owner email: %s / %s / %s", subj, body, headers)
	}
	// The maker answers: Maker mark; the visitor gets the reply email.
	a := e.post(1, "tablely", q.ID, "Yes: drop the file on the table.")
	if !a.Maker || a.ParentID != q.ID {
		t.Fatalf("answer: %+v", a)
	}
	subj, body, _ = e.lastMail("visitor@example.com", "reply")
	if !strings.Contains(subj, "replied to your comment") || !strings.Contains(body, "drop the file") {
		t.Fatalf("reply email: %s / %s", subj, body)
	}
	// The owner is not emailed about their own reply.
	if n := e.count(`SELECT count(*) FROM outbox WHERE to_addr = 'owner@example.com' AND kind = 'comment'`); n != 1 {
		t.Fatalf("owner emails %d", n)
	}
	// Threads go one level deep.
	_, err := e.App.Conversation.Post(bg, visitor, "tablely", a.ID, "thanks", "")
	wantErr(t, "reply to reply", err, ops.CodeInvalid, "parent_id")
	// A parent of another listing is not found.
	_, err = e.App.Conversation.Post(bg, visitor, "quickbase", q.ID, "x", "")
	wantCode(t, "other listing's parent", err, ops.CodeNotFound)
	// Public list through REST: one thread, the reply inside.
	r := e.Do("GET", "/api/v1/listings/tablely/comments", nil)
	var page struct {
		Items []conversation.Comment
		Total int
	}
	json.Unmarshal(r.Body, &page)
	if r.Status != 200 || page.Total != 1 || len(page.Items[0].Replies) != 1 || !page.Items[0].Replies[0].Maker {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	// Drafts and unknown listings have no comments.
	wantCode(t, "draft", func() error { _, err := e.App.Conversation.Post(bg, visitor, "secretdraft", 0, "hi", ""); return err }(), ops.CodeNotFound)
	if r := e.Do("GET", "/api/v1/listings/secretdraft/comments", nil); r.Status != 404 {
		t.Fatalf("draft comments: %d", r.Status)
	}
}

func TestCommentBodyEditDelete(t *testing.T) {
	e := newConvEnv(t)
	u := e.user("writer@example.com", 72*time.Hour)
	// Length at its edges.
	for _, c := range []struct {
		body string
		ok   bool
	}{{"", false}, {"   ", false}, {"x", true}, {strings.Repeat("é", conversation.MaxCommentBody), true}, {strings.Repeat("é", conversation.MaxCommentBody+1), false}} {
		_, err := e.App.Conversation.Post(bg, u, "tablely", 0, c.body, "")
		if (err == nil) != c.ok {
			t.Fatalf("body of %d chars: %v", len([]rune(c.body)), err)
		}
		if !c.ok {
			wantErr(t, "body", err, ops.CodeInvalid, "body")
		}
	}
	// Raw HTML and images never reach the page.
	c := e.post(u, "tablely", 0, "<script>alert(1)</script> ![x](https://img.example/x.png) [site](javascript:alert(1)) # Big")
	if strings.Contains(c.BodyHTML, "<script") || strings.Contains(c.BodyHTML, "<img") || strings.Contains(c.BodyHTML, "javascript:") || strings.Contains(c.BodyHTML, "<h1") {
		t.Fatalf("unsafe html: %s", c.BodyHTML)
	}
	// Edit: within 15 minutes (the edge included), then refused.
	start := apitest.Now
	e.App.Now = func() time.Time { return start.Add(conversation.EditWindow) }
	ed, err := e.App.Conversation.Edit(bg, u, c.ID, "Fixed *text*")
	if err != nil || !ed.Edited || ed.BodyMarkdown != "Fixed *text*" {
		t.Fatalf("edit at the edge: %+v %v", ed, err)
	}
	e.App.Now = func() time.Time { return start.Add(conversation.EditWindow + time.Second) }
	_, err = e.App.Conversation.Edit(bg, u, c.ID, "late")
	wantErr(t, "late edit", err, ops.CodeInvalid, "body")
	// Someone else's comment is not found, for edit and delete.
	other := e.user("other2@example.com", 72*time.Hour)
	_, err = e.App.Conversation.Edit(bg, other, c.ID, "mine now")
	wantCode(t, "edit other's", err, ops.CodeNotFound)
	_, err = e.App.Conversation.Delete(bg, other, c.ID)
	wantCode(t, "delete other's", err, ops.CodeNotFound)
	// Delete with a reply: the thread keeps a "deleted" placeholder.
	e.App.Now = func() time.Time { return start }
	e.post(other, "tablely", c.ID, "an answer")
	d, err := e.App.Conversation.Delete(bg, u, c.ID)
	if err != nil || !d.Deleted || d.BodyMarkdown != "" || d.Author != "" {
		t.Fatalf("delete: %+v %v", d, err)
	}
	list, _ := e.App.Conversation.List(bg, "tablely", "", 1, 20, 0)
	found := false
	for _, it := range list.Items {
		if it.ID == c.ID {
			found = it.Deleted && it.BodyHTML == "" && len(it.Replies) == 1
		}
	}
	if !found {
		t.Fatalf("placeholder missing: %+v", list.Items)
	}
	// No replies to a deleted comment; editing it is refused.
	_, err = e.App.Conversation.Post(bg, other, "tablely", c.ID, "late reply", "")
	wantErr(t, "reply to deleted", err, ops.CodeInvalid, "parent_id")
	if _, err := e.App.Conversation.Delete(bg, u, c.ID); err != nil {
		t.Fatalf("delete twice: %v", err)
	}
}

func TestCommentLinksFromNewAccounts(t *testing.T) {
	e := newConvEnv(t)
	young := e.user("young@example.com", conversation.LinkMinAccountAge-time.Second)
	old := e.user("old@example.com", conversation.LinkMinAccountAge)
	for _, body := range []string{"see https://spam.example/x", "visit www.spam.example", "[deal](http://x.example)", "cheap at buy-now.shop today", "<https://x.example>"} {
		_, err := e.App.Conversation.Post(bg, young, "tablely", 0, body, "")
		wantErr(t, body, err, ops.CodeInvalid, "body")
		if _, err := e.App.Conversation.Post(bg, old, "tablely", 0, body, ""); err != nil {
			t.Fatalf("24 h account, %q: %v", body, err)
		}
	}
	// Plain text (with a full stop between words) is fine for anyone.
	if _, err := e.App.Conversation.Post(bg, young, "tablely", 0, "Nice work.It helps", ""); err != nil {
		t.Fatalf("no link: %v", err)
	}
	// Unverified and banned accounts cannot comment.
	e.exec(`UPDATE users SET verified_at = NULL WHERE id = ?`, young)
	_, err := e.App.Conversation.Post(bg, young, "tablely", 0, "hello", "")
	wantCode(t, "unverified", err, ops.CodeForbidden)
}

func TestCommentRateLimitsUnderParallelRequests(t *testing.T) {
	e := newConvEnv(t)
	u := e.user("burst@example.com", 72*time.Hour)
	run := func(n int, post func(i int) error) (ok, limited int) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := post(i)
				mu.Lock()
				defer mu.Unlock()
				switch code(err) {
				case "":
					ok++
				case ops.CodeRateLimited:
					limited++
				default:
					t.Errorf("post %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		return
	}
	// One account, 30 at once from different addresses: exactly the limit.
	ok, limited := run(30, func(i int) error {
		_, err := e.App.Conversation.Post(bg, u, "tablely", 0, fmt.Sprintf("comment %d", i), fmt.Sprintf("10.1.0.%d", i))
		return err
	})
	if ok != conversation.MaxCommentsPerAccount || limited != 30-conversation.MaxCommentsPerAccount {
		t.Fatalf("per account: %d ok, %d limited", ok, limited)
	}
	// One address, 40 accounts at once: exactly the address limit.
	ids := make([]int64, 40)
	for i := range ids {
		ids[i] = e.user(fmt.Sprintf("crowd%d@example.com", i), 72*time.Hour)
	}
	ok, limited = run(40, func(i int) error {
		_, err := e.App.Conversation.Post(bg, ids[i], "quickbase", 0, "same network", "10.2.0.1")
		return err
	})
	if ok != conversation.MaxCommentsPerAddress || limited != 10 {
		t.Fatalf("per address: %d ok, %d limited", ok, limited)
	}
	// Through REST the 429 carries Retry-After; the window's end frees it.
	key := apitest.Bearer(e.APIKey("burst@example.com"))
	r := e.Do("POST", "/api/v1/listings/tablely/comments", map[string]any{"body": "one more"}, key...)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("rest 429: %d %v %s", r.Status, r.Header, r.Body)
	}
	e.App.Now = func() time.Time { return apitest.Now.Add(conversation.RateWindow + time.Second) }
	r = e.Do("POST", "/api/v1/listings/tablely/comments", map[string]any{"body": "after the window"}, key...)
	if r.Status != 201 || !strings.HasPrefix(r.Header.Get("Location"), "/api/v1/comments/") {
		t.Fatalf("after window: %d %s", r.Status, r.Body)
	}
}

func TestCommentModerationUpvotesPin(t *testing.T) {
	e := newConvEnv(t)
	a := e.user("a@example.com", 72*time.Hour)
	b := e.user("b@example.com", 72*time.Hour)
	c1 := e.post(a, "tablely", 0, "first")
	c2 := e.post(b, "tablely", 0, "second")
	// Upvotes: one per person, toggling; not your own.
	on, n, err := e.App.Conversation.ToggleUpvote(bg, b, c1.ID)
	if err != nil || !on || n != 1 {
		t.Fatalf("upvote: %v %d %v", on, n, err)
	}
	on, n, _ = e.App.Conversation.ToggleUpvote(bg, b, c1.ID)
	if on || n != 0 {
		t.Fatalf("toggle off: %v %d", on, n)
	}
	e.App.Conversation.ToggleUpvote(bg, b, c1.ID)
	_, _, err = e.App.Conversation.ToggleUpvote(bg, a, c1.ID)
	wantErr(t, "own upvote", err, ops.CodeInvalid, "comment_id")
	top, _ := e.App.Conversation.List(bg, "tablely", "top", 1, 20, 0)
	newest, _ := e.App.Conversation.List(bg, "tablely", "newest", 1, 20, 0)
	if top.Items[0].ID != c1.ID || newest.Items[0].ID != c2.ID {
		t.Fatalf("orders: top %d newest %d", top.Items[0].ID, newest.Items[0].ID)
	}
	if _, err := e.App.Conversation.List(bg, "tablely", "best", 1, 20, 0); code(err) != ops.CodeInvalid {
		t.Fatalf("sort: %v", err)
	}
	// The pinned maker's comment comes first; only owners pin their own.
	m := e.post(1, "tablely", 0, "Maker here: why we built Tablely.")
	_, err = e.App.Conversation.Pin(bg, a, c1.ID, true)
	wantCode(t, "non-owner pin", err, ops.CodeForbidden)
	if p, err := e.App.Conversation.Pin(bg, 1, m.ID, true); err != nil || !p.Pinned {
		t.Fatalf("pin: %+v %v", p, err)
	}
	top, _ = e.App.Conversation.List(bg, "tablely", "top", 1, 20, 0)
	if top.Items[0].ID != m.ID || !top.Items[0].Maker {
		t.Fatalf("pinned first: %+v", top.Items[0])
	}
	// Report: into the admin queue; hiding resolves it.
	if err := e.App.Conversation.Report(bg, b, c1.ID, "spam"); err != nil {
		t.Fatal(err)
	}
	if err := e.App.Conversation.Report(bg, b, c1.ID, "spam again"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "no reason", e.App.Conversation.Report(bg, b, c1.ID, " "), ops.CodeInvalid, "reason")
	q, _ := e.App.Admin.ListReports(bg, e.admin, "open", admin.AdminPage{})
	if q.Total != 1 || q.Items[0].Kind != "comment" || q.Items[0].CommentText != "first" {
		t.Fatalf("queue: %+v", q)
	}
	wantCode(t, "non-admin hide", e.App.Admin.HideComment(bg, 1, c1.ID, "spam"), ops.CodeNotFound)
	if err := e.App.Admin.HideComment(bg, e.admin, c1.ID, "spam"); err != nil {
		t.Fatal(err)
	}
	if q, _ := e.App.Admin.ListReports(bg, e.admin, "open", admin.AdminPage{}); q.Total != 0 {
		t.Fatalf("report still open: %+v", q)
	}
	list, _ := e.App.Conversation.List(bg, "tablely", "", 1, 20, 0)
	if list.Total != 2 {
		t.Fatalf("hidden still listed: %+v", list)
	}
	if r := e.Do("GET", fmt.Sprintf("/api/v1/comments/%d", c1.ID), nil); r.Status != 404 {
		t.Fatalf("hidden by id: %d", r.Status)
	}
	if err := e.App.Admin.RestoreComment(bg, e.admin, c1.ID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "restore twice", e.App.Admin.RestoreComment(bg, e.admin, c1.ID), ops.CodeInvalid, "comment_id")
	// A banned account's comments disappear (and it cannot post).
	e.App.Admin.BanUser(bg, e.admin, b, "spammer")
	list, _ = e.App.Conversation.List(bg, "tablely", "", 1, 20, 0)
	for _, it := range list.Items {
		if it.ID == c2.ID {
			t.Fatalf("banned author's comment listed: %+v", it)
		}
	}
	_, err = e.App.Conversation.Post(bg, b, "tablely", 0, "again", "")
	wantCode(t, "banned", err, ops.CodeForbidden)
	// A hidden top-level comment with a live reply stays as a placeholder.
	e.post(a, "tablely", m.ID, "a reply under the maker's comment")
	e.App.Admin.HideComment(bg, e.admin, m.ID, "off-topic")
	list, _ = e.App.Conversation.List(bg, "tablely", "", 1, 20, 0)
	ph := false
	for _, it := range list.Items {
		if it.ID == m.ID {
			ph = it.Hidden && it.BodyMarkdown == "" && !it.Pinned && len(it.Replies) == 1
		}
	}
	if !ph {
		t.Fatalf("hidden placeholder: %+v", list.Items)
	}
}

func TestCommentsOverRESTAndUpcomingListings(t *testing.T) {
	e := newConvEnv(t)
	fan := apitest.Bearer(e.APIKey("fan@example.com"))
	r := e.Do("POST", "/api/v1/listings/soonapp/comments", map[string]any{"body": "When does the beta open?"}, fan...)
	if r.Status != 201 {
		t.Fatalf("comment on upcoming: %d %s", r.Status, r.Body)
	}
	id := int64(r.JSON()["id"].(float64))
	r = e.Do("POST", fmt.Sprintf("/api/v1/comments/%d/replies", id), map[string]any{"body": "me too"}, e.other...)
	if r.Status != 201 || r.JSON()["parent_id"].(float64) != float64(id) {
		t.Fatalf("reply: %d %s", r.Status, r.Body)
	}
	if r := e.Do("POST", "/api/v1/comments/99999/replies", map[string]any{"body": "x"}, fan...); r.Status != 404 {
		t.Fatalf("reply to unknown: %d", r.Status)
	}
	if r := e.Do("PATCH", fmt.Sprintf("/api/v1/comments/%d", id), map[string]any{"body": "When does the public beta open?"}, fan...); r.Status != 200 || r.JSON()["edited"] != true {
		t.Fatalf("edit: %d %s", r.Status, r.Body)
	}
	if r := e.Do("DELETE", fmt.Sprintf("/api/v1/comments/%d", id), nil, e.other...); r.Status != 404 {
		t.Fatalf("delete another's: %d", r.Status)
	}
	if r := e.Do("POST", "/api/v1/listings/soonapp/comments", map[string]any{"body": strings.Repeat("x", conversation.MaxCommentBody+1)}, fan...); r.Status != 400 {
		t.Fatalf("too long: %d", r.Status)
	}
	if r := e.Do("POST", "/api/v1/listings/soonapp/comments", map[string]any{"body": "x"}); r.Status != 401 {
		t.Fatalf("anonymous: %d", r.Status)
	}
	// Notify me at launch; the go-live tells the watcher and the owner once.
	e.exec(`INSERT INTO listing_owners(listing_id, user_id, role, created_at) VALUES (5, 2, 'owner', '2026-10-01T00:00:00Z')`)
	on, err := e.App.Conversation.ToggleLaunchNotice(bg, 3, "soonapp")
	if err != nil || !on {
		t.Fatalf("watch: %v %v", on, err)
	}
	if _, err := e.App.Conversation.ToggleLaunchNotice(bg, 3, "tablely"); code(err) != ops.CodeNotFound {
		t.Fatalf("watch a live listing: %v", err)
	}
	u, err := e.App.Conversation.UpcomingListing(bg, "soonapp", 3)
	if err != nil || !u.Watching || u.Watchers != 1 {
		t.Fatalf("upcoming: %+v %v", u, err)
	}
	e.App.Now = func() time.Time { return time.Date(2026, 12, 14, 1, 0, 0, 0, time.UTC) }
	for range 2 {
		if err := e.App.Catalog.GoLiveDue(bg); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.count(`SELECT count(*) FROM outbox WHERE to_addr = 'fan@example.com' AND kind = 'launch'`); n != 1 {
		t.Fatalf("launch emails %d", n)
	}
	if n := e.count(`SELECT count(*) FROM outbox WHERE to_addr = 'other@example.com' AND kind = 'listing_live'`); n != 1 {
		t.Fatalf("live emails %d", n)
	}
}

func TestNotificationSettingsAndOneClickUnsubscribe(t *testing.T) {
	e := newConvEnv(t)
	v := e.user("v@example.com", 72*time.Hour)
	key := apitest.Bearer(e.APIKey("v@example.com"))
	r := e.Do("PATCH", "/api/v1/me/notifications", map[string]any{"settings": []map[string]any{{"kind": "reply", "on": false}}}, key...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"kind":"reply","label":"A reply to your comment","on":false`) {
		t.Fatalf("settings: %d %s", r.Status, r.Body)
	}
	if r := e.Do("PATCH", "/api/v1/me/notifications", map[string]any{"settings": []map[string]any{{"kind": "spam", "on": false}}}, key...); r.Status != 400 {
		t.Fatalf("unknown kind: %d", r.Status)
	}
	c := e.post(v, "tablely", 0, "question")
	e.post(1, "tablely", c.ID, "answer")
	if n := e.count(`SELECT count(*) FROM outbox WHERE to_addr = 'v@example.com'`); n != 0 {
		t.Fatalf("reply email sent although off: %d", n)
	}
	// The owner unsubscribes from comment emails in one click (RFC 8058).
	_, body, _ := e.lastMail("owner@example.com", "comment")
	i := strings.Index(body, "/unsubscribe/")
	tok := strings.Fields(body[i+len("/unsubscribe/"):])[0]
	if err := e.App.People.Unsubscribe(bg, tok); err != nil {
		t.Fatalf("one-click: %v", err)
	}
	if err := e.App.People.Unsubscribe(bg, tok); err != nil {
		t.Fatalf("one-click twice: %v", err)
	}
	s, _ := e.App.Conversation.NotificationSettings(bg, 1)
	for _, k := range s {
		if k.On != (k.Key != "comment") {
			t.Fatalf("after unsubscribe: %+v", s)
		}
	}
	e.post(v, "tablely", 0, "another question")
	if n := e.count(`SELECT count(*) FROM outbox WHERE to_addr = 'owner@example.com' AND kind = 'comment'`); n != 1 {
		t.Fatalf("comment emails after unsubscribe: %d", n)
	}
}

// TestEmailPerKind: every notification kind is queued by the real path
// that causes it, with the layout's unsubscribe link and both parts.
func TestEmailPerKind(t *testing.T) {
	e := apitest.New(t, apitest.Options{Fixture: true, Setup: func(a *app.App) {
		a.SetExternals(kernel.Externals{Fetcher: backlinkWeb{a}})
	}})
	exec := func(q string, args ...any) {
		if _, err := e.DB.W.Exec(q, args...); err != nil {
			t.Fatal(q, err)
		}
	}
	exec(`UPDATE users SET verified_at = '2026-01-02T00:00:00Z'`)
	owner, other := apitest.Bearer(e.APIKey("owner@example.com")), apitest.Bearer(e.APIKey("other@example.com"))
	mails := func(to, kind string) []string {
		rows, err := e.DB.R.Query(`SELECT subject || '|' || body || '|' || html || '|' || headers FROM outbox WHERE to_addr = ? AND kind = ? ORDER BY id`, to, kind)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	want := func(to, kind string, n int, words ...string) {
		t.Helper()
		got := mails(to, kind)
		if len(got) != n {
			t.Fatalf("%s to %s: %d emails, want %d", kind, to, len(got), n)
		}
		for _, m := range got {
			for _, w := range append(words, "/unsubscribe/", "List-Unsubscribe-Post", "<!doctype html>", "/settings/notifications") {
				if !strings.Contains(m, w) {
					t.Fatalf("%s to %s lacks %q: %s", kind, to, w, m)
				}
			}
		}
	}
	// Scheduled: the free launch of listing 3 (owner@example.com).
	exec(`UPDATE listings SET status = 'draft', plan = 'none', launch_week = NULL WHERE id = 3`)
	if r := e.Do("POST", "/api/v1/me/listings/3/free", nil, owner...); r.Status != 200 {
		t.Fatalf("free: %d %s", r.Status, r.Body)
	}
	want("owner@example.com", "listing_scheduled", 1, "Tablely launches in the week of 2026-12-14")
	// Review: the fan reviews QuickBase (owner@example.com's).
	if _, err := e.App.People.SaveReview(bg, 3, "quickbase", 4, "Solid sync."); err != nil {
		t.Fatal(err)
	}
	want("owner@example.com", "review", 1, "★★★★☆", "Solid sync.")
	// Editing the review does not email again.
	e.App.People.SaveReview(bg, 3, "quickbase", 5, "Solid sync, fast.")
	want("owner@example.com", "review", 1)
	// Claim filed (other@ claims QuickBase by email link) and granted.
	r := e.Do("POST", "/api/v1/claims", map[string]any{"slug": "quickbase", "method": "email", "email": "ceo@quickbase.example"}, other...)
	if r.Status != 201 {
		t.Fatalf("claim: %d %s", r.Status, r.Body)
	}
	want("owner@example.com", "claim", 1, "Someone claims QuickBase", "/claim-disputes/")
	var body string
	e.DB.R.QueryRow(`SELECT body FROM outbox WHERE kind = 'claim_link'`).Scan(&body)
	tok := regexp.MustCompile(`/claims/email/([a-z0-9]+)`).FindStringSubmatch(body)[1]
	if _, err := e.App.Owning.VerifyClaimEmail(bg, tok); err != nil {
		t.Fatal(err)
	}
	want("owner@example.com", "claim", 2, "/claim-disputes/")
	want("other@example.com", "claim", 1, "You are now an owner of QuickBase")
	// The owner disputes it: a report in the site team's queue; the
	// claimant cannot dispute their own claim, nor a stranger anything.
	claimID := int64(r.JSON()["id"].(float64))
	wantCode(t, "claimant disputes", e.App.Owning.DisputeClaim(bg, 2, claimID, "mine"), ops.CodeNotFound)
	wantCode(t, "stranger disputes", e.App.Owning.DisputeClaim(bg, 3, claimID, "no"), ops.CodeNotFound)
	wantErr(t, "empty reason", e.App.Owning.DisputeClaim(bg, 1, claimID, ""), ops.CodeInvalid, "reason")
	if err := e.App.Owning.DisputeClaim(bg, 1, claimID, "I never agreed"); err != nil {
		t.Fatal(err)
	}
	var reason string
	e.DB.R.QueryRow(`SELECT reason FROM reports WHERE kind = 'listing' AND listing_id = 1`).Scan(&reason)
	if !strings.Contains(reason, "I never agreed") {
		t.Fatalf("dispute report: %q", reason)
	}
}

// TestOutboxWakesOnEnqueue: an email leaves within a second of its
// transaction's commit, long before the 15 s timer.
func TestOutboxWakesOnEnqueue(t *testing.T) {
	sent := make(chan kernel.Email, 4)
	e := apitest.New(t, apitest.Options{Fixture: true, Background: true, Setup: func(a *app.App) {
		a.SetExternals(kernel.Externals{Mailer: chanMailer(sent)})
	}})
	time.Sleep(100 * time.Millisecond) // the timer's first run is over
	start := time.Now()
	c, err := e.App.People.NewSignupChallenge(bg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.People.SignUp(bg, people.SignupRequest{Email: "quick@example.com", Password: "long enough password", Name: "Quinn",
		IP: "10.9.9.1", Proof: people.SolveSignupChallenge(c)}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sent:
		if m.To != "quick@example.com" || time.Since(start) > 2*time.Second {
			t.Fatalf("%s after %v", m.To, time.Since(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the verification email waited for the timer")
	}
}

// chanMailer hands each email to a channel.
type chanMailer chan kernel.Email

func (c chanMailer) Send(ctx context.Context, to, subject, body string) error {
	c <- kernel.Email{To: to, Subject: subject, Text: body}
	return nil
}

func (c chanMailer) SendEmail(ctx context.Context, m kernel.Email) error { c <- m; return nil }
