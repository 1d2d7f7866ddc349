package owning

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"launchdir/app/kernel"
	"launchdir/db"
	"launchdir/ops"
)

func (a *Service) postListingUpdate(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	u := db.Update{Title: kernel.NormalizeText(in.Str("title")), Body: kernel.NormalizeText(in.Str("body")), CreatedAt: a.Now().UTC().Format(time.RFC3339)}
	var notified int
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO listing_updates(listing_id, user_id, title, body, created_at) VALUES(?,?,?,?,?)`,
			id, uid, u.Title, u.Body, u.CreatedAt)
		if err != nil {
			return err
		}
		if u.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "listing_update", u.ID, id, uid, "post_listing_update", nil, u); err != nil {
			return err
		}
		if notified, err = a.People.NotifyFollowers(ctx, tx, id, u); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, PostedUpdate{Update: u, ListingID: id, FollowersNotified: notified})
	})
	if err != nil {
		return nil, err
	}
	return PostedUpdate{Update: u, ListingID: id, FollowersNotified: notified}, nil
}

func (a *Service) addMilestone(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	m := db.Milestone{Date: in.Str("date"), Title: in.Str("title"), Description: in.Str("description"), URL: in.Str("url")}
	var out MilestoneResult
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO milestones(listing_id, date, title, description, url, created_at) VALUES(?,?,?,?,?,?)`,
			id, m.Date, m.Title, m.Description, m.URL, a.Now().UTC().Format(time.RFC3339))
		if err != nil {
			return err
		}
		if m.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "milestone", m.ID, id, uid, "add_milestone", nil, m); err != nil {
			return err
		}
		out = MilestoneResult{Milestone: m, ListingID: id, Visible: sectionUnlockedIn(ctx, tx, id, "milestones")}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (a *Service) deleteMilestone(ctx context.Context, in *ops.Input) (any, error) {
	id, mid, uid := in.Int("listing_id"), in.Int("milestone_id"), in.UserID()
	var m db.Milestone
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		err := tx.QueryRowContext(ctx, `SELECT id, date, title, description, url FROM milestones WHERE id = ? AND listing_id = ?`, mid, id).
			Scan(&m.ID, &m.Date, &m.Title, &m.Description, &m.URL)
		if db.IsNoRows(err) {
			return &ops.Error{Code: ops.CodeNotFound, Detail: "milestone not found on this listing",
				Fields: []ops.FieldError{{Field: "milestone_id", Message: "no milestone with this id on the listing"}}}
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM milestones WHERE id = ?`, mid); err != nil {
			return err
		}
		if err := a.Revise(ctx, tx, "milestone", mid, id, uid, "delete_milestone", m, nil); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, DeletedMilestone{Deleted: true, Milestone: m, ListingID: id})
	})
	if err != nil {
		return nil, err
	}
	return DeletedMilestone{Deleted: true, Milestone: m, ListingID: id}, nil
}

func (a *Service) sectionUnlocked(ctx context.Context, id int64, section string) bool {
	return sectionUnlockedIn(ctx, a.DB.R, id, section)
}

// sectionUnlockedIn reads whether a paid section shows, inside or outside a
// transaction.
func sectionUnlockedIn(ctx context.Context, q kernel.Querier, id int64, section string) bool {
	var on bool
	q.QueryRowContext(ctx, `SELECT unlock_`+section+` FROM listings WHERE id = ?`, id).Scan(&on)
	return on
}

func (a *Service) setFounderStory(ctx context.Context, in *ops.Input) (any, error) {
	id, uid := in.Int("listing_id"), in.UserID()
	str := func(name string) string { return kernel.NormalizeText(in.Str(name)) } // a form's CRLF is not a change
	s := db.Story{Title: str("title"), Story: str("story"), WhyStarted: str("why_started"), Problem: str("problem"),
		Journey: str("journey"), Challenges: str("challenges"), Achievements: str("achievements"),
		Lessons: str("lessons"), WhatsNext: str("whats_next"), UpdatedAt: a.Now().UTC().Format(time.RFC3339)}
	var out StoryResult
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := a.OwnListing(ctx, tx, uid, id); err != nil {
			return err
		}
		var before *db.Story
		var b db.Story
		err := tx.QueryRowContext(ctx, `SELECT title, story, why_started, problem, journey, challenges, achievements, lessons, whats_next
			FROM stories WHERE listing_id = ?`, id).Scan(&b.Title, &b.Story, &b.WhyStarted, &b.Problem, &b.Journey, &b.Challenges,
			&b.Achievements, &b.Lessons, &b.WhatsNext)
		if err == nil {
			before = &b
		} else if !db.IsNoRows(err) {
			return err
		}
		// PUT replaces the whole story: sections left out become empty.
		_, err = tx.ExecContext(ctx, `INSERT INTO stories(listing_id, title, story, why_started, problem, journey, challenges,
			achievements, lessons, whats_next, updated_at) VALUES(?,?,?,?,?,?,?,?,?,?,?)
			ON CONFLICT(listing_id) DO UPDATE SET title=excluded.title, story=excluded.story, why_started=excluded.why_started,
			problem=excluded.problem, journey=excluded.journey, challenges=excluded.challenges, achievements=excluded.achievements,
			lessons=excluded.lessons, whats_next=excluded.whats_next, updated_at=excluded.updated_at`,
			id, s.Title, s.Story, s.WhyStarted, s.Problem, s.Journey, s.Challenges, s.Achievements, s.Lessons, s.WhatsNext, s.UpdatedAt)
		if err != nil {
			return err
		}
		after := s
		after.UpdatedAt = ""
		if err := a.Revise(ctx, tx, "story", id, id, uid, "set_founder_story", before, after); err != nil {
			return err
		}
		out = StoryResult{Story: s, ListingID: id, Visible: sectionUnlockedIn(ctx, tx, id, "story")}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type interviewAnswer struct {
	QuestionID int64  `json:"question_id"`
	Question   string `json:"question,omitempty"`
	Answer     string `json:"answer"`
}

func (a *Service) answerInterview(ctx context.Context, in *ops.Input) (any, error) {
	var req struct {
		Answers []interviewAnswer `json:"answers"`
	}
	if err := in.Decode(&req); err != nil {
		return nil, err
	}
	uid := in.UserID()
	now := a.Now().UTC().Format(time.RFC3339)
	var out InterviewAnswers
	err := a.DB.Tx(ctx, func(tx *sql.Tx) error {
		if err := checkQuestions(ctx, tx, req.Answers); err != nil {
			return err
		}
		for _, ans := range req.Answers {
			var before *string
			var prev string
			if err := tx.QueryRowContext(ctx, `SELECT answer FROM interview_answers WHERE user_id = ? AND question_id = ?`,
				uid, ans.QuestionID).Scan(&prev); err == nil {
				before = &prev
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO interview_answers(user_id, question_id, answer, updated_at) VALUES(?,?,?,?)
				ON CONFLICT(user_id, question_id) DO UPDATE SET answer = excluded.answer, updated_at = excluded.updated_at`,
				uid, ans.QuestionID, ans.Answer, now); err != nil {
				return err
			}
			if err := a.Revise(ctx, tx, "interview_answer", ans.QuestionID, 0, uid, "answer_interview", before, ans.Answer); err != nil {
				return err
			}
		}
		var err error
		if out, err = a.myInterview(ctx, a.DB.Prepared(tx), uid); err != nil {
			return err
		}
		return kernel.RespondInTx(ctx, tx, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkQuestions requires every question id to exist and appear once.
func checkQuestions(ctx context.Context, tx *sql.Tx, answers []interviewAnswer) error {
	var bad []ops.FieldError
	seen := map[int64]bool{}
	for i, ans := range answers {
		field := fmt.Sprintf("answers[%d].question_id", i)
		if seen[ans.QuestionID] {
			bad = append(bad, ops.FieldError{Field: field, Message: "question answered twice in this request"})
			continue
		}
		seen[ans.QuestionID] = true
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM interview_questions WHERE id = ? AND active = 1`, ans.QuestionID).Scan(&one)
		if db.IsNoRows(err) {
			bad = append(bad, ops.FieldError{Field: field, Message: "no interview question has this id (see list_interview_questions)"})
		} else if err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return ops.InvalidFields(bad)
	}
	return nil
}

// myInterview reads through q: the read pool, or answer_interview's write
// transaction (its response is stored with its effect).
func (a *Service) myInterview(ctx context.Context, q db.Queries, uid int64) (InterviewAnswers, error) {
	rows, err := q.QueryContext(ctx, `SELECT q.id, q.question, a.answer FROM interview_answers a
		JOIN interview_questions q ON q.id = a.question_id WHERE a.user_id = ? ORDER BY q.position, q.id`, uid)
	if err != nil {
		return InterviewAnswers{}, err
	}
	defer rows.Close()
	out := []InterviewAnswer{}
	for rows.Next() {
		var ans InterviewAnswer
		if err := rows.Scan(&ans.QuestionID, &ans.Question, &ans.Answer); err != nil {
			return InterviewAnswers{}, err
		}
		out = append(out, ans)
	}
	var total int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM interview_questions WHERE active = 1`).Scan(&total); err != nil {
		return InterviewAnswers{}, err
	}
	return InterviewAnswers{Answers: out, Answered: len(out), Questions: total}, rows.Err()
}

// MyInterview is the person's interview answers, for the founder pages to
// show next to the questions (the same body answer_interview returns).
func (a *Service) MyInterview(ctx context.Context, uid int64) (InterviewAnswers, error) {
	return a.myInterview(ctx, a.DB.Prepared(a.DB.R), uid)
}
