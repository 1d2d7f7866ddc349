package kernel

import (
	"context"
	"database/sql"
	"encoding/json"
	"html"
	"strings"
	"time"
)

// Email is one message with a plain-text and an HTML part. Headers carries
// extra headers such as List-Unsubscribe (RFC 2369/8058).
type Email struct {
	Kind    string
	To      string
	Subject string
	Text    string
	HTML    string
	Headers map[string]string
	// Attachments are files sent with the email (a receipt's invoice).
	Attachments []Attachment
}

// Attachment is one file of an email.
type Attachment struct {
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Data        []byte `json:"data"`
}

// EmailSender is implemented by mailers that send both parts and headers
// (mailer.SMTP, LogMailer). Others get the text part through Mailer.Send.
type EmailSender interface {
	SendEmail(ctx context.Context, m Email) error
}

// SendEmail logs the email (offline default).
func (m LogMailer) SendEmail(ctx context.Context, e Email) error {
	m.Log.Info("email (not sent: no -smtp-url configured)", "to", e.To, "subject", e.Subject, "body", e.Text, "headers", e.Headers)
	return nil
}

// EnqueueMessage adds an email with both parts to the outbox inside tx.
func (a *Kernel) EnqueueMessage(ctx context.Context, tx *sql.Tx, m Email) error {
	now := a.Now().UTC().Format(time.RFC3339)
	headers := "{}"
	if len(m.Headers) > 0 {
		b, _ := json.Marshal(m.Headers)
		headers = string(b)
	}
	attachments := "[]"
	if len(m.Attachments) > 0 {
		b, _ := json.Marshal(m.Attachments)
		attachments = string(b)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO outbox(kind, to_addr, subject, body, html, headers, attachments, next_attempt_at, created_at) VALUES(?,?,?,?,?,?,?,?,?)`,
		m.Kind, m.To, m.Subject, m.Text, m.HTML, headers, attachments, now, now)
	a.WakeOutbox()
	return err
}

// LinkEmail builds an email whose point is one link (verify, reset).
func (a *Kernel) LinkEmail(ctx context.Context, kind, to, subject, intro, link, button, outro string) Email {
	text := intro + "\n\n" + link + "\n\n" + outro + "\n\n-- \n" + a.SiteName(ctx) + " " + a.Origin(ctx) + "\n"
	return Email{Kind: kind, To: to, Subject: subject, Text: text,
		HTML: a.HTMLEmail(ctx, Paragraph(intro)+ButtonHTML(link, button)+Paragraph(outro))}
}

// Paragraph turns plain text (blank lines between paragraphs) into HTML.
func Paragraph(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(strings.TrimSpace(s), "\n\n") {
		b.WriteString(`<p style="margin:0 0 16px">` + strings.ReplaceAll(html.EscapeString(p), "\n", "<br>") + "</p>\n")
	}
	return b.String()
}

// ButtonHTML is a link styled as a button, with the address spelled out.
func ButtonHTML(link, label string) string {
	l := html.EscapeString(link)
	return `<p style="margin:0 0 16px"><a href="` + l + `" style="display:inline-block;padding:10px 18px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">` +
		html.EscapeString(label) + `</a></p>` + "\n" + `<p style="margin:0 0 16px;font-size:13px;color:#4b5563">Or copy this address: ` + l + "</p>\n"
}

// HTMLEmail wraps content in a minimal, inline-styled document (mail
// clients ignore style sheets).
func (a *Kernel) HTMLEmail(ctx context.Context, content string) string {
	site := html.EscapeString(a.SiteName(ctx))
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>` + site + `</title></head>` +
		`<body style="margin:0;padding:24px;font-family:system-ui,-apple-system,Segoe UI,sans-serif;font-size:15px;line-height:1.5;color:#111827;background:#ffffff">` + "\n" +
		content + `<p style="margin:24px 0 0;font-size:13px;color:#4b5563">` + site + ` &middot; <a href="` + html.EscapeString(a.Origin(ctx)) + `" style="color:#1d4ed8">` +
		html.EscapeString(a.Origin(ctx)) + "</a></p>\n</body></html>\n"
}

// Escape escapes text for an HTML email.
func Escape(s string) string { return html.EscapeString(s) }
