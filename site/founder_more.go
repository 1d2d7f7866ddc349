package site

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"launchdir/app/catalog"
	"launchdir/app/kernel"
	"launchdir/ops"

	"github.com/julienschmidt/httprouter"
)

// Interview answers, social links and the buy form's extra options: the
// pages read the forms and run the API's operations (answer_interview,
// update_my_listing's socials, update_draft's company_socials and
// founder_socials, quote_order and create_checkout).

// interviewQ is one interview question with the person's answer.
type interviewQ struct {
	ID               int64
	Question, Hint   string
	Answer           string
	Number, MaxChars int
}

// loadInterview reads the questions (list_interview_questions) and the
// person's answers.
func (s *Site) loadInterview(ctx context.Context, uid int64) ([]interviewQ, error) {
	var qs catalog.InterviewQuestions
	if err := s.op(ctx, uid, "list_interview_questions", nil, &qs); err != nil {
		return nil, err
	}
	mine, err := s.App.Owning.MyInterview(ctx, uid)
	if err != nil {
		return nil, err
	}
	answers := map[int64]string{}
	for _, a := range mine.Answers {
		answers[a.QuestionID] = a.Answer
	}
	out := make([]interviewQ, 0, len(qs.Items))
	for i, q := range qs.Items {
		out = append(out, interviewQ{ID: q.ID, Question: q.Question, Hint: q.Hint, Answer: answers[q.ID], Number: i + 1, MaxChars: qs.MaxAnswerLength})
	}
	return out, nil
}

// myListingInterview sends the answers that changed through
// answer_interview. A refused answer is named by its question.
func (s *Site) myListingInterview(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	d, err := s.loadMyListing(r.Context(), uid, ps.ByName("id"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	answers := []any{}
	var sent []interviewQ
	for _, q := range d.Interview {
		v, ok := r.PostForm["q-"+strconv.FormatInt(q.ID, 10)]
		if !ok || v[0] == q.Answer {
			continue
		}
		answers = append(answers, map[string]any{"question_id": q.ID, "answer": v[0]})
		q.Answer = v[0]
		sent = append(sent, q)
	}
	if len(answers) > 0 {
		err = s.op(r.Context(), uid, "answer_interview", map[string]any{"answers": answers}, nil)
	}
	if err != nil {
		if e := ops.AsError(err); e.Code == ops.CodeInvalid {
			named := *e
			named.Detail, named.Fields = "An interview answer was refused", nil
			for _, f := range e.Fields {
				for i, q := range sent {
					if p := fmt.Sprintf("answers[%d]", i); strings.HasPrefix(f.Field, p) {
						f.Field = fmt.Sprintf("interview question %d (%s)", q.Number, q.Question)
					}
				}
				named.Fields = append(named.Fields, f)
			}
			err = &named
		}
		s.listingRefusal(w, r, uid, err, func(d *myListingData) {
			for i := range d.Interview {
				for _, q := range sent {
					if q.ID == d.Interview[i].ID {
						d.Interview[i].Answer = q.Answer
					}
				}
			}
		})
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "interview", nil)
}

// socialLink is one platform's link in a social links form.
type socialLink struct{ Name, Platform, Value string }

// socialRows lists every platform the operations take with its link.
func socialRows(prefix string, links map[string]string) []socialLink {
	out := make([]socialLink, 0, len(kernel.SocialPlatforms))
	for _, p := range kernel.SocialPlatforms {
		out = append(out, socialLink{Name: prefix + p, Platform: platformLabel(p), Value: links[p]})
	}
	return out
}

// socialsForm reads a social links form (fields prefix+platform); an
// empty link is left out, so the map replaces all links.
func socialsForm(r *http.Request, prefix string) map[string]any {
	out := map[string]any{}
	for _, p := range kernel.SocialPlatforms {
		if v := strings.TrimSpace(r.PostFormValue(prefix + p)); v != "" {
			out[p] = v
		}
	}
	return out
}

// typedSocials keeps what was typed when a change is refused.
func typedSocials(r *http.Request, prefix string) []socialLink {
	links := map[string]string{}
	for p, v := range socialsForm(r, prefix) {
		links[p] = v.(string)
	}
	return socialRows(prefix, links)
}

// myListingSocials replaces the listing's company links through
// update_my_listing's socials (versioned like every owner edit).
func (s *Site) myListingSocials(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	args := map[string]any{"listing_id": idArg(ps.ByName("id")), "socials": socialsForm(r, "s-")}
	if err := s.op(r.Context(), uid, "update_my_listing", args, nil); err != nil {
		s.listingRefusal(w, r, uid, err, func(d *myListingData) { d.Socials = typedSocials(r, "s-") })
		return
	}
	done(w, r, "/me/listings/"+ps.ByName("id"), "facts", nil)
}

// buyCategory is a category the buy form offers for extra_categories.
type buyCategory struct {
	Slug, Name string
	Sub        bool
}

// loadBuyCategories lists the category tree (list_categories, empty ones
// included) for the buy form, parents followed by their subcategories.
func (s *Site) loadBuyCategories(ctx context.Context, uid int64) []buyCategory {
	var page struct {
		Items []struct {
			Slug, Name    string
			Subcategories []struct{ Slug, Name string }
		} `json:"items"`
	}
	if err := s.op(ctx, uid, "list_categories", map[string]any{"per_page": 100}, &page); err != nil {
		return nil
	}
	var out []buyCategory
	for _, c := range page.Items {
		out = append(out, buyCategory{Slug: c.Slug, Name: c.Name})
		for _, sc := range c.Subcategories {
			out = append(out, buyCategory{Slug: sc.Slug, Name: sc.Name, Sub: true})
		}
	}
	return out
}

// amountCents reads an amount typed in currency units ("25", "25.5",
// "25.50") as cents; the operation checks the billboard minimum.
func amountCents(v string) (int64, error) {
	v = strings.TrimSpace(v)
	whole, frac, _ := strings.Cut(v, ".")
	if len(frac) > 2 || whole == "" && frac == "" {
		return 0, ops.Invalid("amount", "must be an amount like 25 or 25.50")
	}
	frac += strings.Repeat("0", 2-len(frac))
	if whole == "" {
		whole = "0"
	}
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || w < 0 || f < 0 || w > 1e9 || strings.HasPrefix(frac, "-") {
		return 0, ops.Invalid("amount", "must be an amount like 25 or 25.50")
	}
	return w*100 + f, nil
}

// buyItemExtras adds the buy form's extra categories and billboard amount
// to the order item; the operations decide which products take them.
func buyItemExtras(r *http.Request, item map[string]any) error {
	var cats []any
	for _, c := range r.PostForm["categories"] {
		if c = strings.TrimSpace(c); c != "" {
			cats = append(cats, c)
		}
	}
	if len(cats) > 0 {
		item["categories"] = cats
	}
	if v := r.PostFormValue("amount"); strings.TrimSpace(v) != "" {
		c, err := amountCents(v)
		if err != nil {
			return err
		}
		item["amount_cents"] = c
	}
	return nil
}
