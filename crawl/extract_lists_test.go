package crawl

import (
	"reflect"
	"strings"
	"testing"
)

// TestProductTags: tags are the head of "<what> for <whom>" and of
// "<Name> is a <what>"; audiences, claims and numbers are not tags.
func TestProductTags(t *testing.T) {
	for _, c := range []struct {
		tagline, desc string
		want          []string
	}{
		{"The shared inbox and help desk for growing teams", "Helpwise is help desk software: chat.", []string{"shared inbox", "help desk"}},
		{"Bookkeeping on autopilot for small businesses", "", []string{"Bookkeeping"}},
		{"One API for every parcel carrier", "", nil},
		{"Never miss a vet visit again", "PetPal reminds you about vet visits.", nil},
		{"Praxissoftware für Physiotherapie", "", []string{"Praxissoftware"}},
		{"50% faster builds for teams", "", nil},
		{strings.Repeat("word ", 5) + "for teams", "", nil}, // five words: a sentence, not a tag
	} {
		b := &builder{p: &Profile{Fields: map[string]Value{}}}
		ev := []Evidence{{Quote: c.tagline, URL: "https://x.example/"}}
		b.setString("tagline", c.tagline, ev...)
		b.setString("short_description", c.desc, Evidence{Quote: c.desc, URL: "https://x.example/"})
		productTags(b)
		got, _ := b.p.Fields["tags"].Value.([]string)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q / %q: tags %q, want %q", c.tagline, c.desc, got, c.want)
		}
	}
}
