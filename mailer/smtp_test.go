package mailer

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"testing"

	"launchdir/app/kernel"
)

// fakeSMTP speaks just enough SMTP to receive one message.
func fakeSMTP(t *testing.T) (addr string, got chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got = make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		say := func(s string) { c.Write([]byte(s + "\r\n")) }
		say("220 fake ESMTP")
		var data strings.Builder
		inData := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if inData {
				if line == ".\r\n" {
					inData = false
					got <- data.String()
					say("250 queued")
					continue
				}
				data.WriteString(line)
				continue
			}
			switch cmd := strings.ToUpper(strings.Fields(line)[0]); cmd {
			case "EHLO", "HELO":
				say("250 fake")
			case "DATA":
				inData = true
				say("354 go ahead")
			case "QUIT":
				say("221 bye")
				return
			default:
				say("250 ok")
			}
		}
	}()
	return ln.Addr().String(), got
}

func TestSMTPSend(t *testing.T) {
	addr, got := fakeSMTP(t)
	m, err := New("smtp://" + addr + "?from=hello@launchdir.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), "a@example.com", "Grüße", "line one\nline two"); err != nil {
		t.Fatal(err)
	}
	msg := <-got
	for _, want := range []string{"To: <a@example.com>", "Subject: =?UTF-8?q?Gr=C3=BC=C3=9Fe?=", "Message-ID: <", "@launchdir.test>",
		"Date: ", "MIME-Version: 1.0", "Content-Transfer-Encoding: quoted-printable", "Content-Type: text/plain; charset=UTF-8", "line one\r\nline two"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%q", want, msg)
		}
	}
}

// A message with both parts and List-Unsubscribe, as a follower email is
// sent, read back with the standard library's MIME parser.
func TestSMTPSendEmailParts(t *testing.T) {
	addr, got := fakeSMTP(t)
	m, _ := New("smtp://" + addr + "?from=hello@launchdir.test")
	long := strings.Repeat("Grüße aus Köln ", 10)
	e := kernel.Email{Kind: "follower_update", To: "f@example.com", Subject: "QuickBase: v3 ist da", Text: long + "\nhttps://x.test/unsubscribe/abc",
		HTML: "<p>" + long + "</p>", Headers: map[string]string{"List-Unsubscribe": "<https://x.test/unsubscribe/abc>",
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}}
	if err := m.SendEmail(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	raw := <-got
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	h := msg.Header
	if h.Get("List-Unsubscribe") != "<https://x.test/unsubscribe/abc>" || h.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" ||
		h.Get("Message-Id") == "" || h.Get("Date") == "" {
		t.Fatalf("headers %v", h)
	}
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("content type %q %v", h.Get("Content-Type"), err)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	var types []string
	for {
		p, err := r.NextPart() // decodes quoted-printable
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		types = append(types, p.Header.Get("Content-Type"))
		if !strings.Contains(string(b), long) {
			t.Errorf("part %s lost its UTF-8 text: %q", p.Header.Get("Content-Type"), b)
		}
	}
	if strings.Join(types, ",") != "text/plain; charset=UTF-8,text/html; charset=UTF-8" {
		t.Fatalf("parts %v", types)
	}
	for _, line := range strings.Split(raw, "\r\n") {
		if len(line) > 998 {
			t.Fatalf("line of %d bytes", len(line))
		}
	}
}

func TestSMTPURLAndInjection(t *testing.T) {
	for _, bad := range []string{"http://x", "smtp://host", "smtp://host?from=nope"} {
		if _, err := New(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	m, _ := New("smtp://127.0.0.1:1?from=a@b.c")
	if err := m.Send(context.Background(), "a@b.c\r\nBcc: x@y.z", "s", "b"); err == nil || !strings.Contains(err.Error(), "injection") {
		t.Errorf("header injection: %v", err)
	}
	if err := m.SendEmail(context.Background(), kernel.Email{To: "a@b.c", Subject: "s", Text: "b",
		Headers: map[string]string{"List-Unsubscribe": "<x>\r\nBcc: x@y.z"}}); err == nil || !strings.Contains(err.Error(), "injection") {
		t.Errorf("header injection in extra headers: %v", err)
	}
}

// A receipt with its invoice attached: multipart/mixed with the text and
// HTML alternative and the PDF, whose bytes come back intact.
func TestSMTPAttachment(t *testing.T) {
	addr, got := fakeSMTP(t)
	m, _ := New("smtp://" + addr + "?from=hello@launchdir.test")
	pdf := []byte("%PDF-1.3\n\x00\x01binary\xff")
	e := kernel.Email{Kind: "receipt", To: "b@example.com", Subject: "Receipt", Text: "Thanks", HTML: "<p>Thanks</p>",
		Attachments: []kernel.Attachment{{Name: "INV-000001.pdf", ContentType: "application/pdf", Data: pdf}}}
	if err := m.SendEmail(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(strings.NewReader(<-got))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, _ := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if mt != "multipart/mixed" {
		t.Fatalf("content type %q", mt)
	}
	r := multipart.NewReader(msg.Body, params["boundary"])
	found := false
	for {
		p, err := r.NextPart()
		if err != nil {
			break
		}
		if strings.HasPrefix(p.Header.Get("Content-Type"), "application/pdf") {
			b, _ := io.ReadAll(base64.NewDecoder(base64.StdEncoding, p))
			found = string(b) == string(pdf) && p.FileName() == "INV-000001.pdf"
		}
	}
	if !found {
		t.Fatal("no intact PDF attachment")
	}
	bad := e
	bad.Attachments = []kernel.Attachment{{Name: "x.pdf\r\nBcc: evil@example.com", ContentType: "application/pdf"}}
	if _, err := m.Message(bad); err == nil {
		t.Fatal("header injection through a file name")
	}
}
