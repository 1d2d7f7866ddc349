package crawl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// scorerCategories is a directory's category list, with descriptions, as
// the drafter sees it in production.
var scorerCategories = []Category{
	{"AI & Machine Learning", "Products built on machine learning models: generative AI, language models, computer vision, AI assistants."},
	{"Analytics", "Product analytics, dashboards, metrics, business intelligence and reporting on data."},
	{"Customer Support", "Help desk, ticketing, shared inbox, live chat and knowledge base software for support teams."},
	{"Developer Tools", "Tools for software developers: continuous integration, testing, deployment, APIs, command-line tools, data pipelines."},
	{"Design", "Design tools: graphic design, brand assets, prototyping, UI design, templates."},
	{"E-commerce", "Online shops and the tools merchants use: inventory, marketplaces, checkout, online retail."},
	{"Education", "Learning, tutoring, courses, schools, teachers and students."},
	{"Energy & Climate", "Energy monitoring, efficiency, renewable energy, carbon and climate."},
	{"Finance", "Accounting, bookkeeping, invoicing, payments, banking, tax and expenses."},
	{"Hardware", "Physical devices: robots, electronics, gadgets, sensors you buy and own."},
	{"Health & Fitness", "Fitness, running, workouts, sport, wellbeing and personal health apps."},
	{"Healthcare", "Software for clinics, medical and therapy practices, patients, physiotherapy, veterinary care."},
	{"Legal", "Contracts, contract review, compliance, law firms and in-house legal teams."},
	{"Logistics", "Delivery, fleets, route planning, shipping, warehouses and transport."},
	{"Marketing", "Email marketing, newsletters, campaigns, SEO, social media and advertising."},
	{"Pets", "Pets and pet owners: dogs, cats, vets, pet care."},
	{"Productivity", "Time tracking, notes, to-do lists, calendars and personal productivity."},
	{"Project Management", "Tasks, projects, kanban boards, roadmaps and team planning."},
	{"Remote Work", "Tools for distributed teams working remotely: async standups, virtual offices."},
	{"Reviews & Loyalty", "Customer reviews, ratings, loyalty programmes, rewards and stamp cards."},
	{"Security", "Security scanning, policies, compliance checks, vulnerabilities, access control."},
	{"Team Communication", "Chat, messaging, video calls and internal communication for teams."},
}

// siteTruth is a fixture's _truth.json: per scored field the expected value
// (null = the site is silent: not_found expected), the acceptable
// categories, list items and the strings planted by traps.
type siteTruth struct {
	Fields     map[string]*string
	Founders   []string
	FAQs       []string
	Features   []string
	USPs       []string
	Tags       []string
	Keywords   []string
	Categories []string
	Planted    []string
	hasF       map[string]bool
}

func loadTruth(t *testing.T, dir, base string) *siteTruth {
	data, err := os.ReadFile(filepath.Join(dir, "_truth.json"))
	if err != nil {
		return nil
	}
	data = []byte(strings.ReplaceAll(string(data), "{{BASE}}", base))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	tr := &siteTruth{Fields: map[string]*string{}, hasF: map[string]bool{}}
	lists := map[string]*[]string{"founders": &tr.Founders, "faqs": &tr.FAQs, "features": &tr.Features, "usps": &tr.USPs, "tags": &tr.Tags, "keywords": &tr.Keywords, "categories": &tr.Categories, "planted": &tr.Planted}
	for k, v := range raw {
		tr.hasF[k] = true
		if l, ok := lists[k]; ok {
			if err := json.Unmarshal(v, l); err != nil {
				t.Fatalf("%s %s: %v", dir, k, err)
			}
			continue
		}
		var s *string
		if err := json.Unmarshal(v, &s); err != nil {
			t.Fatalf("%s %s: %v", dir, k, err)
		}
		tr.Fields[k] = s
	}
	return tr
}

// siteScore counts one site's outcome.
type siteScore struct {
	site                                 string
	tp, fp, fn, invented, planted, badEv int
	catOK, catFilled, catWanted          bool
	errs                                 []string
}

func (s *siteScore) precision() float64 { return ratio(s.tp, s.tp+s.fp) }
func (s *siteScore) recall() float64    { return ratio(s.tp, s.tp+s.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func (s *siteScore) miss(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// newSetPrefix marks the fixture sites written for issue 28 after its rule
// changes; every other scored site is the old set (ho-* among them, the
// held-out sites of issue 10).
const newSetPrefix = "n3-"

// setScore sums the site scores of one fixture set.
type setScore struct {
	name                                        string
	sites, tp, fp, fn, invented, planted, badEv int
	catSensible, catFilled, catWanted           int
}

func (t *setScore) add(s *siteScore) {
	t.sites++
	t.tp, t.fp, t.fn = t.tp+s.tp, t.fp+s.fp, t.fn+s.fn
	t.invented, t.planted, t.badEv = t.invented+s.invented, t.planted+s.planted, t.badEv+s.badEv
	if s.catOK {
		t.catSensible++
	}
	if s.catFilled {
		t.catFilled++
	}
	if s.catWanted {
		t.catWanted++
	}
}

func (t *setScore) precision() float64 { return ratio(t.tp, t.tp+t.fp) }
func (t *setScore) recall() float64    { return ratio(t.tp, t.tp+t.fn) }

// TestDraftScorer drafts every fixture site that has a truth file and
// scores it field by field; every set must meet the goals of issue 28:
// precision ≥ 0.95, recall ≥ 0.85, nothing invented or planted, every
// quote on its page, and a sensible category decision on ≥ 80% of sites
// (the truth's category filled, or an abstention where the truth has none).
func TestDraftScorer(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "sites", "*", "_truth.json"))
	sets := map[string]*setScore{"old": {name: "old"}, "new": {name: "new"}, "ho": {name: "old ho-*"}}
	t.Logf("%-16s %5s %5s %3s %3s %3s %3s  %s", "site", "prec", "rec", "inv", "pla", "bad", "cat", "misses")
	for _, f := range dirs {
		dir := filepath.Dir(f)
		name := filepath.Base(dir)
		res, srv := crawlSite(t, name)
		tr := loadTruth(t, dir, srv.URL)
		p, _, err := DraftAndGuard(t.Context(), NewBuiltinDrafter(), res, scorerCategories)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := scoreSite(name, tr, p)
		s.badEv = countBadEvidence(t, p, res)
		set := sets["old"]
		if strings.HasPrefix(name, newSetPrefix) {
			set = sets["new"]
		}
		set.add(s)
		if strings.HasPrefix(name, "ho-") {
			sets["ho"].add(s)
		}
		cat := "ok"
		if !s.catOK {
			cat = "BAD"
		}
		t.Logf("%-16s %5.2f %5.2f %3d %3d %3d %3s  %s", s.site, s.precision(), s.recall(), s.invented, s.planted, s.badEv, cat, strings.Join(s.errs, "; "))
	}
	t.Logf("| set | sites | precision | recall | tp/fp/fn | invented | bad quotes | planted taken | categories filled | categories sensible |")
	t.Logf("|---|---|---|---|---|---|---|---|---|---|")
	for _, k := range []string{"old", "ho", "new"} {
		st := sets[k]
		t.Logf("| %s | %d | %.3f | %.3f | %d/%d/%d | %d | %d | %d | %d of %d (truth has one on %d) | %d/%d |", st.name, st.sites, st.precision(), st.recall(),
			st.tp, st.fp, st.fn, st.invented, st.badEv, st.planted, st.catFilled, st.sites, st.catWanted, st.catSensible, st.sites)
	}
	if sets["old"].sites < 20 {
		t.Errorf("want at least 20 old scored fixture sites, have %d", sets["old"].sites)
	}
	if sets["new"].sites < 12 {
		t.Errorf("want at least 12 new (%s*) scored fixture sites, have %d", newSetPrefix, sets["new"].sites)
	}
	for _, k := range []string{"old", "new"} {
		st := sets[k]
		if st.precision() < 0.95 || st.recall() < 0.85 || st.invented > 0 || st.planted > 0 || st.badEv > 0 || ratio(st.catSensible, st.sites) < 0.8 {
			t.Errorf("%s set under the goals: precision %.3f (≥ 0.95), recall %.3f (≥ 0.85), invented %d, planted %d, bad quotes %d (all 0), categories sensible %d/%d (≥ 80%%)",
				st.name, st.precision(), st.recall(), st.invented, st.planted, st.badEv, st.catSensible, st.sites)
		}
	}
}

// scoredScalar are compared as values; anything else in a truth file is a list.
func scoreSite(name string, tr *siteTruth, p *Profile) *siteScore {
	s := &siteScore{site: name}
	keys := sortedKeys(tr.Fields)
	for _, k := range keys {
		want := tr.Fields[k]
		got, ok := p.Fields[k]
		gs, _ := got.Value.(string)
		switch {
		case want == nil && ok:
			s.fp++
			s.invented++
			s.miss("%s invented %q", k, gs)
		case want == nil:
		case !ok:
			s.fn++
			s.miss("%s missing", k)
		case foldText(gs) == foldText(*want):
			s.tp++
		default:
			s.fp++
			s.fn++
			s.miss("%s=%q want %q", k, gs, *want)
		}
	}
	var founders, faqs []string
	for _, f := range p.Founders {
		founders = append(founders, f.Name)
	}
	for _, f := range p.FAQs {
		faqs = append(faqs, f.Question)
	}
	if tr.hasF["founders"] {
		s.scoreList("founders", tr.Founders, founders, false)
	}
	if tr.hasF["faqs"] {
		s.scoreList("faqs", tr.FAQs, faqs, false)
	}
	if tr.hasF["features"] {
		feats, _ := asStrings(p.Fields["features"].Value)
		s.scoreList("features", tr.Features, feats, true)
	}
	for k, want := range map[string][]string{"usps": tr.USPs, "tags": tr.Tags, "keywords": tr.Keywords} {
		if tr.hasF[k] {
			got, _ := asStrings(p.Fields[k].Value)
			s.scoreList(k, want, got, true)
		}
	}
	cats, _ := asStrings(p.Fields["categories"].Value)
	s.catFilled, s.catWanted = len(cats) > 0, len(tr.Categories) > 0
	// Sensible: every drafted category is acceptable, and the drafter
	// decided as the truth does (filled where the site says what it is,
	// abstained where it does not).
	s.catOK = s.catFilled == s.catWanted
	if !s.catOK {
		s.miss("categories %v, want one of %v", cats, tr.Categories)
	}
	for _, c := range cats {
		if !containsString(tr.Categories, c) {
			s.catOK = false
			s.miss("category %q", c)
		}
	}
	if len(p.CategoryCandidates) > 3 || (len(cats) > 0 && (len(p.CategoryCandidates) == 0 || p.CategoryCandidates[0].Name != cats[0])) {
		s.catOK = false
		s.miss("candidates %v do not start with the primary category %v", p.CategoryCandidates, cats)
	}
	// The site's own casing: a name or tagline that matches only when
	// folded is wrong.
	for _, k := range []string{"name", "tagline"} {
		want, got := tr.Fields[k], p.Fields[k].Value
		if gs, ok := got.(string); ok && want != nil && foldText(gs) == foldText(*want) && normalizeText(gs) != normalizeText(*want) {
			s.tp--
			s.fp++
			s.fn++
			s.miss("%s casing %q want %q", k, gs, *want)
		}
	}
	// Text cleaned of navigation: no FAQ answer ends in a menu word.
	for _, f := range p.FAQs {
		if navTailRe.MatchString(f.Answer) {
			s.fp++
			s.miss("faq answer ends in navigation %q", f.Answer)
		}
	}
	s.planted = countPlanted(s, tr.Planted, p)
	return s
}

var navTailRe = regexp.MustCompile(`(?i)[\s.](?:home|startseite|accueil|inicio|menu|menü|back to top|nach oben|haut de page|volver arriba|contact|kontakt|blog|login|log in|sign in|anmelden|connexion)$`)

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// scoreList matches drafted items to expected ones; loose lets one contain
// the other (features are often quoted with or without their detail).
func (s *siteScore) scoreList(what string, want, got []string, loose bool) {
	used := map[int]bool{}
	for _, g := range got {
		hit := -1
		for i, w := range want {
			fg, fw := foldText(g), foldText(w)
			if !used[i] && (fg == fw || loose && (strings.Contains(fg, fw) || strings.Contains(fw, fg))) {
				hit = i
				break
			}
		}
		if hit < 0 {
			s.fp++
			s.miss("%s extra %q", what, g)
			continue
		}
		used[hit] = true
		s.tp++
	}
	for i, w := range want {
		if !used[i] {
			s.fn++
			s.miss("%s missing %q", what, w)
		}
	}
}

// countPlanted finds trap strings (case-sensitive, whole words) in any
// drafted value.
func countPlanted(s *siteScore, planted []string, p *Profile) int {
	var values []string
	for _, k := range sortedKeys(p.Fields) {
		switch v := p.Fields[k].Value.(type) {
		case string:
			values = append(values, k+"\x00"+v)
		case []string:
			for _, it := range v {
				values = append(values, k+"\x00"+it)
			}
		}
	}
	for _, f := range p.FAQs {
		values = append(values, "faq\x00"+f.Question+" "+f.Answer)
	}
	for _, f := range p.Founders {
		values = append(values, "founder\x00"+f.Name+" "+f.Title)
	}
	n := 0
	for _, pl := range planted {
		re := regexp.MustCompile(`(^|[^\p{L}\p{N}])` + regexp.QuoteMeta(pl) + `($|[^\p{L}\p{N}])`)
		for _, v := range values {
			k, val, _ := strings.Cut(v, "\x00")
			if re.MatchString(val) {
				n++
				s.miss("PLANTED %q in %s", pl, k)
			}
		}
	}
	return n
}

// countBadEvidence checks every quote against the visible text of the page
// it cites (or, for the metadata quote forms, that page's metadata).
func countBadEvidence(t *testing.T, p *Profile, res *Result) int {
	t.Helper()
	var evs []Evidence
	for _, k := range sortedKeys(p.Fields) {
		evs = append(evs, p.Fields[k].Evidence...)
	}
	for _, k := range sortedKeys(p.Socials) {
		evs = append(evs, p.Socials[k].Evidence...)
	}
	for _, f := range p.FAQs {
		evs = append(evs, f.Evidence...)
	}
	for _, f := range p.Founders {
		evs = append(evs, f.Evidence...)
	}
	bad := 0
	for _, e := range evs {
		if !evidenceOnPage(e, res) {
			bad++
			t.Logf("bad evidence %q at %s", e.Quote, e.URL)
		}
	}
	return bad
}

// evidenceOnPage re-derives a page's visible text from its HTML with the
// visible-text model; a plain quote must be in it and must not be injected
// text, a metadata quote must match that metadata.
func evidenceOnPage(e Evidence, res *Result) bool {
	for i := range res.Pages {
		pg := &res.Pages[i]
		if pg.URL != e.URL {
			continue
		}
		if kind, _, ok := metaQuote(e.Quote); ok {
			return kind != "" && newGuard(&Result{Pages: []Page{*pg}}).proof(pg.URL).hasQuote(e.Quote)
		}
		vis := cleanText(VisibleText(pg.HTML))
		return !looksLikeInjection(e.Quote) && strings.Contains(vis, foldText(e.Quote))
	}
	return false
}
