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
	catOK, catFilled                     bool
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

// TestDraftScorer drafts every fixture site that has a truth file and
// scores it field by field; it fails under the goals of issue 10.
func TestDraftScorer(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "testdata", "sites", "*", "_truth.json"))
	if len(dirs) < 20 {
		t.Fatalf("want at least 20 scored fixture sites, have %d", len(dirs)) // ho-* sites: written after the rules, as a held-out check
	}
	var all []*siteScore
	for _, f := range dirs {
		dir := filepath.Dir(f)
		name := filepath.Base(dir)
		res, srv := crawlSite(t, name)
		tr := loadTruth(t, dir, srv.URL)
		p, _, err := DraftAndGuard(t.Context(), NewBuiltinDrafter(), res, scorerCategories)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sc := scoreSite(name, tr, p)
		sc.badEv = countBadEvidence(t, p, res)
		all = append(all, sc)
	}
	var tot, held siteScore
	cats, catsFilled := 0, 0
	t.Logf("%-12s %5s %5s %3s %3s %3s %3s  %s", "site", "prec", "rec", "inv", "pla", "bad", "cat", "misses")
	for _, s := range all {
		tot.tp, tot.fp, tot.fn = tot.tp+s.tp, tot.fp+s.fp, tot.fn+s.fn
		tot.invented, tot.planted, tot.badEv = tot.invented+s.invented, tot.planted+s.planted, tot.badEv+s.badEv
		if strings.HasPrefix(s.site, "ho-") {
			held.tp, held.fp, held.fn, held.invented = held.tp+s.tp, held.fp+s.fp, held.fn+s.fn, held.invented+s.invented
		}
		cat := "ok"
		if s.catOK {
			cats++
		} else {
			cat = "BAD"
		}
		if s.catFilled {
			catsFilled++
		}
		t.Logf("%-12s %5.2f %5.2f %3d %3d %3d %3s  %s", s.site, s.precision(), s.recall(), s.invented, s.planted, s.badEv, cat, strings.Join(s.errs, "; "))
	}
	catRate := ratio(cats, len(all))
	t.Logf("OVERALL precision %.3f recall %.3f (tp %d fp %d fn %d) invented %d planted %d bad-evidence %d categories sensible %d/%d (%d filled)",
		tot.precision(), tot.recall(), tot.tp, tot.fp, tot.fn, tot.invented, tot.planted, tot.badEv, cats, len(all), catsFilled)
	t.Logf("HELD-OUT (ho-*, written after the rules) precision %.3f recall %.3f (tp %d fp %d fn %d) invented %d",
		held.precision(), held.recall(), held.tp, held.fp, held.fn, held.invented)
	if tot.precision() < 0.95 || tot.recall() < 0.75 || tot.invented > 0 || tot.planted > 0 || tot.badEv > 0 || catRate < 0.9 {
		t.Errorf("under the floors: want precision ≥ 0.95, recall ≥ 0.75, 0 invented, 0 planted, 0 bad evidence, categories ≥ 90%%")
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
	s.catFilled = len(cats) > 0
	s.catOK = true
	for _, c := range cats {
		if !containsString(tr.Categories, c) {
			s.catOK = false
			s.miss("category %q", c)
		}
	}
	s.planted = countPlanted(s, tr.Planted, p)
	return s
}

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
