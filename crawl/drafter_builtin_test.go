package crawl

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

var testCategories = CategoriesNamed("Analytics", "Developer Tools", "Marketing", "Design", "Productivity", "Project Management", "E-commerce")

// draftSite crawls a fixture, drafts with the built-in drafter and guards.
func draftSite(t *testing.T, name string) (*Profile, *Result, string) {
	t.Helper()
	res, s := crawlSite(t, name)
	raw, err := NewBuiltinDrafter().Draft(t.Context(), res, testCategories)
	if err != nil {
		t.Fatal(err)
	}
	p, dropped := Guard(raw, res)
	if len(dropped) > 0 {
		t.Errorf("guard dropped built-in values %v", dropped)
	}
	return p, res, s.URL
}

// wantField checks a value and that one of its quotes contains quote and
// cites the page at base+path.
func wantField(t *testing.T, p *Profile, key string, value any, quote, pageURL string) {
	t.Helper()
	v, ok := p.Fields[key]
	if !ok {
		t.Errorf("%s: missing, want %v", key, value)
		return
	}
	if !reflect.DeepEqual(v.Value, value) {
		t.Errorf("%s = %#v, want %#v", key, v.Value, value)
	}
	wantEvidence(t, key, v.Evidence, quote, pageURL)
}

func wantEvidence(t *testing.T, what string, evs []Evidence, quote, pageURL string) {
	t.Helper()
	for _, e := range evs {
		if strings.Contains(e.Quote, quote) && e.URL == pageURL {
			return
		}
	}
	t.Errorf("%s: no evidence quoting %q from %s; have %+v", what, quote, pageURL, evs)
}

func wantAbsent(t *testing.T, p *Profile, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if v, ok := p.Fields[k]; ok {
			t.Errorf("%s should be not_found, got %#v", k, v.Value)
		}
	}
}

func TestBuiltinAcme(t *testing.T) {
	p, _, base := draftSite(t, "acme-analytics")
	home := base + "/"
	wantField(t, p, "name", "Acme Analytics", "Acme Analytics", home)
	wantField(t, p, "tagline", "Privacy-first product analytics", "Acme Analytics — Privacy-first product analytics", home)
	wantField(t, p, "short_description", "Acme Analytics gives product teams funnels, retention and live dashboards without cookies or personal data.", "gives product teams funnels", home)
	wantField(t, p, "founded_year", "2019", "Acme Analytics was founded in 2019 in Lisbon, Portugal", base+"/about")
	wantField(t, p, "city", "Lisbon", "Lisbon, Portugal", base+"/about")
	wantField(t, p, "country", "PT", "Lisbon, Portugal", base+"/about")
	wantField(t, p, "contact_email", "hello@acme-analytics.example", "Email us at hello@acme-analytics.example", base+"/contact")
	wantField(t, p, "pricing_model", "freemium", "Free $0/month", base+"/pricing")
	wantField(t, p, "pricing_summary", "Free: $0/month; Team: $29/month; Business: $99/month", "Business $99/month", base+"/pricing")
	wantField(t, p, "demo_video_url", "https://www.youtube.com/embed/acmeDemo123", "https://www.youtube.com/embed/acmeDemo123", home)
	wantField(t, p, "logo_url", base+"/static/acme-logo.svg", "/static/acme-logo.svg", home)
	wantField(t, p, "features", []string{
		"Funnels that show where users drop off", "Retention cohorts by week or month",
		"Live dashboards you can share with a link", "Cookie-free tracking that needs no consent banner",
	}, "Live dashboards you can share with a link", home)
	wantField(t, p, "usps", []string{"Hosted in the EU on servers we run ourselves", "Set up in five minutes with one script tag"}, "Hosted in the EU", home)
	wantField(t, p, "keywords", []string{"product analytics", "privacy", "GDPR", "funnels"}, "product analytics, privacy, GDPR, funnels", home)
	wantField(t, p, "tags", []string{"product analytics", "funnels", "retention"}, "product analytics, funnels, retention", home)
	wantField(t, p, "categories", []string{"Analytics"}, "product teams funnels, retention and live dashboards", home)
	if d, _ := p.Fields["description"].Value.(string); !strings.HasPrefix(d, "Acme Analytics was founded in 2019") {
		t.Errorf("description %q", d)
	}
	wantAbsent(t, p, "stage")

	socials := map[string]string{}
	for k, v := range p.Socials {
		socials[k] = v.Value.(string)
		wantEvidence(t, "socials."+k, v.Evidence, v.Value.(string), home)
	}
	wantSocials := map[string]string{
		"linkedin": "https://www.linkedin.com/company/acme-analytics", "x": "https://twitter.com/acmeanalytics",
		"github": "https://github.com/acme-analytics", "youtube": "https://www.youtube.com/@acmeanalytics",
	}
	if !reflect.DeepEqual(socials, wantSocials) {
		t.Errorf("socials %v", socials)
	}

	if len(p.FAQs) != 3 || p.FAQs[0].Question != "Do I need a cookie banner?" ||
		p.FAQs[1].Answer != "All data is stored on our own servers in Frankfurt, Germany." {
		t.Fatalf("faqs %+v", p.FAQs)
	}
	wantEvidence(t, "faq", p.FAQs[2].Evidence, "Can I export my data?", base+"/faq")

	if len(p.Founders) != 2 {
		t.Fatalf("founders %+v", p.Founders)
	}
	marta := p.Founders[0]
	if marta.Name != "Marta Silva" || marta.Title != "Co-founder & CEO" || !strings.HasPrefix(marta.Bio, "Marta led the data platform") ||
		marta.Socials["linkedin"] != "https://www.linkedin.com/in/marta-silva-example" {
		t.Errorf("founder %+v", marta)
	}
	wantEvidence(t, "founder", marta.Evidence, "Marta Silva Co-founder & CEO", base+"/team")
	if p.Founders[1].Socials["github"] != "https://github.com/jonasweber-example" {
		t.Errorf("founder socials %+v", p.Founders[1].Socials)
	}
}

func TestBuiltinPixelnoteLeavesUnknownsEmpty(t *testing.T) {
	p, _, base := draftSite(t, "pixelnote")
	wantField(t, p, "name", "PixelNote", "PixelNote", base+"/")
	wantField(t, p, "features", []string{"Infinite canvas for sketches", "Markdown notes side by side with drawings"}, "Infinite canvas for sketches", base+"/")
	wantField(t, p, "short_description", "Sketch notes right in your browser and keep every doodle next to your text.", "Sketch notes right in your browser", base+"/")
	wantAbsent(t, p, "founded_year", "city", "country", "contact_email", "pricing_model", "pricing_summary",
		"tagline", "stage", "demo_video_url", "logo_url", "usps", "tags", "keywords", "categories")
	if len(p.Socials) != 0 || len(p.FAQs) != 0 || len(p.Founders) != 0 {
		t.Errorf("invented socials/faqs/founders: %+v", p)
	}
}

func TestBuiltinTasklane(t *testing.T) {
	p, _, base := draftSite(t, "tasklane")
	home := base + "/"
	wantField(t, p, "name", "Tasklane", "Tasklane: Kanban boards for remote teams", home)
	wantField(t, p, "tagline", "Kanban boards for remote teams", "Kanban boards for remote teams", home)
	wantField(t, p, "stage", "beta", "Tasklane is now in public beta.", home)
	wantField(t, p, "founded_year", "2021", "since 2021", home)
	wantField(t, p, "city", "Berlin", "Berlin, Germany", home)
	wantField(t, p, "country", "DE", "Berlin, Germany", home)
	wantField(t, p, "contact_email", "support@tasklane.example", "mailto:support@tasklane.example", home)
	wantField(t, p, "pricing_model", "subscription", "€9 per user/month", home)
	wantField(t, p, "pricing_summary", "Starter: €9 per user/month; Growth: €15 per user/month", "Growth €15 per user/month", home)
	wantField(t, p, "features", []string{"Kanban boards", "Async stand-ups", "Time tracking"}, "Kanban boards Drag tasks across columns", home)
	wantField(t, p, "logo_url", base+"/img/tasklane-logo.png", "/img/tasklane-logo.png", home)
	if d, _ := p.Fields["description"].Value.(string); strings.Contains(d, "Trello") {
		t.Errorf("description took an FAQ answer: %q", d)
	}
	var qs []string
	for _, f := range p.FAQs {
		qs = append(qs, f.Question)
	}
	sort.Strings(qs)
	if strings.Join(qs, "|") != "Can I import from Trello?|Do you offer discounts for nonprofits?|Is there a mobile app?" {
		t.Errorf("faqs %q", qs)
	}
	if len(p.Founders) != 1 || p.Founders[0].Name != "Lena Hoffmann" || p.Founders[0].Title != "Founder" ||
		p.Founders[0].Socials["linkedin"] != "https://www.linkedin.com/in/lena-hoffmann-example" {
		t.Errorf("founders %+v", p.Founders)
	}
	for _, k := range []string{"producthunt", "discord", "substack"} {
		if _, ok := p.Socials[k]; !ok {
			t.Errorf("social %s missing", k)
		}
	}
	wantField(t, p, "tags", []string{"Kanban boards"}, "Kanban boards for remote teams", home) // what it is, from its tagline
	wantAbsent(t, p, "demo_video_url")
	// No keywords meta tag: keywords come from the page's own words.
	wantField(t, p, "keywords", []string{"Kanban boards", "sprints"}, "Kanban boards for remote teams", home)
}

func TestBuiltinLatin1(t *testing.T) {
	p, _, base := draftSite(t, "latin1shop")
	home := base + "/"
	wantField(t, p, "name", "Café Crème", "Café Crème – Thés et cafés fins de Montréal", home)
	wantField(t, p, "city", "Montréal", "Founded in 2015 in Montréal, Canada.", home)
	wantField(t, p, "country", "CA", "Montréal, Canada", home)
	wantField(t, p, "founded_year", "2015", "Founded in 2015", home)
	wantField(t, p, "contact_email", "bonjour@cafecreme.example", "Écrivez-nous", home)
	wantField(t, p, "features", []string{"Torréfaction artisanale chaque semaine", "Livraison gratuite dès 50 €"}, "Livraison gratuite dès 50 €", home)
	wantAbsent(t, p, "pricing_model", "pricing_summary")
}

// Injected instructions on a page must not become values.
func TestBuiltinIgnoresInjectedText(t *testing.T) {
	p, _, _ := draftSite(t, "shadyseo")
	wantAbsent(t, p, "founded_year", "contact_email")
	if d, ok := p.Fields["description"]; ok && strings.Contains(d.Value.(string), "obey") {
		t.Errorf("description uses injected text: %q", d.Value)
	}
	wantField(t, p, "features", []string{"Automatic backlink campaigns", "Weekly ranking reports"}, "Weekly ranking reports", p.Fields["name"].Evidence[0].URL)
}
