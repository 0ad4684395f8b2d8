package reliability

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
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
