package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hanging is a receiver that takes requests and answers none until
// released; it counts the requests in flight per path.
type hanging struct {
	*receiver
	arrived chan string
	release chan struct{}
	mu      sync.Mutex
	now     map[string]int // in flight by path
	most    map[string]int // most in flight at once by path
	once    sync.Once
}

// free lets every request, now and later, be answered.
func (h *hanging) free() { h.once.Do(func() { close(h.release) }) }

func newHanging(t *testing.T) *hanging {
	h := &hanging{arrived: make(chan string, 1000), release: make(chan struct{}), now: map[string]int{}, most: map[string]int{}}
	h.receiver = newReceiver(t, func(r hit) (int, string) {
		h.mu.Lock()
		h.now[r.Path]++
		h.most[r.Path] = max(h.most[r.Path], h.now[r.Path])
		h.mu.Unlock()
		h.arrived <- r.Path
		<-h.release
		h.mu.Lock()
		h.now[r.Path]--
		h.mu.Unlock()
		return http.StatusOK, "late"
	})
	// Registered after the server's Close, so it runs before it: Close
	// waits for the requests under way.
	t.Cleanup(h.free)
	return h
}

// waitFor reads n values from c, failing the test when they take longer
// than a generous bound (a failure, not a measurement).
func waitFor[T any](t *testing.T, c <-chan T, n int, what string) []T {
	t.Helper()
	var out []T
	for range n {
		select {
		case v := <-c:
			out = append(out, v)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: got %d of %d after 10s", what, len(out), n)
		}
	}
	return out
}

func startRun(t *testing.T, e *env) (stop func()) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.svc.Run(ctx, time.Hour) }()
	return func() {
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	}
}

// TestHangingSiteDoesNotDelayOthers: a site whose 8 endpoints take
// requests and never answer, with 100 deliveries due to each, holds one
// worker per endpoint and no more than PerSite; another site's delivery
// is sent and recorded while all of those requests still hang.
func TestHangingSiteDoesNotDelayOthers(t *testing.T) {
	tests := []struct {
		name        string
		perSite     int
		wantHanging int
	}{
		{"defaults", 0, 8}, // one per endpoint; the site may hold 8 of 16
		{"per site", 3, 3}, // the site's share is the bound
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { testHangingSite(t, tt.perSite, tt.wantHanging) })
	}
}

func testHangingSite(t *testing.T, perSite, wantHanging int) {
	slow := newHanging(t)
	fast := newReceiver(t, nil)
	var eps []Endpoint
	for i := range 8 {
		eps = append(eps, endpoint(fmt.Sprintf("e%d", i), fmt.Sprintf("%s/e%d", slow.URL, i)))
	}
	e := newEnv(t, nil, map[string][]Endpoint{"s1": eps, "s2": {endpoint("erp", fast.URL)}}, func(o *Options) {
		o.Timeout = time.Hour // the requests hang for as long as the test runs
		o.PerSite = perSite
	})
	settled := make(chan result, 1000)
	e.svc.attempted = func(r result) { settled <- r }
	for i := range 100 {
		e.handle(t, parcelEvent(t, fmt.Sprintf("evt_s1_%d", i), "s1", fmt.Sprintf("CP%d", i), "IN_TRANSIT"))
	}
	stop := startRun(t, e)
	waitFor(t, slow.arrived, wantHanging, "requests to site 1's endpoints")

	start := time.Now()
	e.handle(t, parcelEvent(t, "evt_s2", "s2", "CP1", "IN_TRANSIT"))
	r := waitFor(t, settled, 1, "site 2's delivery")[0]
	took := time.Since(start)
	slow.mu.Lock()
	hangingNow, most := sum(slow.now), slow.most
	slow.mu.Unlock()
	t.Logf("site 2's delivery recorded %s after it was queued, with %d requests of site 1 hanging", took, hangingNow)

	if r.rf.Site != "s2" || !r.delivered() {
		t.Errorf("first attempt recorded: %+v, want site 2's, delivered", r)
	}
	if hangingNow != wantHanging {
		t.Errorf("site 1 has %d requests hanging, want %d", hangingNow, wantHanging)
	}
	for path, n := range most {
		if n != 1 {
			t.Errorf("%s had %d requests in flight at once, want 1", path, n)
		}
	}
	if got := e.statuses(t, "s2", "erp"); !cmp.Equal(got, []string{"evt_s2:delivered"}) {
		t.Errorf("site 2: %v", got)
	}
	slow.free()
	stop()
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestSettleStartsNext: a subject's queued deliveries go out one after
// the other as each is settled, not one per Run interval.
func TestSettleStartsNext(t *testing.T) {
	got := make(chan string, 10)
	rc := newReceiver(t, func(h hit) (int, string) {
		got <- h.Header.Get(HeaderID)
		return http.StatusOK, "ok"
	})
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, nil)
	e.handle(t,
		parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"),
		parcelEvent(t, "evt_2", "s1", "CP1", "OUT_FOR_DELIVERY"),
		parcelEvent(t, "evt_3", "s1", "CP1", "DELIVERED"),
	)
	stop := startRun(t, e) // its interval is an hour
	ids := waitFor(t, got, 3, "the subject's deliveries")
	stop()
	if diff := cmp.Diff([]string{"evt_1", "evt_2", "evt_3"}, ids); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestBreaker: an endpoint that keeps failing is paused after
// BreakerThreshold failures in a row: its other due deliveries wait for
// the pause's end without an attempt; then one probe goes out; a failed
// probe pauses it again, a successful one resumes it. Another endpoint
// of the site is not held up meanwhile.
func TestBreaker(t *testing.T) {
	var mu sync.Mutex
	failing := true
	bad := newReceiver(t, func(hit) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return http.StatusInternalServerError, "down"
		}
		return http.StatusOK, "ok"
	})
	good := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("bad", bad.URL), endpoint("good", good.URL)}}, func(o *Options) {
		o.BreakerThreshold = 3
		o.BreakerCooldown = time.Minute
	})
	for i := range 6 {
		e.handle(t, parcelEvent(t, fmt.Sprintf("evt_%d", i), "s1", fmt.Sprintf("CP%d", i), "IN_TRANSIT"))
	}
	t0 := e.clock.Now()
	// next lists, per delivery of "bad", attempts@next attempt (seconds
	// after t0).
	next := func() []string {
		var out []string
		for _, d := range e.deliveries(t, "s1", "bad") {
			at := "-"
			if d.NextAttemptAt != nil {
				at = d.NextAttemptAt.Sub(t0).String()
			}
			out = append(out, fmt.Sprintf("%s %d@%s", d.Status, d.Attempts, at))
		}
		return out
	}
	steps := []struct {
		name     string
		advance  time.Duration
		fix      bool
		requests int // to "bad", in all
		want     []string
	}{
		// Three failures open the circuit; the other deliveries the
		// sender had found are postponed to the pause's end.
		{"first failures", 0, false, 3, []string{"retrying 1@1s", "retrying 1@1s", "retrying 1@1s", "pending 0@1m0s", "pending 0@1m0s", "pending 0@1m0s"}},
		// Retries coming due during the pause are postponed as well,
		// without an attempt counted.
		{"retries paused", time.Second, false, 3, []string{"retrying 1@1m0s", "retrying 1@1m0s", "retrying 1@1m0s", "pending 0@1m0s", "pending 0@1m0s", "pending 0@1m0s"}},
		// After the pause one probe goes out (the oldest due); it
		// fails: paused again, the others postponed again.
		{"probe fails", time.Minute - time.Second, false, 4, []string{"retrying 2@1m2s", "retrying 1@2m0s", "retrying 1@2m0s", "pending 0@2m0s", "pending 0@2m0s", "pending 0@2m0s"}},
		// The next probe succeeds, and the endpoint goes on.
		{"probe succeeds", time.Minute, true, 10, []string{"delivered 3@-", "delivered 2@-", "delivered 2@-", "delivered 1@-", "delivered 1@-", "delivered 1@-"}},
	}
	for _, st := range steps {
		e.clock.Advance(st.advance)
		mu.Lock()
		failing = !st.fix
		mu.Unlock()
		e.dispatch(t)
		if n := len(bad.got()); n != st.requests {
			t.Errorf("%s: %d requests to the failing endpoint, want %d", st.name, n, st.requests)
		}
		if diff := cmp.Diff(st.want, next()); diff != "" {
			t.Errorf("%s: deliveries (-want +got):\n%s", st.name, diff)
		}
		if st.name == "first failures" && len(good.got()) != 6 {
			t.Errorf("the other endpoint got %d of 6 deliveries while the first failed", len(good.got()))
		}
	}
	if n := logLines(e.logs.String(), "webhook endpoint paused"); n != 2 {
		t.Errorf("%d log lines for pauses, want 2:\n%s", n, e.logs)
	}
	if strings.Contains(e.logs.String(), "level=ERROR") {
		t.Errorf("errors logged:\n%s", e.logs)
	}
}

// TestConnectTimeout: connecting is bounded by ConnectTimeout, apart from
// the attempt's Timeout: an address that swallows the connection attempt
// fails early.
func TestConnectTimeout(t *testing.T) {
	c := newClient(true, nil)
	tr := c.Transport.(*http.Transport)
	tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done() // a dial that never connects
		return nil, ctx.Err()
	}
	limitConnect(c, 20*time.Millisecond)
	errs := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://receiver.example/hooks", nil)
		_, err := c.Do(req)
		errs <- err
	}()
	if err := waitFor(t, errs, 1, "the request")[0]; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the connect deadline", err)
	}
}

// TestSenderDefaults: the sender's options and their defaults.
func TestSenderDefaults(t *testing.T) {
	type got struct {
		Concurrency, PerEndpoint, PerSite, BreakerThreshold int
		Timeout, ConnectTimeout, BreakerCooldown            time.Duration
	}
	tests := []struct {
		name string
		in   Options
		want got
	}{
		{"defaults", Options{}, got{16, 1, 8, 5, 10 * time.Second, 5 * time.Second, time.Minute}},
		{"a small pool", Options{Concurrency: 3}, got{3, 1, 1, 5, 10 * time.Second, 5 * time.Second, time.Minute}},
		{"connect within the timeout", Options{Timeout: 2 * time.Second}, got{16, 1, 8, 5, 2 * time.Second, 2 * time.Second, time.Minute}},
		{"set", Options{Concurrency: 32, PerEndpoint: 2, PerSite: 4, BreakerThreshold: 3, BreakerCooldown: time.Second, Timeout: time.Second, ConnectTimeout: time.Millisecond},
			got{32, 2, 4, 3, time.Second, time.Millisecond, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, err := New(memoryStore(t), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			o := svc.opts
			g := got{o.Concurrency, o.PerEndpoint, o.PerSite, o.BreakerThreshold, o.Timeout, o.ConnectTimeout, o.BreakerCooldown}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}
