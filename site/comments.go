package site

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"launchdir/app/conversation"
	"launchdir/app/kernel"
	"launchdir/ops"
	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The conversation on a listing's page (issue 22): comments with one
// level of replies, edits, deletes, upvotes, reports and the pinned
// maker's comment; the upcoming listing page with "notify me at launch";
// the notification settings page. Every rule is app/conversation's; a
// refused form re-renders the page with what was typed and the message
// beside the form it came from.

const commentsPerPage = 20

// commentsData is the comments section of a listing or upcoming page.
type commentsData struct {
	Slug, Name string
	Shown      int // comments shown with their text (the heading's count)
	Sort       string
	List       kernel.Page[conversation.Comment]
	Pager      *Pager
	IsOwner    bool
	Form       commentForm
	MaxBody    int
}

// commentForm is a refused or pending form: which form (new comment, reply
// to a parent, edit of a comment), what was typed, and the message.
type commentForm struct {
	Parent, Edit int64
	Body         string
	Error        string
}

// For is the typed text of the form of this kind and id, if it failed.
func (f commentForm) For(kind string, id int64) bool {
	switch kind {
	case "new":
		return f.Error != "" && f.Parent == 0 && f.Edit == 0
	case "reply":
		return f.Error != "" && f.Parent == id
	case "edit":
		return f.Error != "" && f.Edit == id
	}
	return false
}

func init() {
	// The comment's HTML is rendered and sanitised by the business layer
	// (kernel.RenderComment) before it reaches a template.
	funcs["safeComment"] = func(s string) template.HTML { return template.HTML(s) }
	funcs["dict"] = func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	doneNotes["commented"] = "Your comment is posted."
	doneNotes["comment-edited"] = "Your comment is updated."
	doneNotes["comment-deleted"] = "Your comment is deleted."
	doneNotes["upvoted"] = "Your upvote is in."
	doneNotes["unupvoted"] = "Your upvote is withdrawn."
	doneNotes["pinned"] = "Your comment is pinned as the maker's comment."
	doneNotes["unpinned"] = "Your comment is no longer pinned."
	doneNotes["watching"] = "We will email you when it launches."
	doneNotes["unwatching"] = "You will not get an email at its launch."
}

// comments builds the comments section for the page of slug.
func (s *Site) comments(r *http.Request, slug, name string, person *Person, form commentForm) (*commentsData, error) {
	page, err := pageParam(r)
	if err != nil {
		return nil, err
	}
	sort := r.URL.Query().Get("sort")
	if sort != "top" {
		sort = "newest"
	}
	var viewer int64
	if person != nil {
		viewer = person.ID
	}
	list, err := s.App.Conversation.List(r.Context(), slug, sort, page, commentsPerPage, viewer)
	if err != nil {
		return nil, err
	}
	d := &commentsData{Slug: slug, Name: name, Sort: sort, List: list, Pager: newPager(r, page, commentsPerPage, list.Total),
		Form: form, MaxBody: conversation.MaxCommentBody}
	if d.Shown, d.IsOwner, err = s.App.Conversation.Summary(r.Context(), slug, viewer); err != nil {
		return nil, err
	}
	return d, nil
}

func (s *Site) mountConversation(srv *routes.Server) {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.forbidden(w, r, "This form was sent from another site, so it was refused.")
	}))
	post := func(path string, h httprouter.Handle) {
		srv.Handle(http.MethodPost, path, cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h(w, r, httprouter.ParamsFromContext(r.Context()))
		})))
	}
	post("/listings/:slug/comments", s.postComment)
	post("/listings/:slug/comments/:id/edit", s.editComment)
	post("/listings/:slug/comments/:id/delete", s.deleteComment)
	post("/listings/:slug/comments/:id/upvote", s.upvoteComment)
	post("/listings/:slug/comments/:id/report", s.reportComment)
	post("/listings/:slug/comments/:id/pin", s.pinComment)
	post("/listings/:slug/notify-me", s.notifyMe)
	srv.Handle(http.MethodGet, "/settings/notifications", s.pageHandler(s.notificationSettings))
	post("/settings/notifications", s.saveNotificationSettings)
	s.mountDispute(func(method, path string, h httprouter.Handle) {
		if method == http.MethodPost {
			post(path, h)
			return
		}
		srv.Handle(method, path, s.pageHandler(h))
	})
}

// commentAction is the signed-in person and the comment id of a form, or
// nil after a redirect to sign in or a refusal.
func (s *Site) commentAction(w http.ResponseWriter, r *http.Request, ps httprouter.Params) (*Person, string, int64) {
	slug := ps.ByName("slug")
	p := s.signedIn(w, r, "/listings/"+slug+"#comments")
	if p == nil {
		return nil, slug, 0
	}
	id, _ := strconv.ParseInt(ps.ByName("id"), 10, 64)
	return p, slug, id
}

// afterComment returns to the thread, or re-renders the page with the
// typed text and the message when the form was refused.
func (s *Site) afterComment(w http.ResponseWriter, r *http.Request, slug, note string, anchor int64, form commentForm, err error) {
	if err != nil {
		e := ops.AsError(err)
		if e.Code == ops.CodeNotFound || e.Code == ops.CodeInternal {
			s.errorPage(w, r, err)
			return
		}
		if e.Code == ops.CodeRateLimited {
			w.Header().Set("Retry-After", strconv.Itoa(max(int(e.RetryAfter.Seconds()+0.999), 1)))
		}
		form.Error = humanProblem(e)
		s.showListing(w, r, slug, &form, e.Code.Status())
		return
	}
	frag := "#comments"
	if anchor > 0 {
		frag = "#comment-" + strconv.FormatInt(anchor, 10)
	}
	http.Redirect(w, r, "/listings/"+slug+"?done="+url.QueryEscape(note)+frag, http.StatusSeeOther)
}

// humanProblem is an error as one sentence: field messages without the
// API's "field: " prefixes.
func humanProblem(e *ops.Error) string {
	msg := e.Detail
	if len(e.Fields) > 0 {
		var parts []string
		for _, f := range e.Fields {
			parts = append(parts, f.Message)
		}
		msg = strings.Join(parts, "; ")
	}
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

func (s *Site) postComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, slug, _ := s.commentAction(w, r, ps)
	if p == nil {
		return
	}
	parent, _ := strconv.ParseInt(r.PostFormValue("parent"), 10, 64)
	form := commentForm{Parent: parent, Body: r.PostFormValue("body")}
	c, err := s.App.Conversation.Post(r.Context(), p.ID, slug, parent, form.Body, s.clientIP(r))
	var id int64
	if c != nil {
		id = c.ID
	}
	s.afterComment(w, r, slug, "commented", id, form, err)
}

func (s *Site) editComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, slug, id := s.commentAction(w, r, ps)
	if p == nil {
		return
	}
	form := commentForm{Edit: id, Body: r.PostFormValue("body")}
	_, err := s.App.Conversation.Edit(r.Context(), p.ID, id, form.Body)
	s.afterComment(w, r, slug, "comment-edited", id, form, err)
}

func (s *Site) deleteComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, slug, id := s.commentAction(w, r, ps)
	if p == nil {
		return
	}
	_, err := s.App.Conversation.Delete(r.Context(), p.ID, id)
	s.afterComment(w, r, slug, "comment-deleted", id, commentForm{}, err)
}

func (s *Site) upvoteComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, slug, id := s.commentAction(w, r, ps)
	if p == nil {
		return
	}
	on, _, err := s.App.Conversation.ToggleUpvote(r.Context(), p.ID, id)
	s.afterComment(w, r, slug, map[bool]string{true: "upvoted", false: "unupvoted"}[on], id, commentForm{}, err)
}

func (s *Site) reportComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, slug, id := s.commentAction(w, r, ps)
	if p == nil {
		return
	}
	err := s.App.Conversation.Report(r.Context(), p.ID, id, r.PostFormValue("reason"))
	s.afterComment(w, r, slug, "reported", id, commentForm{}, err)
}

func (s *Site) pinComment(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	p, slug, id := s.commentAction(w, r, ps)
	if p == nil {
		return
	}
	pin := r.PostFormValue("pinned") == "1"
	_, err := s.App.Conversation.Pin(r.Context(), p.ID, id, pin)
	s.afterComment(w, r, slug, map[bool]string{true: "pinned", false: "unpinned"}[pin], id, commentForm{}, err)
}

func (s *Site) notifyMe(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	slug := ps.ByName("slug")
	p := s.signedIn(w, r, "/listings/"+slug)
	if p == nil {
		return
	}
	on, err := s.App.Conversation.ToggleLaunchNotice(r.Context(), p.ID, slug)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, "/listings/"+slug+"?done="+map[bool]string{true: "watching", false: "unwatching"}[on], http.StatusSeeOther)
}

func derefForm(f *commentForm) commentForm {
	if f == nil {
		return commentForm{}
	}
	return *f
}

// upcomingData is the public page of a scheduled listing.
type upcomingData struct {
	U        *conversation.Upcoming
	Comments *commentsData
	Done     string
}

// upcoming shows a scheduled listing (get_listing serves live ones only).
func (s *Site) upcoming(w http.ResponseWriter, r *http.Request, slug string, form *commentForm, status int) bool {
	p := s.page(r, "", "", nil)
	var viewer int64
	if p.Person != nil {
		viewer = p.Person.ID
	}
	u, err := s.App.Conversation.UpcomingListing(r.Context(), slug, viewer)
	if err != nil {
		return false
	}
	d := &upcomingData{U: u, Done: doneNotes[r.URL.Query().Get("done")]}
	if d.Comments, err = s.comments(r, slug, u.Name, p.Person, derefForm(form)); err != nil {
		s.errorPage(w, r, err)
		return true
	}
	p.Title, p.Description, p.Data, p.Status = u.Name+": launching soon", firstNonEmpty(u.ShortDescription, u.Tagline), d, status
	p.Path = "/listings/" + slug
	s.render(w, r, "upcoming", p)
	return true
}

// notificationsData is the settings page.
type notificationsData struct {
	Settings []kernel.NotifySetting
	Notice   string
}

func (s *Site) notificationSettings(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	p := s.signedIn(w, r, "/settings/notifications")
	if p == nil {
		return
	}
	s.renderNotifications(w, r, p, r.URL.Query().Get("done") == "saved")
}

func (s *Site) renderNotifications(w http.ResponseWriter, r *http.Request, p *Person, saved bool) {
	set, err := s.App.NotificationSettings(r.Context(), p.ID)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	d := &notificationsData{Settings: set}
	if saved {
		d.Notice = "Your email settings are saved."
	}
	pg := s.page(r, "Email settings", "Choose which emails you get", d)
	pg.NoIndex, pg.private, pg.Narrow = true, true, true
	s.render(w, r, "notifications", pg)
}

func (s *Site) saveNotificationSettings(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	p := s.signedIn(w, r, "/settings/notifications")
	if p == nil {
		return
	}
	changes := map[string]bool{}
	for _, k := range kernel.NotifyKinds {
		changes[k.Key] = r.PostFormValue(k.Key) == "on"
	}
	if err := s.App.Conversation.SetNotifications(r.Context(), p.ID, changes); err != nil {
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, "/settings/notifications?done=saved", http.StatusSeeOther)
}
