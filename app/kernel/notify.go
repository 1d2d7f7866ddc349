package kernel

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"launchdir/db"
	"launchdir/ops"
)

// Notification emails: what a person is told about their listings and
// their comments. Every kind can be turned off (settings page, operation,
// or the one-click unsubscribe link each email carries, RFC 8058). The
// mechanism is here, below every domain, because the events come from
// several: comments (conversation), go-live (catalog), claims (owning),
// reviews (people).

// NotifyKind is one kind of notification email.
type NotifyKind struct {
	Key   string `json:"kind"`
	Label string `json:"label"`
}

// NotifyKinds are the kinds, in the settings page's order.
var NotifyKinds = []NotifyKind{
	{"comment", "A new comment on one of your listings"},
	{"reply", "A reply to your comment"},
	{"listing_scheduled", "Your listing is scheduled for a launch week"},
	{"listing_live", "Your listing is live"},
	{"claim", "Someone claims one of your listings, or your claim succeeds"},
	{"review", "A new review of one of your listings"},
	{"launch", "An upcoming listing you asked about goes live"},
}

// IsNotifyKind reports whether kind is one of NotifyKinds.
func IsNotifyKind(kind string) bool {
	for _, k := range NotifyKinds {
		if k.Key == kind {
			return true
		}
	}
	return false
}

// notifyTokenTTL is how long an email's unsubscribe link works.
const notifyTokenTTL = 365 * 24 * time.Hour

// Notice is one notification to one person.
type Notice struct {
	Kind    string // one of NotifyKinds
	UserID  int64
	Subject string
	Text    string // plain text, blank lines between paragraphs
	Link    string // the page the email is about
	Button  string // the link's label
}

// Notify queues n in tx unless the person turned its kind off or is
// banned. It reports whether an email was queued.
func (a *Kernel) Notify(ctx context.Context, tx *sql.Tx, n Notice) (bool, error) {
	var email string
	err := tx.QueryRowContext(ctx, `SELECT email FROM users u WHERE id = ?
		AND NOT EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = u.id)
		AND NOT EXISTS(SELECT 1 FROM notification_off o WHERE o.user_id = u.id AND o.kind = ?)`, n.UserID, n.Kind).Scan(&email)
	if db.IsNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	secret := NewSecret("")
	now := a.Now().UTC()
	if _, err := tx.ExecContext(ctx, `INSERT INTO notification_tokens(hash, user_id, kind, created_at, expires_at) VALUES(?,?,?,?,?)`,
		HashSecret(secret), n.UserID, n.Kind, now.Format(time.RFC3339), now.Add(notifyTokenTTL).Format(time.RFC3339)); err != nil {
		return false, err
	}
	unsub := a.Cfg.BaseURL + "/unsubscribe/" + secret
	settings := a.Cfg.BaseURL + "/settings/notifications"
	label := ""
	for _, k := range NotifyKinds {
		if k.Key == n.Kind {
			label = strings.ToLower(k.Label[:1]) + k.Label[1:]
		}
	}
	why := "You get this email when " + label + " on " + a.Cfg.SiteName + "."
	text := n.Text + "\n\n" + n.Button + ": " + n.Link + "\n\n" + why + "\nStop these emails: " + unsub +
		"\nAll email settings: " + settings + "\n\n-- \n" + a.Cfg.SiteName + " " + a.Cfg.BaseURL + "\n"
	htmlBody := a.HTMLEmail(Paragraph(n.Text) + ButtonHTML(n.Link, n.Button) +
		`<p style="margin:16px 0 0;font-size:13px;color:#4b5563">` + Escape(why) + ` <a href="` + Escape(unsub) +
		`" style="color:#1d4ed8">Stop these emails</a> &middot; <a href="` + Escape(settings) + `" style="color:#1d4ed8">All email settings</a>.</p>` + "\n")
	return true, a.EnqueueMessage(ctx, tx, Email{Kind: n.Kind, To: email, Subject: n.Subject, Text: text, HTML: htmlBody,
		Headers: map[string]string{"List-Unsubscribe": "<" + unsub + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}})
}

// NotifyOwners sends n to every owner of listingID except skipUserID (the
// owner who caused the event). It returns how many emails were queued.
func (a *Kernel) NotifyOwners(ctx context.Context, tx *sql.Tx, listingID, skipUserID int64, n Notice) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT user_id FROM listing_owners WHERE listing_id = ? AND user_id != ? ORDER BY user_id`, listingID, skipUserID)
	if err != nil {
		return 0, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	sent := 0
	for _, id := range ids {
		n.UserID = id
		ok, err := a.Notify(ctx, tx, n)
		if err != nil {
			return sent, err
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}

// UnsubscribeNotification turns off the kind of the email a one-click
// link came from. found is false when the token is not a notification
// link (it may be another kind of unsubscribe link).
func (a *Kernel) UnsubscribeNotification(ctx context.Context, tx *sql.Tx, token string) (found bool, err error) {
	var userID int64
	var kind, expires string
	err = tx.QueryRowContext(ctx, `SELECT user_id, kind, expires_at FROM notification_tokens WHERE hash = ?`, HashSecret(token)).
		Scan(&userID, &kind, &expires)
	if db.IsNoRows(err) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	if expires <= a.NowText() {
		return true, ops.Invalid("token", "this unsubscribe link has expired: change your email settings on the site instead")
	}
	return true, a.SetNotification(ctx, tx, userID, kind, false)
}

// SetNotification turns one kind of email on or off for a person.
func (a *Kernel) SetNotification(ctx context.Context, tx Execer, userID int64, kind string, on bool) error {
	if !IsNotifyKind(kind) {
		return ops.Invalid("kind", "is not a kind of email: %s", kind)
	}
	var err error
	if on {
		_, err = tx.ExecContext(ctx, `DELETE FROM notification_off WHERE user_id = ? AND kind = ?`, userID, kind)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO notification_off(user_id, kind, created_at) VALUES(?,?,?) ON CONFLICT DO NOTHING`,
			userID, kind, a.NowText())
	}
	return err
}

// NotifySetting is one kind and whether the person gets it.
type NotifySetting struct {
	NotifyKind
	On bool `json:"on"`
}

// NotificationSettings lists every kind with the person's choice.
func (a *Kernel) NotificationSettings(ctx context.Context, userID int64) ([]NotifySetting, error) {
	return NotificationSettingsIn(ctx, a.DB.R, userID)
}

// NotificationSettingsIn is NotificationSettings read through q (the write
// transaction that changed them, to store them as its response).
func NotificationSettingsIn(ctx context.Context, q RowsQuerier, userID int64) ([]NotifySetting, error) {
	rows, err := q.QueryContext(ctx, `SELECT kind FROM notification_off WHERE user_id = ?`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	off := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		off[k] = true
	}
	out := make([]NotifySetting, 0, len(NotifyKinds))
	for _, k := range NotifyKinds {
		out = append(out, NotifySetting{NotifyKind: k, On: !off[k.Key]})
	}
	return out, rows.Err()
}

// NotifyWentLive tells a listing that just went live to its owners
// (listing_live) and to the people who asked to hear at launch (launch,
// once each). It runs in the go-live transaction.
func (a *Kernel) NotifyWentLive(ctx context.Context, tx *sql.Tx, listingID int64) error {
	var name, slug string
	if err := tx.QueryRowContext(ctx, `SELECT name, slug FROM listings WHERE id = ?`, listingID).Scan(&name, &slug); err != nil {
		return err
	}
	link := a.ListingURL(slug)
	if err := a.EmitEvent(ctx, tx, Event{Type: "listing.live", ListingID: listingID,
		Data: map[string]any{"listing": a.ListingRef(ctx, tx, listingID)}}); err != nil {
		return err
	}
	_, err := a.NotifyOwners(ctx, tx, listingID, 0, Notice{Kind: "listing_live", Subject: name + " is live on " + a.Cfg.SiteName,
		Text: name + " is live: people can now vote, follow, review and comment.\n\nAnswer questions in the comments and pin a maker's comment that says why you built it.",
		Link: link, Button: "See " + name})
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `UPDATE launch_watchers SET notified_at = ? WHERE listing_id = ? AND notified_at IS NULL RETURNING user_id`,
		a.NowText(), listingID)
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := a.Notify(ctx, tx, Notice{Kind: "launch", UserID: id, Subject: name + " just launched",
			Text: "You asked to hear when " + name + " launches. It is live now.", Link: link, Button: "See " + name}); err != nil {
			return err
		}
	}
	return nil
}

// NotifyScheduled tells a listing's owners its launch week (in the
// transaction that scheduled it); skipUserID is an owner who is told on
// the page already (0: none).
func (a *Kernel) NotifyScheduled(ctx context.Context, tx *sql.Tx, listingID, skipUserID int64) error {
	var name, slug, week string
	if err := tx.QueryRowContext(ctx, `SELECT name, slug, coalesce(launch_week,'') FROM listings WHERE id = ?`, listingID).Scan(&name, &slug, &week); err != nil {
		return err
	}
	if err := a.EmitEvent(ctx, tx, Event{Type: "listing.scheduled", ListingID: listingID,
		Data: map[string]any{"listing": a.ListingRef(ctx, tx, listingID), "launch_week": week}}); err != nil {
		return err
	}
	_, err := a.NotifyOwners(ctx, tx, listingID, skipUserID, Notice{Kind: "listing_scheduled",
		Subject: name + " launches in the week of " + week,
		Text: name + " is scheduled: it goes live on Monday " + week + " at 00:00 UTC and stays on that week's board.\n\n" +
			"Until then its page shows it as upcoming: people can comment and ask to be emailed at launch.",
		Link: a.ListingURL(slug), Button: "See the upcoming page"})
	return err
}

// NotifyRelaunch tells a listing's owners the week a bought relaunch adds
// (in the payment's transaction). The listing stays live, so unlike
// NotifyScheduled there is no upcoming page to point at.
func (a *Kernel) NotifyRelaunch(ctx context.Context, tx *sql.Tx, listingID int64, week string) error {
	var name, slug string
	if err := tx.QueryRowContext(ctx, `SELECT name, slug FROM listings WHERE id = ?`, listingID).Scan(&name, &slug); err != nil {
		return err
	}
	if err := a.EmitEvent(ctx, tx, Event{Type: "listing.scheduled", ListingID: listingID,
		Data: map[string]any{"listing": a.ListingRef(ctx, tx, listingID), "launch_week": week, "relaunch": true}}); err != nil {
		return err
	}
	_, err := a.NotifyOwners(ctx, tx, listingID, 0, Notice{Kind: "listing_scheduled",
		Subject: name + " relaunches in the week of " + week,
		Text: name + " stays live and joins the launches of the week of " + week + " (Monday 00:00 UTC): " +
			"that week's votes rank it on that week's board, and its earlier weeks keep their places.",
		Link: a.ListingURL(slug), Button: "See the listing"})
	return err
}

// NotifyReview tells a listing's owners about a new review (not its
// author, if an owner wrote it).
func (a *Kernel) NotifyReview(ctx context.Context, tx *sql.Tx, listingID, authorID int64, author string, rating int, body string) error {
	var name, slug string
	if err := tx.QueryRowContext(ctx, `SELECT name, slug FROM listings WHERE id = ?`, listingID).Scan(&name, &slug); err != nil {
		return err
	}
	if err := a.EmitEvent(ctx, tx, Event{Type: "review.created", ListingID: listingID,
		Data: map[string]any{"listing": a.ListingRef(ctx, tx, listingID), "review": map[string]any{"author": author, "rating": rating, "body": body}}}); err != nil {
		return err
	}
	if len([]rune(body)) > 600 {
		body = string([]rune(body)[:600]) + "…"
	}
	_, err := a.NotifyOwners(ctx, tx, listingID, authorID, Notice{Kind: "review",
		Subject: author + " reviewed " + name + " (" + strings.Repeat("★", rating) + ")",
		Text:    author + " gave " + name + " " + strings.Repeat("★", rating) + strings.Repeat("☆", 5-rating) + ":\n\n" + body,
		Link:    a.ListingURL(slug) + "#reviews", Button: "Read the review"})
	return err
}
