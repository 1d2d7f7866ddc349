package crawl

import (
	"strings"
	"testing"
)

// draftHTML drafts one page served at /team.
func draftPages(t *testing.T, pages map[string]string) *Profile {
	t.Helper()
	res := &Result{}
	for _, u := range []string{"/", "/team", "/about", "/pricing", "/features", "/faq"} {
		if h, ok := pages[u]; ok {
			res.Pages = append(res.Pages, Page{URL: "https://site.example" + u, HTML: []byte(h), Title: titleOf(h)})
		}
	}
	p, _, err := DraftAndGuard(t.Context(), NewBuiltinDrafter(), res, scorerCategories)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func titleOf(h string) string {
	_, after, ok := strings.Cut(h, "<title>")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(after, "</title>")
	return t
}

// TestFounderCards: a section heading is no person, titles stop before the
// bio and the profile links, cards sharing one container are each read,
// and people a sentence calls founders count.
func TestFounderCards(t *testing.T) {
	p := draftPages(t, map[string]string{
		"/": `<html><head><title>Schichtwerk</title></head><body><h1>Schichtwerk</h1><p>Dienstpläne für Pflegeheime.</p></body></html>`,
		"/team": `<html><head><title>Team</title></head><body>
<section><h2>Das Team</h2><p>Gründerin und Geschäftsführerin ist Lea Brandt, seit 2019.</p></section>
<div class="people">
<h3>Lea Brandt</h3>
<p>Gründerin &amp; CEO. Lea hat zehn Jahre Pflegeheime geleitet und kennt jeden Dienstplan. <a href="https://www.linkedin.com/in/leabrandt">LinkedIn</a> <a href="https://x.com/leabrandt">X</a></p>
<h3>Omar Haddad</h3>
<p>Mitgründer, CTO<br>Omar baute vorher Planungssoftware für Krankenhäuser in Hamburg. <a href="https://www.linkedin.com/in/omarhaddad">LinkedIn</a></p>
<h3>Petra Klein</h3>
<p>Kundenservice</p>
</div>
<p>Schichtwerk was founded by Lea Brandt, Omar Haddad and Jan de Vries.</p>
</body></html>`,
	})
	got := map[string]Founder{}
	for _, f := range p.Founders {
		got[f.Name] = f
	}
	if len(got) != 3 || got["Das Team"].Name != "" || got["Petra Klein"].Name != "" {
		t.Fatalf("founders %+v", p.Founders)
	}
	if f := got["Lea Brandt"]; f.Title != "Gründerin & CEO" || !strings.HasPrefix(f.Bio, "Lea hat zehn Jahre") || strings.Contains(f.Bio, "LinkedIn") ||
		f.Socials["linkedin"] != "https://www.linkedin.com/in/leabrandt" || f.Socials["x"] != "https://x.com/leabrandt" {
		t.Errorf("Lea %+v", f)
	}
	if f := got["Omar Haddad"]; f.Title != "Mitgründer, CTO" || !strings.HasPrefix(f.Bio, "Omar baute") || f.Socials["linkedin"] == "" {
		t.Errorf("Omar %+v", f)
	}
	if f := got["Jan de Vries"]; f.Name == "" || len(f.Evidence) == 0 {
		t.Errorf("founder named in prose missed: %+v", p.Founders)
	}
}
