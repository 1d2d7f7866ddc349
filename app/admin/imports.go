package admin

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"launchdir/app/commerce"
	"launchdir/app/kernel"
	"launchdir/ops"
)

// Data boards: the site team imports Domain Rating and revenue figures from
// CSV. An import is parsed and validated whole (every bad cell reported with
// its line and column), previewed, then applied in one transaction. Each
// figure keeps its source and date, which the boards show.

// Import kinds and their CSV columns (header row required, any order).
const (
	ImportDomainRating = "domain_rating" // slug or domain, domain_rating (0..100)
	ImportRevenue      = "revenue"       // slug or domain, mrr_cents, currency (default USD), verified (true/false)
)

// Bounds of an import.
const (
	MaxImportBytes = 2 << 20
	MaxImportRows  = 10000
	maxSourceLen   = 100
)

// ImportRequest is what the import form sends.
type ImportRequest struct {
	Kind   string // domain_rating or revenue
	Source string // e.g. "Ahrefs export" or "Stripe dashboards"
	AsOf   string // YYYY-MM-DD the figures were measured
	CSV    []byte
}

// ImportError is one problem, at a line (1 = the header) and column.
type ImportError struct {
	Line    int    `json:"line"`
	Column  string `json:"column"`
	Message string `json:"message"`
}

func (e ImportError) String() string {
	if e.Column == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return fmt.Sprintf("line %d, column %s: %s", e.Line, e.Column, e.Message)
}

// ImportRow is one valid row with the value it replaces.
type ImportRow struct {
	Line        int    `json:"line"`
	ListingID   int64  `json:"listing_id"`
	ListingName string `json:"listing_name"`
	Slug        string `json:"slug"`
	Old         string `json:"old"` // current figure, "" if none
	New         string `json:"new"`

	value    int64
	currency string
	verified bool
}

// ImportPreview is the parsed import: rows to apply, or errors.
type ImportPreview struct {
	Kind   string        `json:"kind"`
	Source string        `json:"source"`
	AsOf   string        `json:"as_of"`
	Rows   []ImportRow   `json:"rows"`
	Errors []ImportError `json:"errors"`
}

// PreviewImport validates an import without changing anything.
func (a *Service) PreviewImport(ctx context.Context, adminID int64, req ImportRequest) (*ImportPreview, error) {
	if err := a.requireAdmin(ctx, adminID); err != nil {
		return nil, err
	}
	return a.parseImport(ctx, a.DB.R, req)
}

// ApplyImport validates again and writes every row in one transaction; any
// error leaves everything unchanged.
func (a *Service) ApplyImport(ctx context.Context, adminID int64, req ImportRequest) (*ImportPreview, error) {
	var p *ImportPreview
	err := a.adminTx(ctx, adminID, func(tx *sql.Tx) error {
		var err error
		if p, err = a.parseImport(ctx, tx, req); err != nil {
			return err
		}
		if len(p.Errors) > 0 {
			return importInvalid(p.Errors)
		}
		for _, r := range p.Rows {
			if err := a.applyImportRow(ctx, tx, p, r); err != nil {
				return err
			}
		}
		return a.audit(ctx, tx, adminID, "import_"+p.Kind, fmt.Sprintf("%d rows from %s as of %s", len(p.Rows), p.Source, p.AsOf),
			nil, map[string]any{"rows": len(p.Rows), "source": p.Source, "as_of": p.AsOf})
	})
	return p, err
}

func importInvalid(errs []ImportError) error {
	fields := make([]ops.FieldError, 0, len(errs))
	for _, e := range errs {
		fields = append(fields, ops.FieldError{Field: fmt.Sprintf("csv[line %d].%s", e.Line, e.Column), Message: e.Message})
	}
	err := ops.InvalidFields(fields)
	err.Detail = fmt.Sprintf("the CSV has %d errors; nothing was imported; first: %s", len(errs), errs[0])
	return err
}

func (a *Service) applyImportRow(ctx context.Context, tx *sql.Tx, p *ImportPreview, r ImportRow) error {
	switch p.Kind {
	case ImportDomainRating:
		if _, err := tx.ExecContext(ctx, `INSERT INTO domain_ratings(listing_id, measured_on, rating, source) VALUES(?,?,?,?)
			ON CONFLICT(listing_id, measured_on) DO UPDATE SET rating = excluded.rating, source = excluded.source`,
			r.ListingID, p.AsOf, r.value, p.Source); err != nil {
			return err
		}
		// The listing shows its newest measurement.
		_, err := tx.ExecContext(ctx, `UPDATE listings SET domain_rating = (SELECT rating FROM domain_ratings
			WHERE listing_id = ?1 ORDER BY measured_on DESC LIMIT 1) WHERE id = ?1`, r.ListingID)
		return err
	case ImportRevenue:
		_, err := tx.ExecContext(ctx, `INSERT INTO revenue(listing_id, mrr_cents, currency, verified, source, updated_at) VALUES(?,?,?,?,?,?)
			ON CONFLICT(listing_id) DO UPDATE SET mrr_cents = excluded.mrr_cents, currency = excluded.currency,
			verified = excluded.verified, source = excluded.source, updated_at = excluded.updated_at`,
			r.ListingID, r.value, r.currency, r.verified, p.Source, p.AsOf)
		return err
	}
	return nil
}

func (a *Service) parseImport(ctx context.Context, q kernel.RowsQuerier, req ImportRequest) (*ImportPreview, error) {
	p := &ImportPreview{Kind: req.Kind, Source: strings.TrimSpace(req.Source), AsOf: strings.TrimSpace(req.AsOf),
		Rows: []ImportRow{}, Errors: []ImportError{}}
	var bad []ops.FieldError
	if p.Kind != ImportDomainRating && p.Kind != ImportRevenue {
		bad = append(bad, kernel.FieldErr("kind", "must be domain_rating or revenue"))
	}
	if n := utf8.RuneCountInString(p.Source); n < 1 || n > maxSourceLen {
		bad = append(bad, kernel.FieldErr("source", "name where the figures come from (1..100 characters), e.g. Ahrefs export"))
	}
	if d, err := time.Parse(kernel.DateLayout, p.AsOf); err != nil {
		bad = append(bad, kernel.FieldErr("as_of", "must be the date the figures were measured, as YYYY-MM-DD"))
	} else if d.After(a.Now().UTC()) {
		bad = append(bad, kernel.FieldErr("as_of", "cannot be in the future"))
	} else if d.Year() < 2000 {
		bad = append(bad, kernel.FieldErr("as_of", "must be 2000 or later"))
	}
	if len(req.CSV) == 0 {
		bad = append(bad, kernel.FieldErr("csv", "the file is empty"))
	} else if len(req.CSV) > MaxImportBytes {
		bad = append(bad, kernel.FieldErr("csv", "the file is larger than 2 MiB"))
	} else if !utf8.Valid(req.CSV) {
		bad = append(bad, kernel.FieldErr("csv", "the file is not UTF-8 text"))
	}
	if len(bad) > 0 {
		return nil, ops.InvalidFields(bad)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(req.CSV, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil {
		p.Errors = append(p.Errors, ImportError{Line: 1, Message: "cannot read the header row: " + err.Error()})
		return p, nil
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.ToLower(strings.TrimSpace(h))] = i
	}
	_, hasSlug := cols["slug"]
	_, hasDomain := cols["domain"]
	if !hasSlug && !hasDomain {
		p.Errors = append(p.Errors, ImportError{Line: 1, Message: "the header needs a slug or domain column"})
	}
	valueCol := "domain_rating"
	if p.Kind == ImportRevenue {
		valueCol = "mrr_cents"
	}
	if _, ok := cols[valueCol]; !ok {
		p.Errors = append(p.Errors, ImportError{Line: 1, Message: "the header needs a " + valueCol + " column"})
	}
	if len(p.Errors) > 0 {
		return p, nil
	}
	seen := map[int64]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			p.Errors = append(p.Errors, ImportError{Line: line, Message: "not valid CSV: " + err.Error()})
			break
		}
		line, _ := r.FieldPos(0)
		if len(p.Rows)+len(p.Errors) >= MaxImportRows {
			p.Errors = append(p.Errors, ImportError{Line: line, Message: fmt.Sprintf("more than %d rows; split the file", MaxImportRows)})
			break
		}
		cell := func(name string) string {
			if i, ok := cols[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		if strings.Join(rec, "") == "" {
			continue // blank line
		}
		row, rowErrs := a.importRow(ctx, q, p.Kind, line, cell)
		if len(rowErrs) == 0 {
			if first, dup := seen[row.ListingID]; dup {
				rowErrs = append(rowErrs, ImportError{Line: line, Column: "slug", Message: fmt.Sprintf("the same listing is already on line %d", first)})
			}
			seen[row.ListingID] = line
		}
		if len(rowErrs) > 0 {
			p.Errors = append(p.Errors, rowErrs...)
			continue
		}
		p.Rows = append(p.Rows, *row)
	}
	if len(p.Rows) == 0 && len(p.Errors) == 0 {
		p.Errors = append(p.Errors, ImportError{Line: 2, Message: "the file has no data rows"})
	}
	return p, nil
}

func (a *Service) importRow(ctx context.Context, q kernel.RowsQuerier, kind string, line int, cell func(string) string) (*ImportRow, []ImportError) {
	var errs []ImportError
	row := &ImportRow{Line: line, currency: "USD"}
	slug, domain := cell("slug"), cell("domain")
	var err error
	switch {
	case slug != "":
		err = q.QueryRowContext(ctx, `SELECT id, name, slug FROM listings WHERE slug = ?`, slug).Scan(&row.ListingID, &row.ListingName, &row.Slug)
		if err != nil {
			errs = append(errs, ImportError{Line: line, Column: "slug", Message: "no listing has the slug " + strconv.Quote(slug)})
		}
	case domain != "":
		d := strings.TrimPrefix(strings.ToLower(domain), "www.")
		err = q.QueryRowContext(ctx, `SELECT id, name, slug FROM listings WHERE domain = ? ORDER BY status = 'live' DESC, id LIMIT 1`, d).
			Scan(&row.ListingID, &row.ListingName, &row.Slug)
		if err != nil {
			errs = append(errs, ImportError{Line: line, Column: "domain", Message: "no listing has the domain " + strconv.Quote(domain)})
		}
	default:
		errs = append(errs, ImportError{Line: line, Column: "slug", Message: "give the listing's slug or domain"})
	}
	switch kind {
	case ImportDomainRating:
		v, perr := strconv.ParseInt(cell("domain_rating"), 10, 64)
		if perr != nil || v < 0 || v > 100 {
			errs = append(errs, ImportError{Line: line, Column: "domain_rating", Message: "must be a whole number 0..100"})
		}
		row.value, row.New = v, strconv.FormatInt(v, 10)
		if len(errs) == 0 {
			var old sql.NullInt64
			q.QueryRowContext(ctx, `SELECT domain_rating FROM listings WHERE id = ?`, row.ListingID).Scan(&old)
			if old.Valid {
				row.Old = strconv.FormatInt(old.Int64, 10)
			}
		}
	case ImportRevenue:
		v, perr := strconv.ParseInt(cell("mrr_cents"), 10, 64)
		if perr != nil || v < 0 || v > commerce.MaxAmountCents*1000 {
			errs = append(errs, ImportError{Line: line, Column: "mrr_cents", Message: "must be whole cents, 0 or more"})
		}
		row.value = v
		if c := strings.ToUpper(cell("currency")); c != "" {
			if len(c) != 3 || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
				errs = append(errs, ImportError{Line: line, Column: "currency", Message: "must be a three-letter currency code such as USD"})
			}
			row.currency = c
		}
		switch strings.ToLower(cell("verified")) {
		case "", "false", "no", "0":
		case "true", "yes", "1":
			row.verified = true
		default:
			errs = append(errs, ImportError{Line: line, Column: "verified", Message: "must be true or false"})
		}
		row.New = fmt.Sprintf("%d.%02d %s", v/100, v%100, row.currency)
		if row.verified {
			row.New += " (verified)"
		}
		if len(errs) == 0 {
			var old int64
			var cur string
			if q.QueryRowContext(ctx, `SELECT mrr_cents, currency FROM revenue WHERE listing_id = ?`, row.ListingID).Scan(&old, &cur) == nil {
				row.Old = fmt.Sprintf("%d.%02d %s", old/100, old%100, cur)
			}
		}
	}
	return row, errs
}
