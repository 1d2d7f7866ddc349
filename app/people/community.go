package people

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Votes, follows, reviews and reports by people signed in on the site.
// Every counter the API reads (listings.votes, weekly_votes, trending,
// follows, rating_sum/rating_count) changes in the same transaction as the
// row that it counts.

// VoteState is a person's vote on a listing after a toggle.
type VoteState struct {
	Voted   bool // the person has a vote on the listing this launch week
	Counted bool // that vote counts toward boards, awards and badges
	Held    bool // not counted until the site team reviews a suspected ring
	Votes   int  // the listing's counted votes this launch week
}

// communityListing is what the rules need to know about a listing.
type communityListing struct {
	ID         int64
	Name, Slug string
	Status     string
	LaunchWeek string
}

// actionListing finds a listing people can act on. Unpublished listings are
// 404; scheduled ones are public but not open yet (field "listing").
func (a *Service) actionListing(ctx context.Context, q kernel.Querier, slug, action string) (*communityListing, error) {
	var l communityListing
	err := q.QueryRowContext(ctx, `SELECT id, name, slug, status, coalesce(launch_week,'') FROM listings WHERE slug = `+db.TextArg, slug).
		Scan(&l.ID, &l.Name, &l.Slug, &l.Status, &l.LaunchWeek)
	if db.IsNoRows(err) || (err == nil && l.Status != "live" && l.Status != "scheduled") {
		return nil, ops.NotFound("listing " + slug)
	}
	if err != nil {
		return nil, err
	}
	if shown, err := kernel.ShownHere(ctx, q, l.ID); err != nil || !shown {
		if err == nil {
			err = ops.NotFound("listing " + slug)
		}
		return nil, err
	}
	if l.Status == "scheduled" {
		return nil, ops.Invalid("listing", "%s launches in the week of %s: %s opens then", l.Name, l.LaunchWeek, action)
	}
	return &l, nil
}

// voterState is what decides whether a person's vote counts.
type voterState struct {
	verified, banned, owner bool
	created                 time.Time
}

func (a *Service) voter(ctx context.Context, q kernel.Querier, userID, listingID int64) (voterState, error) {
	var v voterState
	var verified sql.NullString
	var created string
	err := q.QueryRowContext(ctx, `SELECT u.verified_at, u.created_at,
		EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = u.id),
		EXISTS(SELECT 1 FROM listing_owners o WHERE o.user_id = u.id AND o.listing_id = `+db.IntArg+`)
		FROM users u WHERE u.id = `+db.IntArg, listingID, userID).Scan(&verified, &created, &v.banned, &v.owner)
	if err != nil {
		return v, kernel.NotFound(err, "account")
	}
	v.verified = verified.Valid
	v.created, _ = time.Parse(time.RFC3339, created)
	return v, nil
}

// voteMinAge is how old an account must be for its votes to count.
func (a *Service) voteMinAge() time.Duration {
	switch d := a.Cfg.VoteMinAccountAge; {
	case d == 0:
		return defaultVoteMinAge
	case d < 0:
		return 0
	default:
		return d
	}
}

// counts: a vote counts when, as it is cast, the account is verified, at
// least voteMinAge old and not an owner of the listing.
func (a *Service) counts(v voterState) bool {
	return v.verified && !v.owner && !v.banned && a.Now().Sub(v.created) >= a.voteMinAge()
}

// ToggleVote casts or withdraws the person's vote on a live listing for the
// current launch week (Monday to Sunday, UTC). Votes of owners, unverified
// and too-new accounts are stored but not counted; banned accounts cannot
// vote. Toggles are rate-limited per account and per address.
func (a *Service) ToggleVote(ctx context.Context, userID int64, slug, ip string) (VoteState, error) {
	var st VoteState
	now := a.Now()
	// Both limits are reserved before the work and given back if the
	// toggle fails, so 45 parallel toggles cannot all pass a check that
	// counts only after them.
	uk, ik := limitKey{"user:" + strconv.FormatInt(userID, 10), maxVotesPerUser}, limitKey{"ip:" + ip, maxVotesPerIP}
	if w := a.runtime.votes.reserve(now, uk); w > 0 {
		return st, rateLimited(w, "You have voted %d times in %d minutes, the most one account may.", maxVotesPerUser, int(voteWindow/time.Minute))
	}
	if w := a.runtime.votes.reserve(now, ik); w > 0 {
		a.runtime.votes.release(uk)
		return st, rateLimited(w, "Too many votes from your network address (%d in %d minutes).", maxVotesPerIP, int(voteWindow/time.Minute))
	}
	week, network := kernel.WeekOf(now), Network(ip)
	site := a.SiteKey(ctx)
	if site != kernel.MainSite {
		err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
			var err error
			st, err = a.toggleSiteVote(ctx, tx, site, userID, slug, week, ip, network)
			return err
		})
		if err != nil {
			a.runtime.votes.release(uk, ik)
			return VoteState{}, err
		}
		return st, nil
	}
	// Votes share commits (GroupTx): on a launch day they are most of the
	// writes, and the commit, not the statements, is most of a vote's cost.
	// fn may run twice (its batch rolled back), so it starts afresh.
	err := a.DB.GroupTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		st = VoteState{}
		// Prepared statements, their values bound without a plan per value
		// (db.IntArg): parsing was a quarter of a vote's CPU.
		q := a.DB.Prepared(tx)
		l, err := a.actionListing(ctx, q, slug, "voting")
		if err != nil {
			return err
		}
		v, err := a.voter(ctx, q, userID, l.ID)
		if err != nil {
			return err
		}
		if v.banned {
			return &ops.Error{Code: ops.CodeForbidden, Detail: "this account can no longer vote"}
		}
		voter := strconv.FormatInt(userID, 10)
		var counted bool
		const vote = ` FROM votes WHERE listing_id = ` + db.IntArg + ` AND voter = ` + db.TextArg + ` AND week = ` + db.TextArg
		err = q.QueryRowContext(ctx, `SELECT counted`+vote, l.ID, voter, week).Scan(&counted)
		switch {
		case err == nil: // withdraw
			if _, err := q.ExecContext(ctx, `DELETE`+vote, l.ID, voter, week); err != nil {
				return err
			}
			if counted {
				if err := countVote(ctx, q, l.ID, week, -1); err != nil {
					return err
				}
			}
		case db.IsNoRows(err): // cast
			st.Voted, st.Counted = true, a.counts(v)
			var ring any
			if st.Counted {
				id, err := a.ringFor(ctx, tx, userID, l.ID, week, network)
				if err != nil {
					return err
				}
				if id != 0 {
					st.Counted, st.Held, ring = false, true, id // held for the site team
				}
			}
			if _, err := q.ExecContext(ctx, `INSERT INTO votes(listing_id, voter, week, created_at, counted, ip, net, ring_id) VALUES(?,?,?,?,?,?,?,?)`,
				l.ID, voter, week, a.NowText(), st.Counted, ip, network, ring); err != nil {
				return err
			}
			if st.Counted {
				if err := countVote(ctx, q, l.ID, week, +1); err != nil {
					return err
				}
				if err := a.voteMilestone(ctx, tx, l.ID); err != nil {
					return err
				}
			}
		default:
			return err
		}
		return q.QueryRowContext(ctx, `SELECT coalesce((SELECT votes FROM weekly_votes WHERE week = `+db.TextArg+` AND listing_id = `+db.IntArg+`), 0)`,
			week, l.ID).Scan(&st.Votes)
	})
	if err != nil {
		a.runtime.votes.release(uk, ik)
		return VoteState{}, err
	}
	return st, nil
}

// toggleSiteVote is ToggleVote on another site than main: the vote is that
// site's (site_votes), counted by the same rule (counts), and moves that
// site's counters only (listing_sites.votes, site_weekly_votes and through
// them site_launches); main's votes, ranks and trending do not move. A
// listing the site does not show is not found there. Suspected rings are
// watched on main, where the network's votes concentrate; a site's votes
// are not held for review.
func (a *Service) toggleSiteVote(ctx context.Context, tx *sql.Tx, site string, userID int64, slug, week, ip, network string) (VoteState, error) {
	var st VoteState
	l, err := a.actionListing(ctx, tx, slug, "voting")
	if err != nil {
		return st, err
	}
	var on bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS(SELECT 1 FROM listing_sites WHERE site_key = ? AND listing_id = ?)`, site, l.ID).Scan(&on); err != nil {
		return st, err
	}
	if !on {
		return st, ops.NotFound("listing " + slug)
	}
	v, err := a.voter(ctx, tx, userID, l.ID)
	if err != nil {
		return st, err
	}
	if v.banned {
		return st, &ops.Error{Code: ops.CodeForbidden, Detail: "this account can no longer vote"}
	}
	voter := strconv.FormatInt(userID, 10)
	var counted bool
	err = tx.QueryRowContext(ctx, `SELECT counted FROM site_votes WHERE site_key = ? AND listing_id = ? AND voter = ? AND week = ?`, site, l.ID, voter, week).Scan(&counted)
	delta := 0
	switch {
	case err == nil: // withdraw
		if _, err := tx.ExecContext(ctx, `DELETE FROM site_votes WHERE site_key = ? AND listing_id = ? AND voter = ? AND week = ?`, site, l.ID, voter, week); err != nil {
			return st, err
		}
		if counted {
			delta = -1
		}
	case db.IsNoRows(err): // cast
		st.Voted, st.Counted = true, a.counts(v)
		if _, err := tx.ExecContext(ctx, `INSERT INTO site_votes(site_key, listing_id, voter, week, created_at, counted, ip, net) VALUES(?,?,?,?,?,?,?,?)`,
			site, l.ID, voter, week, a.NowText(), st.Counted, ip, network); err != nil {
			return st, err
		}
		if st.Counted {
			delta = 1
		}
	default:
		return st, err
	}
	if delta != 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE listing_sites SET votes = max(0, votes + ?1) WHERE site_key = ?2 AND listing_id = ?3`, delta, site, l.ID); err != nil {
			return st, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO site_weekly_votes(site_key, week, listing_id, votes) VALUES(?1, ?2, ?3, max(0, ?4))
			ON CONFLICT(site_key, week, listing_id) DO UPDATE SET votes = max(0, votes + ?4)`, site, week, l.ID, delta); err != nil {
			return st, err
		}
	}
	err = tx.QueryRowContext(ctx, `SELECT coalesce((SELECT votes FROM site_weekly_votes WHERE site_key = ? AND week = ? AND listing_id = ?), 0)`, site, week, l.ID).Scan(&st.Votes)
	return st, err
}

// countVote moves every counter of one counted vote by delta (+1 or -1):
// all-time votes, the week's votes (weekly board, badge rank, awards) and
// trending (a vote of the last 7 days weighs 1; the demo's score).
func countVote(ctx context.Context, tx kernel.Execer, listingID int64, week string, delta int) error {
	if _, err := tx.ExecContext(ctx, `UPDATE listings SET votes = max(0, votes + ?1), trending = max(0, round(trending + ?1, 3)) WHERE id = ?2`,
		delta, listingID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO weekly_votes(week, listing_id, votes) VALUES(?1, ?2, max(0, ?3))
		ON CONFLICT(week, listing_id) DO UPDATE SET votes = max(0, votes + ?3)`, week, listingID, delta)
	return err
}

// RecountVotes recomputes a listing's vote counters from the counted
// votes (all-time and every week). Tests compare it with the maintained
// counters; it is also the repair tool after manual edits.
func RecountVotes(ctx context.Context, tx *sql.Tx, listingID int64) error {
	if _, err := tx.ExecContext(ctx, `UPDATE listings SET votes = (SELECT count(*) FROM votes WHERE listing_id = ?1 AND counted) WHERE id = ?1`, listingID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM weekly_votes WHERE listing_id = ?`, listingID); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO weekly_votes(week, listing_id, votes) SELECT week, listing_id, count(*) FROM votes
		WHERE listing_id = ? AND counted GROUP BY week`, listingID)
	return err
}

// ToggleFollow follows or unfollows a live listing.
func (a *Service) ToggleFollow(ctx context.Context, userID int64, slug string) (bool, error) {
	var following bool
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		l, err := a.actionListing(ctx, tx, slug, "following")
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM follows WHERE listing_id = ? AND user_id = ?`, l.ID, userID)
		if err != nil {
			return err
		}
		delta := -1
		if n, _ := res.RowsAffected(); n == 0 {
			following, delta = true, 1
			if _, err := tx.ExecContext(ctx, `INSERT INTO follows(listing_id, user_id, created_at) VALUES(?,?,?)`, l.ID, userID, a.NowText()); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE listings SET follows = max(0, follows + ?) WHERE id = ?`, delta, l.ID)
		return err
	})
	return following, err
}

// checkPaging applies the API's pagination bounds (field page/per_page).
func checkPaging(page, perPage int) (int, int, error) {
	if page == 0 {
		page = 1
	}
	if perPage == 0 {
		perPage = 20
	}
	if page < 1 || page > 1000 {
		return 0, 0, ops.Invalid("page", "must be 1 to 1000")
	}
	if perPage < 1 || perPage > 100 {
		return 0, 0, ops.Invalid("per_page", "must be 1 to 100")
	}
	return page, perPage, nil
}

// Following lists the live listings a person follows, newest follow first.
func (a *Service) Following(ctx context.Context, userID int64, page, perPage int) (kernel.Page[db.Summary], error) {
	page, perPage, err := checkPaging(page, perPage)
	if err != nil {
		return kernel.Page[db.Summary]{}, err
	}
	out := kernel.Page[db.Summary]{Page: page, PerPage: perPage}
	if out.Total, err = a.DB.Count(ctx, `SELECT count(*) FROM follows f JOIN listings l ON l.id = f.listing_id
		WHERE f.user_id = ? AND l.status = 'live'`, userID); err != nil {
		return out, err
	}
	out.Items, err = a.DB.Summaries(ctx, ` JOIN follows f ON f.listing_id = l.id WHERE f.user_id = ? AND l.status = 'live'
		ORDER BY f.created_at DESC, l.id DESC LIMIT ? OFFSET ?`, userID, perPage, (page-1)*perPage)
	if out.Items == nil {
		out.Items = []db.Summary{}
	}
	return out, err
}

// Unsubscribe stops update emails of one listing for the follower an email
// was sent to (the person still follows it). The link works repeatedly
// for a year.
//
// A notification email's link (kernel.Notify) turns off that kind of
// email instead.
func (a *Service) Unsubscribe(ctx context.Context, token string) error {
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if found, err := a.UnsubscribeNotification(ctx, tx, token); found || err != nil {
			return err
		}
		uid, lid, err := a.useToken(ctx, tx, "unsubscribe", token, "token", true)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE follows SET notify = 0 WHERE user_id = ? AND listing_id = ?`, uid, lid)
		return err
	})
}

// NotifyFollowers queues one email per follower who wants them, each with
// its own unsubscribe link (also as List-Unsubscribe, one-click).
func (a *Service) NotifyFollowers(ctx context.Context, tx *sql.Tx, listingID int64, u db.Update) (int, error) {
	var name, slug string
	if err := tx.QueryRowContext(ctx, `SELECT name, slug FROM listings WHERE id = ?`, listingID).Scan(&name, &slug); err != nil {
		return 0, err
	}
	type follower struct {
		id    int64
		email string
	}
	rows, err := tx.QueryContext(ctx, `SELECT u.id, u.email FROM follows f JOIN users u ON u.id = f.user_id
		WHERE f.listing_id = ? AND f.notify AND NOT EXISTS(SELECT 1 FROM account_bans b WHERE b.user_id = u.id) ORDER BY u.id`, listingID)
	if err != nil {
		return 0, err
	}
	var fs []follower
	for rows.Next() {
		var f follower
		if err := rows.Scan(&f.id, &f.email); err != nil {
			rows.Close()
			return 0, err
		}
		fs = append(fs, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	subject := name + ": " + u.Title
	page := a.ListingURL(ctx, slug)
	for _, f := range fs {
		tok, err := a.newPersonToken(ctx, tx, "unsubscribe", f.id, listingID, unsubTTL)
		if err != nil {
			return 0, err
		}
		unsub := a.Origin(ctx) + "/unsubscribe/" + tok
		text := name + " posted an update.\n\n" + u.Title + "\n\n" + u.Body + "\n\nSee " + page +
			"\n\nYou get this because you follow " + name + " on " + a.SiteName(ctx) + ". Stop these emails: " + unsub + "\n"
		html := a.HTMLEmail(ctx, kernel.Paragraph(name+" posted an update.")+"<h2 style=\"font-size:18px;margin:0 0 12px\">"+kernel.Escape(u.Title)+"</h2>\n"+
			kernel.Paragraph(u.Body)+kernel.ButtonHTML(page, "See "+name)+
			`<p style="margin:16px 0 0;font-size:13px;color:#4b5563">You get this because you follow `+kernel.Escape(name)+` on `+kernel.Escape(a.SiteName(ctx))+
			`. <a href="`+kernel.Escape(unsub)+`" style="color:#1d4ed8">Unsubscribe from these emails</a>.</p>`+"\n")
		err = a.EnqueueMessage(ctx, tx, kernel.Email{Kind: "follower_update", To: f.email, Subject: subject, Text: text, HTML: html,
			Headers: map[string]string{"List-Unsubscribe": "<" + unsub + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}})
		if err != nil {
			return 0, err
		}
	}
	return len(fs), nil
}

const maxReportReason = 500

// Report puts a listing (target = its slug) or a review (target = its id)
// in the site team's moderation queue. Reporting the same thing again
// while the first report is open changes nothing.
func (a *Service) Report(ctx context.Context, userID int64, kind, target, reason string) error {
	reason = strings.TrimSpace(reason)
	if n := utf8.RuneCountInString(reason); n < 1 || n > maxReportReason {
		return ops.Invalid("reason", "say what is wrong in 1 to %d characters", maxReportReason)
	}
	return a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var listingID int64
		var reviewID any
		switch kind {
		case "listing":
			err := tx.QueryRowContext(ctx, `SELECT id FROM listings WHERE slug = ? AND status IN ('live','scheduled')`, target).Scan(&listingID)
			if err != nil {
				return kernel.NotFound(err, "listing "+target)
			}
		case "review":
			rid, err := strconv.ParseInt(target, 10, 64)
			if err != nil {
				return ops.NotFound("review " + target)
			}
			err = tx.QueryRowContext(ctx, `SELECT r.listing_id FROM reviews r JOIN listings l ON l.id = r.listing_id
				WHERE r.id = ? AND r.hidden_at IS NULL AND l.status = 'live'`, rid).Scan(&listingID)
			if err != nil {
				return kernel.NotFound(err, "review "+target)
			}
			reviewID = rid
		default:
			return ops.Invalid("kind", "must be listing or review")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO reports(user_id, kind, listing_id, review_id, reason, created_at) VALUES(?,?,?,?,?,?)
			ON CONFLICT DO NOTHING`, userID, kind, listingID, reviewID, reason, a.NowText())
		return err
	})
}

// Viewer is what a signed-in person has done on one listing.
type Viewer struct {
	Voted     bool // this launch week
	Following bool
	MyReview  *Review
	IsOwner   bool
}

// ViewerOf tells the listing page what the person already did.
func (a *Service) ViewerOf(ctx context.Context, userID int64, slug string) (Viewer, error) {
	var v Viewer
	var id, reviewID int64
	err := a.DB.R.QueryRowContext(ctx, `SELECT l.id,
		EXISTS(SELECT 1 FROM votes WHERE listing_id = l.id AND voter = ?2 AND week = ?3),
		EXISTS(SELECT 1 FROM follows WHERE listing_id = l.id AND user_id = ?1),
		EXISTS(SELECT 1 FROM listing_owners WHERE listing_id = l.id AND user_id = ?1),
		coalesce((SELECT id FROM reviews WHERE listing_id = l.id AND user_id = ?1), 0)
		FROM listings l WHERE l.slug = ?4 AND l.status IN ('live','scheduled')`,
		userID, strconv.FormatInt(userID, 10), kernel.WeekOf(a.Now()), slug).Scan(&id, &v.Voted, &v.Following, &v.IsOwner, &reviewID)
	if err != nil {
		return v, kernel.NotFound(err, "listing "+slug)
	}
	if reviewID > 0 {
		if v.MyReview, err = a.reviewByID(ctx, reviewID); err != nil {
			return v, err
		}
	}
	return v, nil
}

// VotedAmong tells which of a page's listings (by id) the person voted for
// in this launch week (what ViewerOf calls Voted), in one query for the page.
func (a *Service) VotedAmong(ctx context.Context, userID int64, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	list, _ := json.Marshal(ids)
	rows, err := a.DB.Prepared(a.DB.R).QueryContext(ctx, `SELECT v.listing_id FROM votes v
		WHERE v.voter = ? AND v.week = ? AND v.listing_id IN (SELECT value FROM json_each(?))`,
		strconv.FormatInt(userID, 10), kernel.WeekOf(a.Now()), string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
