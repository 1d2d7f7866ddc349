package site_test

import (
	"net/url"
	"strings"
	"testing"
)

func TestFounderInterviewAnswers(t *testing.T) {
	e := newAreaEnv(t)
	if _, err := e.DB.W.Exec(`INSERT INTO interview_questions(id, position, question, hint) VALUES
		(7, 1, 'Why did you start?', 'The moment it clicked'), (8, 2, 'What is next?', ''), (9, 3, 'Retired question', '')`); err != nil {
		t.Fatal(err)
	}
	e.DB.W.Exec(`UPDATE interview_questions SET active = 0 WHERE id = 9`)
	owner := e.as(1)
	pg := owner.get("/me/listings/1")
	if !strings.Contains(pg.body, `name="q-7"`) || !strings.Contains(pg.body, "Why did you start?") || !strings.Contains(pg.body, "The moment it clicked") ||
		!strings.Contains(pg.body, `name="q-8"`) || strings.Contains(pg.body, "Retired question") {
		t.Fatalf("questions: %s", pg.body)
	}
	// The bound is the API's: 4000 characters, one more is refused naming the question.
	long := strings.Repeat("a", 4001)
	pg = owner.post("/me/listings/1/interview", "/me/listings/1", url.Values{"q-7": {"ok"}, "q-8": {long}})
	if pg.status != 400 || !strings.Contains(pg.body, "(What is next?): must be at most 4000 characters") || !strings.Contains(pg.body, long) {
		t.Fatalf("4001: %d %s", pg.status, pg.body)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM interview_answers`); n != 0 {
		t.Fatalf("a refused request wrote %d answers", n)
	}
	ok := strings.Repeat("b", 4000)
	pg = owner.post("/me/listings/1/interview", "/me/listings/1", url.Values{"q-7": {"In a garage."}, "q-8": {ok}})
	if pg.status != 303 || pg.loc != "/me/listings/1?done=interview" {
		t.Fatalf("4000: %d %s", pg.status, pg.body)
	}
	if pg := owner.get("/me/listings/1"); !strings.Contains(pg.body, "In a garage.") || !strings.Contains(pg.body, ok) {
		t.Fatal("answers not shown")
	}
	if n := count(t, e.Env, `SELECT count(*) FROM revisions WHERE operation = 'answer_interview'`); n != 2 {
		t.Fatalf("revisions: %d", n)
	}
	// Unchanged answers are not sent again; another founder's listing is a 404.
	if pg := owner.post("/me/listings/1/interview", "/me/listings/1", url.Values{"q-7": {"In a garage."}}); pg.status != 303 {
		t.Fatalf("unchanged: %d", pg.status)
	}
	if n := count(t, e.Env, `SELECT count(*) FROM revisions WHERE operation = 'answer_interview'`); n != 2 {
		t.Fatalf("unchanged answer revised: %d", n)
	}
	if pg := e.as(2).post("/me/listings/1/interview", "/me/keys", url.Values{"q-7": {"x"}}); pg.status != 404 {
		t.Fatalf("another founder: %d", pg.status)
	}
}
