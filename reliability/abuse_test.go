package reliability

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFloodedKeyIsRateLimited runs the example server with its default
// limits and floods it with one public demo key: the flood gets 429 with a
// whole-second Retry-After in the area's shape, while the other site and
// the health checks are answered as usual.
func TestFloodedKeyIsRateLimited(t *testing.T) {
	t.Parallel()
	p := startServer(t, filepath.Join(t.TempDir(), "dk.db"))
	ctx := t.Context()
	// More requests than the default burst (200) plus what 100 a second
	// refill while they are sent, unless sending them takes seconds.
	const flood, workers = 1200, 8
	var mu sync.Mutex
	counts := map[int]int{}
	var limited resp
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range flood / workers {
				r, err := p.call(ctx, "GET", "/v1/delivery_tracking/orders?external_id=x", site1.rest, "")
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				mu.Lock()
				counts[r.status]++
				if r.status == 429 {
					limited = r
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if counts[429] == 0 || counts[200]+counts[429] != flood {
		t.Fatalf("statuses of the flood: %v, want 200s and 429s only, some 429", counts)
	}
	if s, err := strconv.Atoi(limited.header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q, want whole seconds", limited.header.Get("Retry-After"))
	}
	if got := str(limited.body, "error"); got == "" || !jsonHas(limited.body, "trace_id") {
		t.Errorf("429 body is not area A's error shape: %s", limited.raw)
	}
	for _, c := range []struct {
		path   string
		header map[string]string
	}{
		{"/v1/delivery_tracking/orders?external_id=x", site2.rest},
		{"/healthz", nil},
		{"/readyz", nil},
	} {
		r, err := p.call(ctx, "GET", c.path, c.header, "")
		if err != nil || r.status != 200 {
			t.Errorf("GET %s during the flood: %d %v %s", c.path, r.status, err, r.raw)
		}
	}
}

// TestReadyzSeesTheDatabaseFileGo runs the example server on a bolt file
// and takes the file away under it: /readyz answers 503 (load balancers
// stop sending writes that would be lost) while /healthz still answers
// 200 (the process is alive; restarting it is the operator's call).
func TestReadyzSeesTheDatabaseFileGo(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, db string)
	}{
		{"removed", func(t *testing.T, db string) {
			if err := os.Remove(db); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced", func(t *testing.T, db string) {
			if err := os.WriteFile(db+".new", nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(db+".new", db); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "dk.db")
			p := startServer(t, db)
			// Nothing has asked /readyz yet, so the next call probes.
			tt.change(t, db)
			ctx := context.Background()
			ready, err1 := p.call(ctx, "GET", "/readyz", nil, "")
			health, err2 := p.call(ctx, "GET", "/healthz", nil, "")
			if err1 != nil || err2 != nil || ready.status != 503 || health.status != 200 {
				t.Errorf("readyz %d (%v), healthz %d (%v); want 503, 200", ready.status, err1, health.status, err2)
			}
			if log := p.log.String(); !containsAll(log, `msg="not ready"`, db) {
				t.Errorf("the log does not say why:\n%s", log)
			}
		})
	}
}

func jsonHas(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestStalledUploadsKeepMemory is the attack on complaint photos: 40
// connections each start a 25 MiB upload to a status token nobody has
// and send 4 MiB of a photo, then stall. With no bound per address, every
// one reaches the token check and is answered 404 without its body read,
// and the server's resident memory grows by less than the 64 MiB upload
// budget (it grew by over a GiB when photos were read before the token).
func TestStalledUploadsKeepMemory(t *testing.T) {
	t.Parallel()
	p := startServer(t, filepath.Join(t.TempDir(), "dk.db"), "-uploads-per-address", "-1")
	rss := func() int64 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
		if err != nil {
			t.Skipf("no /proc to read the server's memory from: %v", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				return kb << 10
			}
		}
		t.Skip("no VmRSS in /proc")
		return 0
	}
	before := rss()
	const conns = 40
	part := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 4<<20)...)
	head := "POST /returns/customer/return/rt_nobody/items/1/complaint HTTP/1.1\r\nHost: test\r\n" +
		"Content-Type: multipart/form-data; boundary=XB\r\nContent-Length: 26000000\r\n\r\n" +
		"--XB\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n\r\n"
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		statuses = map[int]int{}
	)
	for range conns {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			if _, err := io.WriteString(c, head); err == nil {
				c.Write(part)
			}
		}()
		wg.Go(func() {
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Errorf("no answer to a stalled upload: %v", err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	grown := rss() - before
	t.Logf("resident memory %d MiB, grew by %d MiB", (before+grown)>>20, grown>>20)
	if grown >= 64<<20 {
		t.Errorf("resident memory grew by %d MiB with %d uploads stalled", grown>>20, conns)
	}
	if statuses[404] != conns {
		t.Errorf("answers %v, want %d × 404", statuses, conns)
	}
}
