package demo

import (
	"strings"
	"time"
)

// newFounder creates a founder and queues it for writing. company is the
// product the founder started with; bios mention it.
func (g *gen) newFounder(name, country, company string, userID int64, at time.Time) *founder {
	f := &founder{
		ID:        g.nFounders + 1,
		Slug:      uniqueSlug(g.founderSlugs, slugify(name)),
		Name:      name,
		Title:     pick(g, founderTitles),
		Country:   country,
		UserID:    userID,
		CreatedAt: at,
	}
	f.Bio = name + " was " + pick(g, formerRoles) + " at " + pick(g, formerEmployers) +
		" before starting " + company + ". " + pick(g, founderHobbies)
	f.Socials = g.founderSocials(f.Slug)
	g.nFounders++
	if len(g.founders) < founderPool {
		g.founders = append(g.founders, f)
	} else {
		g.founders[(g.nFounders-1)%founderPool] = f // replace the oldest
	}
	g.pendingFounders = append(g.pendingFounders, f)
	return f
}

func (g *gen) founderSocials(slug string) map[string]string {
	out := map[string]string{}
	if g.chance(80) {
		out["linkedin"] = "https://www.linkedin.com/in/" + slug
	}
	handle := strings.ReplaceAll(slug, "-", "")
	if g.chance(60) {
		out["x"] = "https://x.com/" + handle
	}
	if g.chance(30) {
		out["github"] = "https://github.com/" + handle
	}
	if g.chance(10) {
		out["substack"] = "https://" + handle + ".substack.com"
	}
	return out
}

// attachFounders gives l one to three founders. Some are founders of
// earlier listings, so serial founders show several companies.
func (g *gen) attachFounders(l *listing, lead *founder) {
	if lead != nil {
		l.Founders = append(l.Founders, lead)
	}
	want := 1 + g.weighted([]int{50, 35, 15})
	for len(l.Founders) < want {
		f := g.reuseFounder(l)
		if f == nil {
			country := l.Country
			if g.chance(15) {
				country, _ = g.place()
			}
			f = g.newFounder(pick(g, firstNames)+" "+pick(g, lastNames), country, l.Name, 0, l.CreatedAt)
		}
		l.Founders = append(l.Founders, f)
	}
}

// reuseFounder returns an earlier founder not yet on l, or nil.
func (g *gen) reuseFounder(l *listing) *founder {
	if len(g.founders) < 10 || !g.chance(15) {
		return nil
	}
	f := pick(g, g.founders)
	for _, have := range l.Founders {
		if have == f {
			return nil
		}
	}
	if f.CreatedAt.After(l.CreatedAt) {
		return nil // a founder cannot join before they exist in the directory
	}
	return f
}
