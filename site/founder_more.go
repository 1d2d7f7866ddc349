package site

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"launchdir/app"
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
	var qs app.InterviewQuestions
	if err := s.op(ctx, uid, "list_interview_questions", nil, &qs); err != nil {
		return nil, err
	}
	mine, err := s.App.MyInterview(ctx, uid)
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
	out := make([]socialLink, 0, len(app.SocialPlatforms))
	for _, p := range app.SocialPlatforms {
		out = append(out, socialLink{Name: prefix + p, Platform: p, Value: links[p]})
	}
	return out
}

// socialsForm reads a social links form (fields prefix+platform); an
// empty link is left out, so the map replaces all links.
func socialsForm(r *http.Request, prefix string) map[string]any {
	out := map[string]any{}
	for _, p := range app.SocialPlatforms {
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
