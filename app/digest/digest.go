// Package digest is the weekly email digest: last week's top launches and
// awards and this week's launches, sent Monday morning to people who asked
// for it and confirmed their address (double opt-in, accounts or not), and
// kept as a public archive page per week.
//
// It imports only kernel: the digest is a read of the listings, weekly
// votes and awards tables, and its emails go through the outbox.
package digest

import (
	"context"
	"database/sql"
	"fmt"
	"html"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Service is the digest domain.
type Service struct{ *kernel.Kernel }

// New builds the digest domain.
func New(k *kernel.Kernel) *Service { return &Service{Kernel: k} }

// The rules.
const (
	// askAgainAfter: a confirmation email is sent at most once per hour
	// per address, so the form cannot be used to flood an inbox.
	askAgainAfter = time.Hour
	// sendHour is when on Monday (UTC) the digest goes out.
	sendHour    = 7
	topLaunches = 10
)

// Subscribe asks for the digest at email: a confirmation link is emailed
// (nothing else is sent until it is opened). Asking again for a confirmed
// address changes nothing; for an unsubscribed one it starts over. The
// answer is the same either way, so the form does not tell who subscribes.
func (a *Service) Subscribe(ctx context.Context, email string) error {
	email, err := kernel.NormEmail(email)
	if err != nil {
		return err
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var status, asked string
		err := tx.QueryRowContext(ctx, `SELECT status, asked_at FROM digest_subscribers WHERE email = ?`, email).Scan(&status, &asked)
		now := a.Now().UTC()
		switch {
		case err == nil && status == "confirmed":
			return nil
		case err == nil && asked > now.Add(-askAgainAfter).Format(time.RFC3339):
			return nil // asked within the hour: the first email is enough
		case err != nil && !db.IsNoRows(err):
			return err
		}
		confirm, unsub := kernel.NewSecret(""), kernel.NewSecret("")
		_, err = tx.ExecContext(ctx, `INSERT INTO digest_subscribers(email, status, confirm_hash, unsub_hash, asked_at, created_at) VALUES(?, 'pending', ?, ?, ?, ?)
			ON CONFLICT(email) DO UPDATE SET status = 'pending', confirm_hash = excluded.confirm_hash, unsub_hash = excluded.unsub_hash,
			asked_at = excluded.asked_at, unsubscribed_at = NULL`,
			email, kernel.HashSecret(confirm), kernel.HashSecret(unsub), now.Format(time.RFC3339), now.Format(time.RFC3339))
		if err != nil {
			return err
		}
		link := a.Cfg.BaseURL + "/digest/confirm/" + confirm
		return a.EnqueueMessage(ctx, tx, a.LinkEmail("digest_confirm", email, "Confirm your weekly "+a.Cfg.SiteName+" digest",
			"Someone (we hope you) asked for the weekly digest of "+a.Cfg.SiteName+": last week's top launches and awards, and this week's launches, every Monday.",
			link, "Yes, send me the digest", "If you did not ask, ignore this email: nothing will be sent."))
	})
}

// Confirm turns a confirmation link into a subscription.
func (a *Service) Confirm(ctx context.Context, token string) (string, error) {
	var email string
	err := a.DB.W.QueryRowContext(ctx, `UPDATE digest_subscribers SET status = 'confirmed', confirmed_at = ?, confirm_hash = ''
		WHERE confirm_hash = ? AND confirm_hash != '' AND status = 'pending' RETURNING email`, a.NowText(), kernel.HashSecret(token)).Scan(&email)
	if db.IsNoRows(err) {
		return "", ops.Invalid("token", "this confirmation link is not valid or was already used")
	}
	return email, err
}

// Unsubscribe stops the digest for the address of a digest email's link
// (one click, RFC 8058); using it again is fine.
func (a *Service) Unsubscribe(ctx context.Context, token string) error {
	res, err := a.DB.W.ExecContext(ctx, `UPDATE digest_subscribers SET status = 'unsubscribed', unsubscribed_at = coalesce(unsubscribed_at, ?)
		WHERE unsub_hash = ?`, a.NowText(), kernel.HashSecret(token))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ops.NotFound("unsubscribe link")
	}
	return nil
}

// Issue is one week's digest, as sent and archived.
type Issue struct {
	Week       string
	Subject    string
	Text       string
	HTML       string
	Recipients int
	CreatedAt  string
}

// item is one listing in a digest.
type item struct {
	name, slug, tagline, note string
}

// SendDue builds and sends last week's digest once it is Monday sendHour
// UTC or later and it was not sent yet (the scheduler runs it hourly).
func (a *Service) SendDue(ctx context.Context) error {
	now := a.Now().UTC()
	this := kernel.Monday(now)
	if now.Sub(this) < sendHour*time.Hour {
		return nil
	}
	last := this.AddDate(0, 0, -7).Format(kernel.DateLayout)
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var done bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM digests WHERE week = ?)`, last).Scan(&done); err != nil || done {
			return err
		}
		is, err := a.build(ctx, tx, last, this.Format(kernel.DateLayout))
		if err != nil {
			return err
		}
		n, err := a.sendTo(ctx, tx, is)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO digests(week, subject, text, html, recipients, created_at) VALUES(?,?,?,?,?,?)`,
			last, is.Subject, is.Text, is.HTML, n, a.NowText())
		return err
	})
}

func (a *Service) list(ctx context.Context, tx *sql.Tx, q string, args ...any) ([]item, error) {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []item
	for rows.Next() {
		var it item
		if err := rows.Scan(&it.name, &it.slug, &it.tagline, &it.note); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// build writes the digest of week (looking back) and thisWeek's launches.
func (a *Service) build(ctx context.Context, tx *sql.Tx, week, thisWeek string) (*Issue, error) {
	// The week's ranking is the one every page shows (db.WeekRankFrom):
	// launches of that week by their votes in that week.
	top, err := a.list(ctx, tx, `SELECT l.name, l.slug, l.tagline, CASE n.votes WHEN 1 THEN '1 vote' ELSE n.votes || ' votes' END`+
		db.WeekRankFrom+` AND l.status = 'live' AND n.votes > 0`+db.WeekRankOrder+` LIMIT ?2`, week, topLaunches)
	if err != nil {
		return nil, err
	}
	awards, err := a.list(ctx, tx, `SELECT l.name, l.slug, l.tagline, CASE aw.rank WHEN 1 THEN 'Product of the week' ELSE '#' || aw.rank || ' of the week' END
		FROM awards aw JOIN listings l ON l.id = aw.listing_id WHERE aw.week = ? AND l.status = 'live' ORDER BY aw.rank`, week)
	if err != nil {
		return nil, err
	}
	launching, err := a.list(ctx, tx, `SELECT l.name, l.slug, l.tagline, ''`+db.WeekRankFrom+` AND l.status = 'live'`+db.WeekRankOrder+` LIMIT ?2`,
		thisWeek, topLaunches)
	if err != nil {
		return nil, err
	}
	day := kernel.HumanDate
	is := &Issue{Week: week, Subject: a.Cfg.SiteName + " weekly: the week of " + day(week)}
	var text, h strings.Builder
	section := func(title, empty string, items []item) {
		text.WriteString(title + "\n\n")
		h.WriteString(`<h2 style="font-size:18px;margin:24px 0 8px">` + html.EscapeString(title) + "</h2>\n")
		if len(items) == 0 {
			text.WriteString(empty + "\n\n")
			h.WriteString(kernel.Paragraph(empty))
			return
		}
		h.WriteString(`<ol style="margin:0 0 16px;padding-left:20px">`)
		for _, it := range items {
			link := a.ListingURL(it.slug)
			note := ""
			if it.note != "" {
				note = " (" + it.note + ")"
			}
			fmt.Fprintf(&text, "- %s%s: %s\n  %s\n", it.name, note, it.tagline, link)
			h.WriteString(`<li style="margin:0 0 8px"><a href="` + html.EscapeString(link) + `" style="color:#1d4ed8">` + html.EscapeString(it.name) + "</a>" +
				html.EscapeString(note) + "<br>" + html.EscapeString(it.tagline) + "</li>\n")
		}
		h.WriteString("</ol>\n")
		text.WriteString("\n")
	}
	section("Top launches of the week of "+day(week), "No launches collected votes that week.", top)
	section("Awards", "No awards that week.", awards)
	section("Launching this week", "Nothing launches this week yet.", launching)
	archive := a.Cfg.BaseURL + "/digests/" + week
	text.WriteString("Read it on the site: " + archive + "\n")
	h.WriteString(kernel.Paragraph("Read it on the site: " + archive))
	is.Text, is.HTML = text.String(), h.String()
	return is, nil
}

// sendTo queues the digest to every confirmed subscriber, each with its own
// one-click unsubscribe link (a new secret per issue).
func (a *Service) sendTo(ctx context.Context, tx *sql.Tx, is *Issue) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, email FROM digest_subscribers WHERE status = 'confirmed' ORDER BY id`)
	if err != nil {
		return 0, err
	}
	type sub struct {
		id    int64
		email string
	}
	var subs []sub
	for rows.Next() {
		var s sub
		if err := rows.Scan(&s.id, &s.email); err != nil {
			rows.Close()
			return 0, err
		}
		subs = append(subs, s)
	}
	rows.Close()
	for _, s := range subs {
		unsub := kernel.NewSecret("")
		if _, err := tx.ExecContext(ctx, `UPDATE digest_subscribers SET unsub_hash = ? WHERE id = ?`, kernel.HashSecret(unsub), s.id); err != nil {
			return 0, err
		}
		link := a.Cfg.BaseURL + "/digest/unsubscribe/" + unsub
		foot := "You get this because you confirmed the weekly digest of " + a.Cfg.SiteName + "."
		err := a.EnqueueMessage(ctx, tx, kernel.Email{Kind: "digest", To: s.email, Subject: is.Subject,
			Text: is.Text + "\n" + foot + " Stop it: " + link + "\n",
			HTML: a.HTMLEmail(is.HTML + `<p style="margin:16px 0 0;font-size:13px;color:#4b5563">` + html.EscapeString(foot) +
				` <a href="` + html.EscapeString(link) + `" style="color:#1d4ed8">Unsubscribe</a>.</p>` + "\n"),
			Headers: map[string]string{"List-Unsubscribe": "<" + link + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}})
		if err != nil {
			return 0, err
		}
	}
	return len(subs), nil
}

// Archive is every sent digest, newest first.
func (a *Service) Archive(ctx context.Context) ([]Issue, error) {
	rows, err := a.DB.R.QueryContext(ctx, `SELECT week, subject, recipients, created_at FROM digests ORDER BY week DESC LIMIT 520`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Issue
	for rows.Next() {
		var is Issue
		if err := rows.Scan(&is.Week, &is.Subject, &is.Recipients, &is.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, is)
	}
	return out, rows.Err()
}

// Get is one week's digest.
func (a *Service) Get(ctx context.Context, week string) (*Issue, error) {
	var is Issue
	err := a.DB.R.QueryRowContext(ctx, `SELECT week, subject, text, html, recipients, created_at FROM digests WHERE week = ?`, week).
		Scan(&is.Week, &is.Subject, &is.Text, &is.HTML, &is.Recipients, &is.CreatedAt)
	if err != nil {
		return nil, kernel.NotFound(err, "digest of the week of "+week)
	}
	return &is, nil
}
