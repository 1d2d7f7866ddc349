package owning

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

// Claim is a request to become an owner of an existing listing.
type Claim struct {
	ID           int64             `json:"id"`
	Listing      string            `json:"listing" doc:"The listing's slug."`
	ListingID    int64             `json:"listing_id"`
	Method       string            `json:"method" enum:"dns,meta,file,email"`
	Status       string            `json:"status" enum:"pending,verified"`
	Email        string            `json:"email,omitempty" format:"email"`
	Instructions ClaimInstructions `json:"instructions"`
	LastError    string            `json:"last_error,omitempty"`
	CreatedAt    string            `json:"created_at" format:"date-time"`
	VerifiedAt   string            `json:"verified_at,omitempty" format:"date-time"`
	Note         string            `json:"note"`
}

// ClaimInstructions say what to publish; the fields present depend on type.
type ClaimInstructions struct {
	Type    string `json:"type" enum:"dns_txt,meta_tag,file,email"`
	Name    string `json:"name,omitempty" doc:"dns_txt: the record name."`
	Value   string `json:"value,omitempty" doc:"dns_txt: the record value."`
	Tag     string `json:"tag,omitempty" doc:"meta_tag: the tag to put in <head>."`
	Page    string `json:"page,omitempty" format:"uri" doc:"meta_tag: the page to put it on."`
	URL     string `json:"url,omitempty" format:"uri" doc:"file: where to serve the file."`
	Content string `json:"content,omitempty" doc:"file: the file's exact content."`
	SentTo  string `json:"sent_to,omitempty" format:"email" doc:"email: where the link went."`
	Then    string `json:"then"`
}

const claimNote = "A verified claim makes you an owner of the listing. Verified is not the same as paid: publishing options are unchanged."

// The verification artefacts each method asks the claimant to publish.
const (
	claimTXTPrefix = "launchdir-verify="
	claimMetaName  = "launchdir-verification"
	claimFilePath  = "/.well-known/launchdir-verification.txt"
)

// siteOrigin is scheme://host of a listing URL: claims are checked on the
// site the listing points at.
func siteOrigin(listingURL string) string {
	u, err := url.Parse(listingURL)
	if err != nil || u.Host == "" {
		return listingURL
	}
	return u.Scheme + "://" + u.Host
}

func (a *Service) claimInstructions(c *Claim, domain, origin, token string) ClaimInstructions {
	switch c.Method {
	case "dns":
		return ClaimInstructions{Type: "dns_txt", Name: "_launchdir." + domain, Value: claimTXTPrefix + token,
			Then: "Publish the TXT record, then call verify_claim. DNS changes can take a while to appear."}
	case "meta":
		return ClaimInstructions{Type: "meta_tag", Tag: fmt.Sprintf(`<meta name="%s" content="%s">`, claimMetaName, token),
			Page: origin + "/", Then: "Add the tag inside <head> of your homepage, then call verify_claim."}
	case "file":
		return ClaimInstructions{Type: "file", URL: origin + claimFilePath, Content: claimTXTPrefix + token,
			Then: "Serve this exact content at that address, then call verify_claim."}
	}
	return ClaimInstructions{Type: "email", SentTo: c.Email,
		Then: "Open the link we emailed to " + c.Email + "; the claim verifies when the link is opened."}
}

func (a *Service) claimListing(ctx context.Context, in *ops.Input) (any, error) {
	uid, slug, method := in.UserID(), in.Str("slug"), in.Str("method")
	email := strings.ToLower(in.Str("email"))
	var (
		listingID       int64
		domain, siteURL string
	)
	err := a.DB.R.QueryRowContext(ctx, `SELECT id, domain, url FROM listings WHERE slug = ? AND status = 'live'`, slug).Scan(&listingID, &domain, &siteURL)
	if err != nil {
		return nil, kernel.WithField(kernel.NotFound(err, "listing "+slug), "slug")
	}
	if err := claimEmailRule(method, email, domain); err != nil {
		return nil, err
	}
	token := kernel.NewSecret("")[:32]
	c := &Claim{Listing: slug, ListingID: listingID, Method: method, Status: "pending", Email: email,
		CreatedAt: a.Now().UTC().Format(time.RFC3339), Note: claimNote}
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, listingID); err == nil {
			return ops.Invalid("slug", "you already own this listing")
		}
		var existing int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM claims WHERE user_id = ? AND listing_id = ? AND status = 'pending'`,
			uid, listingID).Scan(&existing); err == nil {
			return &ops.Error{Code: ops.CodeConflict, Detail: fmt.Sprintf("you already have pending claim %d for this listing; verify it or wait", existing),
				Extra: map[string]any{"claim_id": existing}}
		}
		stored := token
		if method == "email" {
			// The emailed link is a bearer secret: keep only its hash. The
			// other methods' tokens are public by design (published on the site).
			stored = kernel.HashSecret(token)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO claims(listing_id, user_id, method, token, email, status, created_at) VALUES(?,?,?,?,?,'pending',?)`,
			listingID, uid, method, stored, email, c.CreatedAt)
		if err != nil {
			return err
		}
		if c.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := a.notifyClaimFiled(ctx, tx, c.ID); err != nil {
			return err
		}
		if method == "email" {
			link := a.Cfg.BaseURL + "/claims/email/" + url.PathEscape(token)
			body := fmt.Sprintf("Someone asked to claim %s on %s with this address.\n\nTo confirm, open:\n%s\n\nIf this was not you, ignore this email.", slug, a.Cfg.SiteName, link)
			if err := a.EnqueueMail(ctx, tx, "claim_link", email, "Confirm your claim of "+slug, body); err != nil {
				return err
			}
		}
		c.Instructions = a.claimInstructions(c, domain, siteOrigin(siteURL), token)
		return kernel.RespondInTx(ctx, tx, c)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// claimEmailRule: email claims need an address at the listing's domain
// (or a subdomain); other methods take no email.
func claimEmailRule(method, email, domain string) error {
	if method != "email" {
		if email != "" {
			return ops.Invalid("email", "only used with method email")
		}
		return nil
	}
	if email == "" {
		return ops.Invalid("email", "is required for method email")
	}
	at := strings.LastIndex(email, "@")
	host := email[at+1:]
	if host != domain && !strings.HasSuffix(host, "."+domain) {
		return ops.Invalid("email", "must be an address at %s", domain)
	}
	return nil
}

type claimRow struct {
	Claim
	userID int64
	token  string
	domain string
	origin string
}

func (a *Service) loadClaim(ctx context.Context, q kernel.Querier, uid, id int64) (*claimRow, error) {
	var c claimRow
	var verified sql.NullString
	err := q.QueryRowContext(ctx, `SELECT c.id, l.slug, c.listing_id, c.method, c.status, c.email, c.last_error, c.created_at,
		c.verified_at, c.user_id, c.token, l.domain, l.url FROM claims c JOIN listings l ON l.id = c.listing_id WHERE c.id = ? AND c.user_id = ?`, id, uid).
		Scan(&c.ID, &c.Listing, &c.ListingID, &c.Method, &c.Status, &c.Email, &c.LastError, &c.CreatedAt, &verified, &c.userID, &c.token, &c.domain, &c.origin)
	if db.IsNoRows(err) {
		return nil, &ops.Error{Code: ops.CodeNotFound, Detail: "claim not found among your claims",
			Fields: []ops.FieldError{{Field: "claim_id", Message: "no claim of yours has this id"}}}
	}
	c.VerifiedAt = verified.String
	c.Note = claimNote
	c.origin = siteOrigin(c.origin)
	c.Instructions = a.claimInstructions(&c.Claim, c.domain, c.origin, c.token)
	return &c, err
}

// verifyClaim checks the published artefact. A check that does not find it
// is not an error of the request: the claim stays pending with last_error.
func (a *Service) verifyClaim(ctx context.Context, in *ops.Input) (any, error) {
	uid, id := in.UserID(), in.Int("claim_id")
	c, err := a.loadClaim(ctx, a.DB.R, uid, id)
	if err != nil {
		return nil, err
	}
	if c.Status != "pending" {
		return c.Claim, nil
	}
	if c.Method == "email" {
		c.LastError = "email claims verify when the emailed link is opened"
		return c.Claim, nil
	}
	found, reason := a.checkClaim(ctx, c)
	var out Claim
	err = a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if !found {
			if _, err := tx.ExecContext(ctx, `UPDATE claims SET last_error = ? WHERE id = ? AND status = 'pending'`, reason, id); err != nil {
				return err
			}
		} else if err := a.grantClaim(ctx, tx, c.ID); err != nil {
			return err
		}
		after, err := a.loadClaim(ctx, tx, uid, id)
		if err != nil {
			return err
		}
		out = after.Claim
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkClaim looks for the artefact the claim's method asked for.
func (a *Service) checkClaim(ctx context.Context, c *claimRow) (bool, string) {
	switch c.Method {
	case "dns":
		name := "_launchdir." + c.domain
		txts, err := a.Ext.Resolver.LookupTXT(ctx, name)
		if err != nil {
			return false, "DNS lookup of " + name + " failed: " + err.Error()
		}
		for _, t := range txts {
			if strings.TrimSpace(t) == claimTXTPrefix+c.token {
				return true, ""
			}
		}
		return false, "no TXT record " + claimTXTPrefix + c.token + " at " + name
	case "meta":
		page := c.origin + "/"
		html, err := a.Ext.Fetcher.FetchHTML(ctx, page)
		if err != nil {
			return false, "could not read " + page + ": " + err.Error()
		}
		if hasMetaTag(html, c.token) {
			return true, ""
		}
		return false, "the meta tag " + claimMetaName + " with your token is not on " + page
	default: // file
		u := c.origin + claimFilePath
		body, err := a.Ext.Fetcher.FetchHTML(ctx, u)
		if err != nil {
			return false, "could not read " + u + ": " + err.Error()
		}
		if strings.TrimSpace(body) == claimTXTPrefix+c.token {
			return true, ""
		}
		return false, u + " does not hold exactly " + claimTXTPrefix + c.token
	}
}

// hasMetaTag finds <meta name="launchdir-verification" content="token">
// regardless of attribute order and quoting.
func hasMetaTag(html, token string) bool {
	lower := strings.ToLower(html)
	for i := 0; ; {
		j := strings.Index(lower[i:], "<meta")
		if j < 0 {
			return false
		}
		start := i + j
		end := strings.Index(lower[start:], ">")
		if end < 0 {
			return false
		}
		tag := html[start : start+end]
		if strings.Contains(strings.ToLower(tag), claimMetaName) && strings.Contains(tag, token) {
			return true
		}
		i = start + end
	}
}

// grantClaim marks the claim verified and makes the claimant an owner.
func (a *Service) grantClaim(ctx context.Context, tx *sql.Tx, claimID int64) error {
	now := a.Now().UTC().Format(time.RFC3339)
	var listingID, userID int64
	err := tx.QueryRowContext(ctx, `SELECT listing_id, user_id FROM claims WHERE id = ? AND status = 'pending'`, claimID).
		Scan(&listingID, &userID)
	if db.IsNoRows(err) {
		return nil // a parallel verification granted it already
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE claims SET status = 'verified', verified_at = ?, last_error = '' WHERE id = ?`, now, claimID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO listing_owners(listing_id, user_id, role, created_at) VALUES(?,?,'claimed',?)`,
		listingID, userID, now); err != nil {
		return err
	}
	if err := a.notifyClaimGranted(ctx, tx, claimID); err != nil {
		return err
	}
	return a.Revise(ctx, tx, "listing_owner", listingID, listingID, userID, "verify_claim", nil, map[string]any{"claim_id": claimID, "role": "claimed"})
}

// ClaimEmailPending reports the listing of a pending email claim link.
func (a *Service) ClaimEmailPending(ctx context.Context, token string) (string, error) {
	var slug string
	err := a.DB.R.QueryRowContext(ctx, `SELECT l.slug FROM claims c JOIN listings l ON l.id = c.listing_id
		WHERE c.token = ? AND c.method = 'email' AND c.status = 'pending'`, kernel.HashSecret(token)).Scan(&slug)
	return slug, kernel.NotFound(err, "pending claim for this link")
}

// VerifyClaimEmail verifies an email claim when its link is confirmed.
func (a *Service) VerifyClaimEmail(ctx context.Context, token string) (string, error) {
	var slug string
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT c.id, l.slug FROM claims c JOIN listings l ON l.id = c.listing_id
			WHERE c.token = ? AND c.method = 'email' AND c.status = 'pending'`, kernel.HashSecret(token)).Scan(&id, &slug)
		if err != nil {
			return kernel.NotFound(err, "pending claim for this link")
		}
		return a.grantClaim(ctx, tx, id)
	})
	return slug, err
}

func (a *Service) listMyClaims(ctx context.Context, in *ops.Input) (any, error) {
	off, lim := kernel.Offset(in)
	uid := in.UserID()
	total, err := a.DB.Count(ctx, `SELECT count(*) FROM claims WHERE user_id = ?`, uid)
	if err != nil {
		return nil, err
	}
	ids, err := db.Column[int64](ctx, a.DB.R, `SELECT id FROM claims WHERE user_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, uid, lim, off)
	if err != nil {
		return nil, err
	}
	items := []Claim{}
	for _, id := range ids {
		c, err := a.loadClaim(ctx, a.DB.R, uid, id)
		if err != nil {
			return nil, err
		}
		items = append(items, c.Claim)
	}
	return kernel.NewPage(in, items, total), nil
}
