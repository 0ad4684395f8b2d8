package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// countingListener counts the writes of the connections it accepts.
type countingListener struct {
	net.Listener
	mu     sync.Mutex
	writes int
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, l: l}, nil
}

func (l *countingListener) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes
}

type countingConn struct {
	net.Conn
	l *countingListener
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.writes++
	c.l.mu.Unlock()
	return c.Conn.Write(p)
}

// serveCounted serves h, through Listener and ConnContext when held, and
// returns the server's address and its write counter.
func serveCounted(t *testing.T, h http.Handler, held bool) (string, *countingListener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingListener{Listener: ln}
	srv := &http.Server{Handler: h}
	var serving net.Listener = counted
	if held {
		srv.ConnContext = ConnContext
		serving = Listener(counted)
	}
	go srv.Serve(serving)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), counted
}

// bigAnswer is an answer of about n bytes of JSON.
type bigAnswer struct {
	Text string `json:"text"`
}

func TestListenerSendsAnswerInOneWrite(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	tests := []struct {
		name       string
		size       int
		held       bool
		wantWrites int
	}{
		{"small answer", 100, true, 1},
		{"small answer, not held", 100, false, 1},
		// Header and body exceed net/http's 4 KiB connection buffer.
		{"5 KB answer", 5000, true, 1},
		{"5 KB answer, not held", 5000, false, 2},
		{"60 KB answer", 60 << 10, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Repeat("x", tt.size)
			h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, bigAnswer{Text: text})
			}))
			addr, counted := serveCounted(t, h, tt.held)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			// Two requests on one connection: the second is answered
			// alike, the hold having ended with the first.
			for i := range 2 {
				before := counted.count()
				fmt.Fprintf(conn, "GET /x HTTP/1.1\r\nHost: test\r\n\r\n")
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(res.Body)
				res.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(`{"text":"`+text+`"}`+"\n", string(body)); diff != "" {
					t.Fatalf("request %d: body (-want +got):\n%.300s", i, diff)
				}
				if got := counted.count() - before; got != tt.wantWrites {
					t.Errorf("request %d: %d writes, want %d", i, got, tt.wantWrites)
				}
			}
		})
	}
}

// A streamed answer (no Content-Length) larger than the bound of what a
// connection holds arrives whole.
func TestListenerStreamedAnswer(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	chunk := strings.Repeat("y", 10<<10)
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range 20 {
			io.WriteString(w, chunk)
		}
	}))
	addr, _ := serveCounted(t, h, true)
	res, err := http.Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != 20*len(chunk) || strings.Trim(string(body), "y") != "" {
		t.Errorf("streamed body: %d bytes, want %d", len(body), 20*len(chunk))
	}
}

// A client that waits for "100 Continue" before it sends its body gets it
// while the connection is held.
func TestListenerExpectContinue(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, http.StatusOK, bigAnswer{Text: string(b)})
	}))
	addr, _ := serveCounted(t, h, true)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A bound on a failure (a server that never sends 100 Continue), not
	// a wait for something to happen.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	deadline, _ := ctx.Deadline()
	conn.SetDeadline(deadline)
	fmt.Fprintf(conn, "POST /x HTTP/1.1\r\nHost: test\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
	br := bufio.NewReader(conn)
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("before the body: %q, %v; want 100 Continue", line, err)
	}
	if _, err := br.ReadString('\n'); err != nil { // the empty line
		t.Fatal(err)
	}
	io.WriteString(conn, "hello")
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if diff := cmp.Diff(`{"text":"hello"}`+"\n", string(body)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// A handler that panics still answers, and the connection is released.
func TestListenerPanic(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/panic" {
			panic("boom")
		}
		writeJSON(w, http.StatusOK, bigAnswer{Text: "fine"})
	}))
	addr, _ := serveCounted(t, h, true)
	for _, tt := range []struct {
		path       string
		wantStatus int
	}{{"/panic", http.StatusInternalServerError}, {"/ok", http.StatusOK}} {
		res, err := http.Get("http://" + addr + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != tt.wantStatus {
			t.Errorf("%s: status %d, want %d", tt.path, res.StatusCode, tt.wantStatus)
		}
	}
}

// A handler that flushes is streaming: what it flushed reaches the client
// before it returns.
func TestListenerFlushStreams(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	proceed := make(chan struct{})
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("flush: %v", err)
		}
		<-proceed
		io.WriteString(w, "second\n")
	}))
	addr, _ := serveCounted(t, h, true)
	// The timeout bounds a failure (the first line never comes); it is
	// not a wait for anything to happen.
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	first, err := br.ReadString('\n')
	if err != nil || first != "first\n" {
		t.Fatalf("before the handler returned: %q, %v", first, err)
	}
	close(proceed)
	rest, _ := io.ReadAll(br)
	if string(rest) != "second\n" {
		t.Errorf("then: %q", rest)
	}
}

// Closing the server ends a write blocked on a client that does not read,
// even while the connection is held.
func TestListenerCloseEndsBlockedWrite(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	chunk := make([]byte, 1<<20)
	writing := make(chan struct{})
	ended := make(chan error, 1)
	h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(writing)
		for {
			if _, err := w.Write(chunk); err != nil {
				ended <- err
				return
			}
		}
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ConnContext: ConnContext}
	go srv.Serve(Listener(ln))
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /x HTTP/1.1\r\nHost: test\r\n\r\n") // and never read
	<-writing
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	// The bound is for a failure (a Close that waits for the write); the
	// test does not wait for anything to happen in time.
	bound := time.NewTimer(10 * time.Second)
	defer bound.Stop()
	for range 2 {
		select {
		case <-closed:
			closed = nil
		case err := <-ended:
			if err == nil {
				t.Error("the handler's write ended without an error")
			}
			ended = nil
		case <-bound.C:
			t.Fatal("srv.Close or the blocked write did not return")
		}
	}
}

// A request whose answer left from inside the handler (held, larger
// than net/http's buffer) ends with a yield (requestDone with early set);
// one whose answer net/http writes after the handler returns (a small
// answer, or a connection served without Listener) does not.
func TestListenerRequestDoneYieldsWhenAnsweredEarly(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	ended := make(chan bool, 8)
	s.requestDone = func(early bool) { ended <- early }
	tests := []struct {
		name      string
		size      int
		held      bool
		wantEarly bool
	}{
		{"5 KB answer, held", 5000, true, true},
		{"small answer, held", 100, true, false},
		{"5 KB answer, not held", 5000, false, false},
		{"small answer, not held", 100, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Repeat("x", tt.size)
			h := s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, bigAnswer{Text: text})
			}))
			addr, _ := serveCounted(t, h, tt.held)
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			var got []bool
			for range 3 {
				fmt.Fprintf(conn, "GET /x HTTP/1.1\r\nHost: test\r\n\r\n")
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				select {
				case e := <-ended:
					got = append(got, e)
				case <-time.After(10 * time.Second):
					t.Fatal("the request did not end")
				}
			}
			want := []bool{tt.wantEarly, tt.wantEarly, tt.wantEarly}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("requestDone's early (-want +got):\n%s", diff)
			}
		})
	}
}
