package mailer

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
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
	for _, want := range []string{"To: a@example.com", "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=", "line one\r\nline two"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
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
}
