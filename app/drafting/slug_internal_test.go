package drafting

import "testing"

func TestSlugsTransliterateLatinAndFallBackToTheDomain(t *testing.T) {
	for _, c := range []struct{ name, domain, want string }{
		{"Ünïcødé — App!!", "x.example", "unicode-app"},
		{"Straße Ølberg", "x.example", "strasse-olberg"},
		{"Inês Carvalho", "", "ines-carvalho"},
		{"Łódź Ærø", "", "lodz-aero"},
		{"Яндекс", "", "iandeks"},
		{"日本語アプリ", "nihongo.example", "nihongo-example"},
		{"日本語 Cloud", "nihongo.example", "cloud"},
		{"!!!", "", "listing"},
		{"مرحبا", "", "listing"},
	} {
		if got := SlugFor(c.name, c.domain); got != c.want {
			t.Errorf("SlugFor(%q, %q) = %q, want %q", c.name, c.domain, got, c.want)
		}
	}
	long := ""
	for range 300 {
		long += "a"
	}
	if got := Slugify(long + " b"); len(got) > 200 || got == "" {
		t.Errorf("long name: %d chars", len(got))
	}
}
