package db

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// FAQ is a question and its answer.
type FAQ struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// FounderRef is a founder as shown on a listing.
type FounderRef struct {
	Slug    string  `json:"slug"`
	Name    string  `json:"name"`
	Title   string  `json:"title"`
	Bio     string  `json:"bio,omitempty"`
	Socials Socials `json:"socials"`
	// AvatarURL is an image of this site (set_founder_avatar).
	AvatarURL string `json:"avatar_url,omitempty" format:"uri"`
}

// Update is a listing update post.
type Update struct {
	ID        int64  `json:"id"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	CreatedAt string `json:"created_at" format:"date-time"`
}

// Milestone is a dated achievement.
type Milestone struct {
	ID          int64  `json:"id"`
	Date        string `json:"date" format:"date"`
	Title       string `json:"title"`
	Description string `json:"description"`
	URL         string `json:"url"`
}

// Story is the founder story (a paid section).
type Story struct {
	Title        string `json:"title"`
	Story        string `json:"story"`
	WhyStarted   string `json:"why_started"`
	Problem      string `json:"problem"`
	Journey      string `json:"journey"`
	Challenges   string `json:"challenges"`
	Achievements string `json:"achievements"`
	Lessons      string `json:"lessons"`
	WhatsNext    string `json:"whats_next"`
	UpdatedAt    string `json:"updated_at,omitempty"`
}

// HasText says whether any section of the story has text (a story row can
// exist with every section empty: no heading is shown for it).
func (s *Story) HasText() bool {
	if s == nil {
		return false
	}
	for _, v := range []string{s.Title, s.Story, s.WhyStarted, s.Problem, s.Journey, s.Challenges, s.Achievements, s.Lessons, s.WhatsNext} {
		if strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// InterviewAnswer is one published answer of the founder interview.
type InterviewAnswer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// interviewOf reads the published interview answers of a person (answers
// belong to the person): non-empty ones, in the questions' order.
func interviewOf(ctx context.Context, q querier, userID int64) ([]InterviewAnswer, error) {
	out := []InterviewAnswer{}
	if userID == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT iq.question, a.answer FROM interview_answers a JOIN interview_questions iq ON iq.id = a.question_id
		WHERE a.user_id = ? AND trim(a.answer) != '' ORDER BY iq.position, iq.id`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var ia InterviewAnswer
		if err := rows.Scan(&ia.Question, &ia.Answer); err != nil {
			return nil, err
		}
		out = append(out, ia)
	}
	return out, rows.Err()
}

// listingInterview is the interview of the listing's owner (who submitted
// it, or the verified claimant): the person who speaks for the product.
func listingInterview(ctx context.Context, q querier, listingID int64) ([]InterviewAnswer, error) {
	var uid int64
	err := q.QueryRowContext(ctx, `SELECT user_id FROM listing_owners WHERE listing_id = ? AND role IN ('owner','claimed')
		ORDER BY role = 'claimed', created_at, user_id LIMIT 1`, listingID).Scan(&uid)
	if err != nil && !IsNoRows(err) {
		return nil, err
	}
	return interviewOf(ctx, q, uid)
}

// Media is an image or video of a listing (a paid section).
type Media struct {
	Kind    string `json:"kind"`
	URL     string `json:"url"`
	Caption string `json:"caption"`
}

// Rating is the community rating from genuine reviews only.
type Rating struct {
	Average *float64 `json:"average"`
	Count   int64    `json:"count"`
	Basis   string   `json:"basis"`
}

// DRPoint is one Domain Rating measurement.
type DRPoint struct {
	Date   string `json:"date" format:"date"`
	Rating int    `json:"rating"`
}

// DomainRating is the third-party Domain Rating with its trend.
type DomainRating struct {
	Value   *int      `json:"value"`
	Trend   string    `json:"trend" enum:"up,down,flat,unknown"`
	Change  int       `json:"change"`
	Source  string    `json:"source"`
	History []DRPoint `json:"history"`
}

// DomainRatingSource names the third party behind Domain Rating figures.
const DomainRatingSource = "Ahrefs Domain Rating (third-party estimate, 0-100), refreshed monthly"

// Listing is the full public profile.
type Listing struct {
	Summary
	ShortDescription string            `json:"short_description"`
	Description      string            `json:"description"`
	Features         []string          `json:"features"`
	USPs             []string          `json:"usps"`
	Keywords         []string          `json:"keywords"`
	Tags             []string          `json:"tags"`
	Stage            string            `json:"stage"`
	Pricing          map[string]string `json:"pricing"`
	Country          string            `json:"country"`
	City             string            `json:"city"`
	FoundedYear      *int              `json:"founded_year"`
	ContactEmail     string            `json:"contact_email"`
	Domain           string            `json:"domain"`
	Plan             string            `json:"plan" enum:"none,free,paid"`
	Categories       []CategoryRef     `json:"categories"`
	Founders         []FounderRef      `json:"founders"`
	FAQs             []FAQ             `json:"faqs"`
	Socials          Socials           `json:"socials"`
	LatestUpdates    []Update          `json:"latest_updates"`
	Interview        []InterviewAnswer `json:"interview" doc:"The owner's published answers to the founder interview (list_interview_questions), in the questions' order."`
	Rating           Rating            `json:"community_rating"`
	DomainRating     DomainRating      `json:"domain_rating"`
	Links            map[string]string `json:"links"`
	NotFound         []string          `json:"not_found_on_website"`
	Attributes       map[string]string `json:"attributes"`
	UnlockedSections []string          `json:"unlocked_sections"`
	Story            *Story            `json:"story,omitempty"`
	Milestones       []Milestone       `json:"milestones,omitempty"`
	Media            []Media           `json:"media,omitempty"`
	UpdatedAt        string            `json:"updated_at" format:"date-time"`
}

// listingCols follows summaryCols with the profile columns.
const listingCols = summaryCols + `, l.short_description, l.description, l.features, l.usps, l.keywords, l.tags,
	l.stage, l.pricing_model, l.pricing_summary, l.country, l.city, l.founded_year, l.contact_email, l.domain, l.plan,
	l.socials, l.not_found, l.attributes, l.unlock_story, l.unlock_milestones, l.unlock_media, l.rating_sum,
	l.rating_count, l.domain_rating, l.demo_video_url, l.updated_at`

// GetListingBy loads a full public profile; where is a condition on l (e.g.
// "l.slug = ?"). Callers decide which statuses are visible.
func (d *DB) GetListingBy(ctx context.Context, q querier, where string, arg any) (*Listing, error) {
	return d.getListing(ctx, q, where, arg, false)
}

// GetOwnerListing loads a listing by id as its owner sees it: paid sections
// are included even while locked, so owners can prepare them.
func (d *DB) GetOwnerListing(ctx context.Context, q querier, id int64) (*Listing, error) {
	return d.getListing(ctx, q, "l.id = "+IntArg, id, true)
}

func (d *DB) getListing(ctx context.Context, q querier, where string, arg any, owner bool) (*Listing, error) {
	q = d.Prepared(q) // a dozen queries per profile: parse each once per connection
	return d.getListingWith(ctx, q, where, arg, owner, nil, func(l *Listing, in partsInputs) error {
		return d.loadProfileParts(ctx, q, l, in.dr, in.uStory, in.uMile, in.uMedia, owner)
	})
}

// getListingWith reads the listing row and lets parts fill in the rows of
// other tables; memo (optional) keeps the row's decoded JSON columns.
func (d *DB) getListingWith(ctx context.Context, q querier, where string, arg any, owner bool, memo *decodeMemo,
	parts func(l *Listing, in partsInputs) error) (*Listing, error) {
	l, in, err := scanListing(q.QueryRowContext(ctx, "SELECT "+listingCols+summaryFrom+" WHERE "+where, arg), memo)
	if err != nil {
		return nil, err
	}
	if err := parts(l, in); err != nil {
		return nil, err
	}
	return l, nil
}

// scanListing reads a row of listingCols (a point read or the bulk
// assembly's range) into a profile without the other tables' rows.
func scanListing(sc interface{ Scan(...any) error }, memo *decodeMemo) (*Listing, partsInputs, error) {
	var (
		l                                               Listing
		features, usps, keywords, tags, socials, nf, at string
		pm, ps, video                                   string
		founded, dr                                     sql.NullInt64
		uStory, uMile, uMedia                           bool
		rSum, rCount                                    int64
	)
	s, err := scanSummary(sc,
		&l.ShortDescription, &l.Description, &features, &usps, &keywords, &tags, &l.Stage, &pm, &ps, &l.Country,
		&l.City, &founded, &l.ContactEmail, &l.Domain, &l.Plan, &socials, &nf, &at, &uStory, &uMile, &uMedia,
		&rSum, &rCount, &dr, &video, &l.UpdatedAt)
	if err != nil {
		return nil, partsInputs{}, err
	}
	l.Summary = s
	dc := memo.get(s.ID, [7]string{features, usps, keywords, tags, socials, nf, at})
	l.Features, l.USPs, l.Keywords, l.Tags, l.NotFound = dc.features, dc.usps, dc.keywords, dc.tags, dc.notFound
	l.Socials, l.Attributes = dc.socials, dc.attributes
	l.Pricing = map[string]string{"model": pm, "summary": ps}
	if founded.Valid {
		y := int(founded.Int64)
		l.FoundedYear = &y
	}
	l.Rating = Rating{Count: rCount, Basis: "genuine reviews only"}
	if rCount > 0 {
		avg := float64(int(float64(rSum)/float64(rCount)*10+0.5)) / 10
		l.Rating.Average = &avg
	}
	l.Links = map[string]string{"website": l.URL}
	if video != "" {
		l.Links["demo_video"] = video
	}
	for k, v := range l.Socials {
		l.Links[k] = v
	}
	return &l, partsInputs{dr: dr, uStory: uStory, uMile: uMile, uMedia: uMedia}, nil
}

func (d *DB) loadProfileParts(ctx context.Context, q querier, l *Listing, dr sql.NullInt64, uStory, uMile, uMedia, owner bool) error {
	var err error
	if l.Categories, err = listingCategories(ctx, q, l.ID); err != nil {
		return err
	}
	if l.Founders, err = listingFounders(ctx, q, l.ID); err != nil {
		return err
	}
	if l.FAQs, err = listingFAQs(ctx, q, l.ID); err != nil {
		return err
	}
	if l.LatestUpdates, err = listingUpdates(ctx, q, l.ID, 5); err != nil {
		return err
	}
	if l.Interview, err = listingInterview(ctx, q, l.ID); err != nil {
		return err
	}
	if l.DomainRating, err = domainRating(ctx, q, l.ID, dr); err != nil {
		return err
	}
	l.UnlockedSections = unlockedSections(uStory, uMile, uMedia)
	if uStory || owner {
		if l.Story, err = loadStory(ctx, q, l.ID); err != nil {
			return err
		}
	}
	if uMile || owner {
		if l.Milestones, err = loadMilestones(ctx, q, l.ID); err != nil {
			return err
		}
	}
	// The gallery is the paid media section; every listing shows its
	// first screenshot (README: Images).
	if l.Media, err = loadMedia(ctx, q, l.ID, uMedia || owner); err != nil {
		return err
	}
	return nil
}

// unlockedSections names the paid sections a listing has unlocked.
func unlockedSections(uStory, uMile, uMedia bool) []string {
	out := []string{}
	for _, sec := range []struct {
		name     string
		unlocked bool
	}{{"story", uStory}, {"milestones", uMile}, {"media", uMedia}} {
		if sec.unlocked {
			out = append(out, sec.name)
		}
	}
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func listingCategories(ctx context.Context, q querier, id int64) ([]CategoryRef, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.slug, c.name FROM listing_categories lc JOIN categories c ON c.id = lc.category_id
		WHERE lc.listing_id = `+IntArg+` ORDER BY lc.is_primary DESC, c.name, c.id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []CategoryRef{}
	for rows.Next() {
		var c CategoryRef
		if err := rows.Scan(&c.Slug, &c.Name); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func listingFounders(ctx context.Context, q querier, id int64) ([]FounderRef, error) {
	rows, err := q.QueryContext(ctx, `SELECT f.slug, f.name, f.title, f.bio, f.socials, f.avatar_url FROM listing_founders lf
		JOIN founders f ON f.id = lf.founder_id WHERE lf.listing_id = `+IntArg+` ORDER BY lf.position, lf.founder_id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []FounderRef{}
	for rows.Next() {
		var f FounderRef
		var soc string
		if err := rows.Scan(&f.Slug, &f.Name, &f.Title, &f.Bio, &soc, &f.AvatarURL); err != nil {
			return nil, err
		}
		f.Socials = orEmptyMap(decodeJSON[map[string]string](soc))
		out = append(out, f)
	}
	return out, rows.Err()
}

func listingFAQs(ctx context.Context, q querier, id int64) ([]FAQ, error) {
	rows, err := q.QueryContext(ctx, `SELECT question, answer FROM faqs WHERE listing_id = `+IntArg+` ORDER BY position, id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []FAQ{}
	for rows.Next() {
		var f FAQ
		if err := rows.Scan(&f.Question, &f.Answer); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func listingUpdates(ctx context.Context, q querier, id int64, n int) ([]Update, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, title, body, created_at FROM listing_updates WHERE listing_id = `+IntArg+`
		ORDER BY created_at DESC, id DESC LIMIT ?`, id, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Update{}
	for rows.Next() {
		var u Update
		if err := rows.Scan(&u.ID, &u.Title, &u.Body, &u.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func domainRating(ctx context.Context, q querier, id int64, current sql.NullInt64) (DomainRating, error) {
	dr := DomainRating{Trend: "unknown", Source: DomainRatingSource, History: []DRPoint{}}
	rows, err := q.QueryContext(ctx, `SELECT measured_on, rating, source FROM (SELECT measured_on, rating, source FROM domain_ratings
		WHERE listing_id = `+IntArg+` ORDER BY measured_on DESC LIMIT 12) ORDER BY measured_on`, id)
	if err != nil {
		return dr, err
	}
	defer rows.Close()
	var source string
	for rows.Next() {
		var p DRPoint
		if err := rows.Scan(&p.Date, &p.Rating, &source); err != nil {
			return dr, err
		}
		dr.History = append(dr.History, p)
	}
	finishDomainRating(&dr, source, current)
	return dr, rows.Err()
}

// finishDomainRating sets the source (source: the newest point's), value
// and trend of dr from its history (oldest first).
func finishDomainRating(dr *DomainRating, source string, current sql.NullInt64) {
	// A figure the site team imported names its own source (the newest
	// point's); the default describes the monthly refresh.
	if n := len(dr.History); n > 0 && source != "" {
		dr.Source = source + " (Domain Rating, third-party estimate, 0-100), as of " + dr.History[n-1].Date
	}
	if current.Valid {
		v := int(current.Int64)
		dr.Value = &v
	}
	if n := len(dr.History); n >= 2 {
		dr.Change = dr.History[n-1].Rating - dr.History[n-2].Rating
		switch {
		case dr.Change > 0:
			dr.Trend = "up"
		case dr.Change < 0:
			dr.Trend = "down"
		default:
			dr.Trend = "flat"
		}
	}
}

func loadStory(ctx context.Context, q querier, id int64) (*Story, error) {
	var s Story
	err := q.QueryRowContext(ctx, `SELECT title, story, why_started, problem, journey, challenges, achievements, lessons,
		whats_next, updated_at FROM stories WHERE listing_id = `+IntArg, id).Scan(&s.Title, &s.Story, &s.WhyStarted, &s.Problem,
		&s.Journey, &s.Challenges, &s.Achievements, &s.Lessons, &s.WhatsNext, &s.UpdatedAt)
	if IsNoRows(err) {
		return &Story{}, nil
	}
	return &s, err
}

func loadMilestones(ctx context.Context, q querier, id int64) ([]Milestone, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, date, title, description, url FROM milestones WHERE listing_id = `+IntArg+`
		ORDER BY date, id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Milestone{}
	for rows.Next() {
		var m Milestone
		if err := rows.Scan(&m.ID, &m.Date, &m.Title, &m.Description, &m.URL); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// loadMedia reads a listing's media in order: all of it, or (not
// unlocked) the first screenshot only.
func loadMedia(ctx context.Context, q querier, id int64, all bool) ([]Media, error) {
	query := `SELECT kind, url, caption FROM media WHERE listing_id = ` + IntArg + ` ORDER BY position, id`
	if !all {
		query = `SELECT kind, url, caption FROM media WHERE listing_id = ` + IntArg + ` AND kind = 'image' ORDER BY position, id LIMIT 1`
	}
	rows, err := q.QueryContext(ctx, query, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Media{}
	for rows.Next() {
		var m Media
		if err := rows.Scan(&m.Kind, &m.URL, &m.Caption); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// decodedCols are a listing row's JSON columns, decoded.
type decodedCols struct {
	raw                                      [7]string
	features, usps, keywords, tags, notFound []string
	socials, attributes                      map[string]string
}

func decodeCols(raw [7]string) *decodedCols {
	return &decodedCols{raw: raw,
		features: orEmpty(decodeJSON[[]string](raw[0])), usps: orEmpty(decodeJSON[[]string](raw[1])),
		keywords: orEmpty(decodeJSON[[]string](raw[2])), tags: orEmpty(decodeJSON[[]string](raw[3])),
		socials: orEmptyMap(decodeJSON[map[string]string](raw[4])), notFound: orEmpty(decodeJSON[[]string](raw[5])),
		attributes: orEmptyMap(decodeJSON[map[string]string](raw[6]))}
}

// decodeMemo keeps the decoded JSON columns of listings by id while their
// text is unchanged (owner edits mostly change other columns). The values
// are shared by the profiles built from them: read only.
type decodeMemo struct {
	mu sync.Mutex
	m  map[int64]*decodedCols
}

// get decodes raw, or returns the kept decoding of the same text; a nil
// memo always decodes.
func (m *decodeMemo) get(id int64, raw [7]string) *decodedCols {
	if m == nil {
		return decodeCols(raw)
	}
	m.mu.Lock()
	dc := m.m[id]
	m.mu.Unlock()
	if dc != nil && dc.raw == raw {
		return dc
	}
	dc = decodeCols(raw)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= maxParts {
		m.m = map[int64]*decodedCols{}
	}
	m.m[id] = dc
	return dc
}
