package routes

import (
	"bytes"
	"encoding/json"
	"net"
	"strconv"
	"strings"

	"launchdir/ops"
)

// MaxHeaderBytes bounds the request line plus headers (Go's default is
// 1 MiB); ours are a few hundred bytes, so 64 KiB is generous.
const MaxHeaderBytes = 64 << 10

// ProblemListener wraps ln so the few responses net/http writes by itself,
// before any handler runs, are problem+json like every other error: a
// malformed request line or header (for example a control character in a
// header value: 400) and headers over MaxHeaderBytes (431). net/http offers
// no hook for these; it writes them straight to the connection as
// "HTTP/1.1 <status>" + "\r\nContent-Type: text/plain; charset=utf-8\r\n
// Connection: close\r\n\r\n" + text, in one write, and closes. That header
// order (Content-Type before Connection) never occurs in a response written
// through a ResponseWriter (net/http sorts header names), so the rewrite
// cannot touch a handler's response.
func ProblemListener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c}, nil
}

type problemConn struct{ net.Conn }

const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *problemConn) Write(b []byte) (int, error) {
	if out, ok := rewriteEarlyError(b); ok {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// CloseWrite keeps net/http's half-close before hanging up on a client
// whose headers were too large (it looks for this method on the conn).
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// rewriteEarlyError turns one of net/http's plain-text early errors into
// the same response with a problem+json body.
func rewriteEarlyError(b []byte) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte("HTTP/1.1 ")) {
		return nil, false
	}
	eol := bytes.Index(b, []byte("\r\n"))
	if eol < 0 || !bytes.HasPrefix(b[eol:], []byte(goErrorHeaders)) {
		return nil, false
	}
	line := string(b[len("HTTP/1.1 "):eol]) // "400 Bad Request: invalid header field value for \"X\""
	codeText, reason, _ := strings.Cut(line, " ")
	status, err := strconv.Atoi(codeText)
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	title, detail, _ := strings.Cut(reason, ": ")
	p := ops.Problem{Type: ops.ProblemTypeBase + string(ops.CodeInvalid), Title: title, Status: status, Code: ops.CodeInvalid,
		Detail: "the request could not be read: " + strings.ToLower(title)}
	switch {
	case status == 431:
		p.Type, p.Code = ops.ProblemTypeBase+string(ops.CodeTooLarge), ops.CodeTooLarge
		p.Detail = "the request headers exceed " + strconv.Itoa(MaxHeaderBytes) + " bytes"
	case detail != "":
		p.Detail = detail
	}
	body, _ := json.Marshal(p)
	var out bytes.Buffer
	out.WriteString("HTTP/1.1 " + codeText + " " + title + "\r\n")
	out.WriteString("Content-Type: application/problem+json\r\nCache-Control: no-store\r\nConnection: close\r\n")
	out.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	out.Write(body)
	return out.Bytes(), true
}
