package site

import (
	"net/http"
	"reflect"

	"launchdir/app/media"
	"launchdir/db"
	"launchdir/routes"
)

// eagerCards is how many cards at the top of a page load their logo at once:
// they are above the fold on a phone and a laptop alike.
const eagerCards = 4

// cardView is what a card shows beyond its listing for one page view.
type cardView struct {
	CSRF  string // the form token; empty when signed out (voting signs in first)
	Back  string // the page the vote form returns to
	Voted bool   // the viewer voted for it this launch week
	Eager bool   // among the first cards of the page
	Count int64  // the number its list is ranked by: the week's votes on week lists
	Name  string // the button's name around the count: "Upvote Foo (" 12 " votes)"
	Unit  string
	Thumb *media.Thumb
}

// decorateCards fills every card on the page (each db.Summary reachable from
// its data) with its vote button and thumbnail: one query per kind for the
// whole page, never one per card. A failure only leaves the extras out.
func (s *Site) decorateCards(r *http.Request, p *Page) {
	cards := collectCards(reflect.ValueOf(p.Data), 0)
	if len(cards) == 0 {
		return
	}
	ctx := r.Context()
	ids := s.cardIDs(r, cards)
	thumbs, err := s.App.Media.CardThumbs(ctx, ids)
	if err != nil {
		s.App.Log.Error("card thumbnails", "err", err)
	}
	voted := map[int64]bool{}
	if p.Person != nil && s.people != nil {
		if voted, err = s.people.VotedAmong(ctx, p.Person.ID, ids); err != nil {
			s.App.Log.Error("card votes", "err", err)
		}
	}
	for i, c := range cards {
		v := &cardView{CSRF: p.CSRF, Back: p.Path, Voted: voted[c.ID], Eager: i < eagerCards, Count: c.Votes}
		if c.WeekVotes != nil {
			v.Count = *c.WeekVotes
		}
		v.Name, v.Unit = "Upvote "+c.Name+" (", voteUnit(v.Count, c.WeekVotes != nil)+")"
		if t, ok := thumbs[c.ID]; ok {
			v.Thumb = &t
		}
		c.Card = v
	}
}

// cardIDs are the ids of the page's cards. Lists the page took as values
// carry them; those that came through JSON (a read cache's encoded page)
// do not, and get theirs from their slugs in one query, written into the
// page's own copies.
func (s *Site) cardIDs(r *http.Request, cards []*db.Summary) []int64 {
	var slugs []string
	for _, c := range cards {
		if c.ID == 0 {
			slugs = append(slugs, c.Slug)
		}
	}
	if len(slugs) > 0 {
		byslug, err := s.App.Catalog.ListingIDs(r.Context(), slugs)
		if err != nil {
			s.App.Log.Error("card ids", "err", err)
		}
		for _, c := range cards {
			if c.ID == 0 {
				c.ID = byslug[c.Slug]
			}
		}
	}
	ids := make([]int64, 0, len(cards))
	for _, c := range cards {
		if c.ID != 0 {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// voteUnit completes the button's name for people who cannot see the card
// around it; the count itself is the button's visible text.
func voteUnit(n int64, week bool) string {
	unit := " votes"
	if n == 1 {
		unit = " vote"
	}
	if week {
		unit += " in the week"
	}
	return unit
}

// collectCards finds the listings a page shows, in the order its data holds
// them (the order of the page's sections), following exported fields,
// slices and pointers a few levels down.
func collectCards(v reflect.Value, depth int) []*db.Summary {
	if depth > 8 || !v.IsValid() || !holdsSummaries(v.Type()) {
		return nil // not into the search page's category tree, say
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return collectCards(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[db.Summary]() {
			if v.CanAddr() {
				return []*db.Summary{v.Addr().Interface().(*db.Summary)}
			}
			return nil
		}
		var out []*db.Summary
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out = append(out, collectCards(v.Field(i), depth+1)...)
			}
		}
		return out
	case reflect.Slice:
		var out []*db.Summary
		for i := range v.Len() {
			out = append(out, collectCards(v.Index(i), depth+1)...)
		}
		return out
	}
	return nil
}

// voteReturn is where a vote pressed on a card goes back to: the local page
// the form names, or "" for the listing itself (the listing page's own form,
// whose notes are shown there; a Referer would lose them).
func voteReturn(next string) string {
	if next == "" || routes.LocalPath(next) != next {
		return ""
	}
	return next
}
