// Package mailer is the real email adapter: SMTP submission configured by
// one URL, e.g. smtp://user:pass@mail.example.com:587?from=hello@example.com
// (STARTTLS when offered) or smtps://... (implicit TLS). Messages are built
// by github.com/wneessen/go-mail: Message-ID, Date, MIME-Version,
// quoted-printable UTF-8, a text part and (when given) an HTML alternative,
// and extra headers such as List-Unsubscribe.
package mailer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"launchdir/app/kernel"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// SMTP sends mail through one SMTP server.
type SMTP struct {
	host     string
	port     int
	implicit bool
	user, pw string
	from     string
}

// New parses an smtp:// or smtps:// URL.
func New(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, errors.New("smtp url must look like smtp://user:pass@host:587?from=addr")
	}
	from := u.Query().Get("from")
	if a, err := mail.ParseAddress(from); err != nil || a.Address != from {
		return nil, errors.New("smtp url needs ?from=<address>")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"smtp": "587", "smtps": "465"}[u.Scheme]
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return nil, errors.New("smtp url has a bad port")
	}
	s := &SMTP{host: u.Hostname(), port: p, implicit: u.Scheme == "smtps", from: from}
	if u.User != nil {
		s.user = u.User.Username()
		s.pw, _ = u.User.Password()
	}
	return s, nil
}

// Send delivers one plain-text message.
func (s *SMTP) Send(ctx context.Context, to, subject, body string) error {
	return s.SendEmail(ctx, kernel.Email{To: to, Subject: subject, Text: body})
}

// SendEmail delivers one message with its text and HTML parts.
func (s *SMTP) SendEmail(ctx context.Context, e kernel.Email) error {
	m, err := s.Message(e)
	if err != nil {
		return err
	}
	opts := []gomail.Option{gomail.WithPort(s.port), gomail.WithTimeout(15 * time.Second)}
	if s.implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(s.user), gomail.WithPassword(s.pw))
	}
	c, err := gomail.NewClient(s.host, opts...)
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Minute)
		defer cancel()
	}
	return c.DialAndSendWithContext(ctx, m)
}

// Message builds the MIME message of an email (exported for tests and
// previews).
func (s *SMTP) Message(e kernel.Email) (*gomail.Msg, error) {
	if strings.ContainsAny(e.To+e.Subject, "\r\n") {
		return nil, errors.New("header injection refused")
	}
	for k, v := range e.Headers {
		if strings.ContainsAny(k+v, "\r\n") {
			return nil, errors.New("header injection refused")
		}
	}
	m := gomail.NewMsg(gomail.WithEncoding(gomail.EncodingQP), gomail.WithCharset(gomail.CharsetUTF8))
	if err := m.From(s.from); err != nil {
		return nil, err
	}
	if err := m.To(e.To); err != nil {
		return nil, err
	}
	m.Subject(e.Subject)
	m.SetDate()
	m.SetMessageIDWithValue(randomID() + "@" + domainOf(s.from))
	if e.Kind == "follower_update" {
		m.SetGenHeader(gomail.HeaderPrecedence, "bulk")
	}
	for k, v := range e.Headers {
		m.SetGenHeader(gomail.Header(k), v)
	}
	m.SetBodyString(gomail.TypeTextPlain, e.Text)
	if e.HTML != "" {
		m.AddAlternativeString(gomail.TypeTextHTML, e.HTML)
	}
	for _, a := range e.Attachments {
		if strings.ContainsAny(a.Name+a.ContentType, "\r\n\"") {
			return nil, errors.New("header injection refused")
		}
		if err := m.AttachReader(a.Name, bytes.NewReader(a.Data), gomail.WithFileContentType(gomail.ContentType(a.ContentType))); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func domainOf(addr string) string {
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return addr[i+1:]
	}
	return "localhost"
}
