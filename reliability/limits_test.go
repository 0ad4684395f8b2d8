package reliability

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlowClientsAreCutOff runs the example server and opens two slow
// connections: one that never finishes its header and one that never
// finishes its body. The server cuts the first off after its header
// timeout (5 s) and the second after its read timeout (30 s), keeps
// answering other clients meanwhile, and the half-sent write changes
// nothing.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	p := startServer(t, filepath.Join(t.TempDir(), "dk.db"))

	type result struct {
		elapsed time.Duration
		answer  string
	}
	slow := func(partial string) <-chan result {
		out := make(chan result, 1)
		conn, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		began := time.Now()
		if _, err := io.WriteString(conn, partial); err != nil {
			t.Fatal(err)
		}
		go func() {
			conn.SetReadDeadline(time.Now().Add(90 * time.Second))
			b, _ := io.ReadAll(conn) // ends when the server closes
			first, _, _ := strings.Cut(string(b), "\r\n")
			out <- result{time.Since(began), first}
		}()
		return out
	}
	header := slow("POST /v1/delivery_tracking/order HTTP/1.1\r\nHost: x\r\nAuthorization: ")
	body := `{"external_id": "slow-1", "carrier_product_ref": "north-parcel-home", "sender": {"name": "S"}, "receiver": {"name": "R"},
		"destination": {"address": {"country": "SE"}}, "delivery_type": "DELIVERY"}`
	bodyConn := slow(fmt.Sprintf("POST /v1/delivery_tracking/order HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		site1.rest["Authorization"], len(body), body[:20]))

	// Other clients are served while both stall.
	for range 3 {
		r, err := p.call(context.Background(), "GET", "/healthz", nil, "")
		if err != nil || r.status != 200 {
			t.Fatalf("healthz while slow clients stall: %v %d", err, r.status)
		}
	}
	h := <-header
	t.Logf("slow header: cut off after %v (%q)", h.elapsed.Round(time.Millisecond), h.answer)
	if h.elapsed < 4*time.Second || h.elapsed > 20*time.Second {
		t.Errorf("slow header cut off after %v, want about 5s", h.elapsed)
	}
	if strings.Contains(h.answer, " 2") {
		t.Errorf("slow header answered %q", h.answer)
	}
	b := <-bodyConn
	t.Logf("slow body: cut off after %v (%q)", b.elapsed.Round(time.Millisecond), b.answer)
	if b.elapsed < 25*time.Second || b.elapsed > 60*time.Second {
		t.Errorf("slow body cut off after %v, want about 30s", b.elapsed)
	}
	if strings.Contains(b.answer, " 200 ") {
		t.Errorf("slow body answered %q", b.answer)
	}
	r, err := p.call(context.Background(), "GET", "/v1/delivery_tracking/orders?external_id=slow-1", site1.rest, "")
	if err != nil || r.status != 200 || len(get(r.body, "orders").([]any)) != 0 {
		t.Errorf("the half-sent order: %v %d %s", err, r.status, r.raw)
	}
}

// TestGracefulShutdown: a request in flight when SIGTERM arrives is
// finished and answered, its write is kept, the server then exits cleanly,
// and a new connection is refused during the shutdown. Without a drain
// delay (examples/server's tests see /readyz turn 503 during one).
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "dk.db")
	p := startServer(t, db, "-drain-delay", "0")
	body := `{"external_id": "in-flight", "carrier_product_ref": "north-parcel-home", "sender": {"name": "S"}, "receiver": {"name": "R"},
		"destination": {"address": {"country": "SE"}}, "delivery_type": "DELIVERY"}`
	conn, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	// Expect: 100-continue makes the server say when the handler starts
	// reading the body: from then on the request is in flight.
	fmt.Fprintf(conn, "POST /v1/delivery_tracking/order HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n",
		site1.rest["Authorization"], len(body))
	rd := bufio.NewReader(conn)
	line, err := rd.ReadString('\n')
	if err != nil || !strings.Contains(line, "100 Continue") {
		t.Fatalf("want 100 Continue, got %q %v", line, err)
	}
	rd.ReadString('\n') // the blank line after it

	p.cmd.Process.Signal(syscall.SIGTERM)
	waitLog(t, p, "shutting down")
	if _, err := net.DialTimeout("tcp", p.addr, time.Second); err == nil {
		t.Errorf("a new connection was accepted during the shutdown")
	}
	io.WriteString(conn, body)
	res, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("in-flight request: %v", err)
	}
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("in-flight request: %d %s", res.StatusCode, raw)
	}
	<-p.done
	if !p.cmd.ProcessState.Success() {
		t.Fatalf("exit: %v\n%s", p.cmd.ProcessState, p.log.String())
	}
	// The write survived.
	p = startServer(t, db)
	if err := expect(context.Background(), p, "GET", "/v1/delivery_tracking/orders?external_id=in-flight", site1.rest, "orders", 0, "external_id", "in-flight"); err != nil {
		t.Error(err)
	}
}

// waitLog waits until the server has logged a line containing s.
func waitLog(t *testing.T, p *proc, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.log.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the server never logged %q:\n%s", s, p.log.String())
		}
		select {
		case <-p.done:
			if !strings.Contains(p.log.String(), s) {
				t.Fatalf("the server exited without logging %q:\n%s", s, p.log.String())
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
}
