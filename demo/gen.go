package demo

import (
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// gen holds the random source and the uniqueness sets shared by every
// listing. All randomness flows from one PCG source in a fixed call order,
// which is what makes the output reproducible.
type gen struct {
	r     *rand.Rand
	now   time.Time // UTC, whole seconds
	today time.Time // 00:00 UTC of now's day
	week0 time.Time // Monday of now's week

	cats   []*category // id order
	tops   []*category // top-level categories
	leaves []*category // subcategories

	slugs, domains, founderSlugs *nameSet
	founders                     []*founder // founders to reuse: the first founderPool, then a rolling window
	nFounders                    int64      // founders created (the next id)
	pendingFounders              []*founder // created but not yet written
	weekly                       []weekCount
	weeklyKept                   int // len(weekly) after the last pruneWeekly
	earliestWeek                 time.Time
	featured                     int           // featured slots given this week (launchLive)
	liveCats                     map[int64]int // Seed: live listings per category, parents included
}

// founderPool bounds the founders kept for reuse, so seeding a million
// listings keeps memory flat; the demo directory stays far below it.
const founderPool = 20000

// nameSet is a Bloom filter of taken names: a fixed number of bits sized
// from the expected count, so seeding ten million listings holds megabytes,
// not a map entry per name. A false positive only makes a free name look
// taken (the generator then picks another), never lets a name repeat.
type nameSet struct {
	bits   []uint64
	mask   uint64         // number of bits - 1 (a power of two)
	suffix map[string]int // base -> last numeric suffix given (uniqueSlug)
}

// bloomProbes is the number of bits set per name.
const bloomProbes = 4

// newNameSet sizes the filter at 32 bits per expected name (false
// positives about 1 in 10,000), between 64 Kibit and 32 Mibit (4 MB): from
// a million names on, the memory stays put and false positives, which
// only cost the generator another probe, grow instead.
func newNameSet(expected int) *nameSet {
	m := uint64(1) << 16
	for m < uint64(expected)*32 && m < 1<<25 {
		m <<= 1
	}
	return &nameSet{bits: make([]uint64, m/64), mask: m - 1, suffix: map[string]int{}}
}

func (s *nameSet) has(name string) bool {
	h1, h2 := hashName(name)
	for i := range uint64(bloomProbes) {
		b := (h1 + i*h2) & s.mask
		if s.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

func (s *nameSet) add(name string) {
	h1, h2 := hashName(name)
	for i := range uint64(bloomProbes) {
		b := (h1 + i*h2) & s.mask
		s.bits[b/64] |= 1 << (b % 64)
	}
}

// hashName derives the two probe hashes (Kirsch-Mitzenmacher double
// hashing) from FNV-1a, spread by a splitmix64 finaliser.
func hashName(name string) (uint64, uint64) {
	h := fnv.New64a()
	h.Write([]byte(name))
	x := h.Sum64()
	return mix64(x), mix64(x^0x9e3779b97f4a7c15) | 1
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// newGen makes a generator for about n listings (n sizes the name sets).
func newGen(seed int64, now time.Time, n int) *gen {
	now = now.UTC().Truncate(time.Second)
	g := &gen{
		r:            rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15)),
		now:          now,
		today:        dayStart(now),
		week0:        monday(now),
		slugs:        newNameSet(n),
		domains:      newNameSet(n),
		founderSlugs: newNameSet(2 * n), // up to three founders a listing, some reused
	}
	g.buildCategories()
	return g
}

// buildCategories numbers the catalog: each top-level category is followed
// by its subcategories, so parents always get the lower id.
func (g *gen) buildCategories() {
	id := int64(0)
	for i := range catalog {
		top := &catalog[i]
		id++
		parent := &category{ID: id, Slug: top.Slug, Name: top.Name, Description: top.Description, Position: i, Top: top}
		g.cats = append(g.cats, parent)
		g.tops = append(g.tops, parent)
		for j := range top.Subs {
			sub := &top.Subs[j]
			id++
			c := &category{ID: id, ParentID: parent.ID, Slug: sub.Slug, Name: sub.Name, Description: sub.Description, Position: j, Top: top, Sub: sub}
			g.cats = append(g.cats, c)
			g.leaves = append(g.leaves, c)
		}
	}
}

// Random helpers.

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *gen) chance(percent int) bool { return g.r.IntN(100) < percent }

// between returns a whole-second time in [a, b); a when the range is empty.
func (g *gen) between(a, b time.Time) time.Time {
	d := b.Sub(a) / time.Second
	if d <= 0 {
		return a
	}
	return a.Add(time.Duration(g.r.Int64N(int64(d))) * time.Second)
}

// sample returns k distinct elements of xs in random order.
func sample[T any](g *gen, xs []T, k int) []T {
	k = min(k, len(xs))
	idx := g.r.Perm(len(xs))[:k]
	out := make([]T, k)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// weighted picks an index with probability proportional to its weight.
func (g *gen) weighted(weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := g.r.IntN(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

func (g *gen) place() (country, city string) {
	ws := make([]int, len(places))
	for i, p := range places {
		ws[i] = p.Weight
	}
	p := places[g.weighted(ws)]
	return p.Code, pick(g, p.Cities)
}

// Dates.

func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func monday(t time.Time) time.Time {
	d := dayStart(t)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func date(t time.Time) string { return t.UTC().Format("2006-01-02") }

// Text helpers.

var foldAccents = strings.NewReplacer(
	"ä", "a", "á", "a", "à", "a", "ã", "a", "å", "a", "ç", "c", "é", "e", "è", "e",
	"í", "i", "ñ", "n", "ó", "o", "ö", "o", "ø", "o", "ú", "u", "ü", "u", "'", "",
)

// slugify lower-cases, folds accents and joins words with single hyphens.
func slugify(s string) string {
	s = foldAccents.Replace(strings.ToLower(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// uniqueSlug returns base, or base-2, base-3, ... whichever is free. The
// set remembers the last suffix given per base, so the thousandth "Ada
// Lovelace" costs one probe, not a thousand (founder names repeat: they
// come from 5,600 first-last combinations, products from about 26,000).
func uniqueSlug(taken *nameSet, base string) string {
	s := base
	if taken.has(s) {
		n := max(taken.suffix[base], 1) // base-2 … base-n are all taken
		for {
			n++
			s = base + "-" + strconv.Itoa(n)
			if !taken.has(s) {
				break
			}
		}
		taken.suffix[base] = n
	}
	taken.add(s)
	return s
}

func capitalise(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// lowerFirst lower-cases a feature for use mid-sentence, leaving acronyms
// ("API explorer", "SSO on every plan") alone.
func lowerFirst(s string) string {
	rs := []rune(s)
	if len(rs) < 2 || unicode.IsUpper(rs[1]) || unicode.IsDigit(rs[0]) {
		return s
	}
	rs[0] = unicode.ToLower(rs[0])
	return string(rs)
}

// article returns "a" or "an" for the word that follows.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// thousands formats 12345 as "12,345".
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func truncateWords(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndex(s[:max], " ")
	if cut <= 0 {
		cut = max
	}
	return strings.TrimRight(s[:cut], " ,;:-—") + "…"
}

// randomToken returns n characters from alphabet, e.g. a video id.
func (g *gen) randomToken(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum     = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexDigits = "0123456789abcdef"
)
