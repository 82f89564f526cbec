package main

import (
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestChatIDBytes: a chat ID with NUL or invalid UTF-8 is a 400 on every
// route, whatever the store. (In a JSON body, invalid UTF-8 decodes to
// U+FFFD, so only the path can carry it.)
func TestChatIDBytes(t *testing.T) {
	h, _ := newHandler(t, nil)
	for _, id := range []string{"a\x00b", "a\xffb"} {
		for _, path := range []string{"/api/chats/" + url.PathEscape(id) + "/payload", "/api/payload"} {
			body := chatJSON(t, 2)
			if path == "/api/payload" {
				if !utf8.ValidString(id) {
					continue
				}
				body = strings.Replace(body, `{"messages"`, `{"id":"a\u0000b","messages"`, 1)
			}
			w := serve(h, t.Context(), path, body)
			if w.Code != 400 || !strings.Contains(w.Body.String(), "id: must") {
				t.Errorf("id %q on %s: %d %s, want 400", id, path, w.Code, w.Body)
			}
		}
	}
}

// TestMaxConns: at -max-conns, a new connection is served at once, the
// connection idle longest closed to make room; connections that are
// serving a request are never closed for it: with all of them busy, a new
// one waits in the backlog until one closes.
func TestMaxConns(t *testing.T) {
	base := startServer(t, nil, "-max-conns", "2")
	addr := strings.TrimPrefix(base, "http://")
	var conns []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	// Both are idle (no request sent): a third is served, the oldest
	// closed.
	third, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	third.Write([]byte("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"))
	third.SetReadDeadline(time.Now().Add(hangGuard))
	buf := make([]byte, 64)
	if n, err := third.Read(buf); err != nil || !strings.HasPrefix(string(buf[:n]), "HTTP/1.1 200") {
		t.Fatalf("a third connection with two idle ones open: %q, %v; want it served", buf[:n], err)
	}
	conns[0].SetReadDeadline(time.Now().Add(hangGuard))
	if n, err := conns[0].Read(buf); n != 0 || err == nil {
		t.Errorf("the idlest connection was not closed: %d bytes, %v", n, err)
	}
}
