package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/google/go-cmp/cmp"
)

// noRateLimits is for benchmarks: one site sends the whole load, and they
// measure the endpoints, not how fast they answer 429.
var noRateLimits = RateLimits{Site: NoRateLimit, WidgetToken: NoRateLimit, Address: NoRateLimit}

func TestNewLimiterTable(t *testing.T) {
	def := RateLimit{PerSecond: 10, Burst: 30}
	type got struct {
		Off   bool
		Limit float64
		Burst int
	}
	tests := []struct {
		name string
		rl   RateLimit
		want got
	}{
		{"zero is the default", RateLimit{}, got{Limit: 10, Burst: 30}},
		{"rate alone: burst twice the rate", RateLimit{PerSecond: 2.5}, got{Limit: 2.5, Burst: 5}},
		{"slow rate: burst at least 1", RateLimit{PerSecond: 0.1}, got{Limit: 0.1, Burst: 1}},
		{"burst alone: the default rate", RateLimit{Burst: 4}, got{Limit: 10, Burst: 4}},
		{"both", RateLimit{PerSecond: 3, Burst: 7}, got{Limit: 3, Burst: 7}},
		{"negative is off", NoRateLimit, got{Off: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newLimiterTable(tt.rl, def, 0)
			g := got{Off: tab == nil}
			if tab != nil {
				g.Limit, g.Burst = float64(tab.limit), tab.burst
				if tab.max != DefaultMaxTracked {
					t.Errorf("max = %d, want DefaultMaxTracked", tab.max)
				}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLimiterTable drives one table with a manual clock: each step takes
// one request of a key at an offset from the start and says whether it is
// allowed and, if not, the wait.
func TestLimiterTable(t *testing.T) {
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	type step struct {
		at       time.Duration
		key      string
		want     bool
		wantWait time.Duration
	}
	tests := []struct {
		name  string
		rl    RateLimit
		max   int
		steps []step
	}{
		{"burst, then one a second", RateLimit{PerSecond: 1, Burst: 2}, 10, []step{
			{0, "a", true, 0},
			{0, "a", true, 0},
			{0, "a", false, time.Second},
			{500 * time.Millisecond, "a", false, 500 * time.Millisecond},
			{time.Second, "a", true, 0},
			{time.Second, "a", false, time.Second},
			{time.Second, "b", true, 0}, // another key has its own bucket
		}},
		{"slow rate: a long wait", RateLimit{PerSecond: 0.25, Burst: 1}, 10, []step{
			{0, "a", true, 0},
			{0, "a", false, 4 * time.Second},
			{3 * time.Second, "a", false, time.Second},
			{4 * time.Second, "a", true, 0},
		}},
		// Two keys fill the table; a third shares the one overflow
		// bucket with every other new key while both are active.
		{"full table: new keys share a bucket", RateLimit{PerSecond: 1, Burst: 1}, 2, []step{
			{0, "a", true, 0},
			{0, "b", true, 0},
			{0, "c", true, 0},
			{0, "d", false, time.Second},
			{0, "c", false, time.Second},
			{0, "a", false, time.Second}, // a keeps its own, empty, bucket
		}},
		// Once a and b are idle (full again), a sweep drops them and new
		// keys get buckets of their own.
		{"idle buckets are dropped", RateLimit{PerSecond: 1, Burst: 1}, 2, []step{
			{0, "a", true, 0},
			{0, "b", true, 0},
			{0, "c", true, 0}, // overflow
			{2 * time.Second, "c", true, 0},
			{2 * time.Second, "c", false, time.Second},
			{2 * time.Second, "d", true, 0},
			{2 * time.Second, "d", false, time.Second},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newLimiterTable(tt.rl, DefaultSiteRate, tt.max)
			for i, s := range tt.steps {
				ok, wait := tab.allow(s.key, start.Add(s.at))
				if ok != s.want || wait != s.wantWait {
					t.Errorf("step %d (%v, %s): allowed %v wait %v, want %v %v", i, s.at, s.key, ok, wait, s.want, s.wantWait)
				}
				if n := tab.len(); n > tt.max {
					t.Fatalf("step %d: %d buckets, more than %d", i, n, tt.max)
				}
			}
		})
	}
}

// TestLimiterTableSweepsAtMostOncePerInterval: a flood of new keys into a
// full table walks it once per sweepInterval, not per request, and the
// table never grows past its bound.
func TestLimiterTableSweepsAtMostOncePerInterval(t *testing.T) {
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	tab := newLimiterTable(RateLimit{PerSecond: 1, Burst: 1}, DefaultSiteRate, 100)
	for i := range 100 {
		tab.allow(strconv.Itoa(i), start)
	}
	// Every bucket is empty: the sweep at start finds nothing.
	tab.allow("new-0", start)
	if got := tab.lastSweep; !got.Equal(start) {
		t.Fatalf("lastSweep = %v, want %v", got, start)
	}
	// Half a second later, all would be… not yet full (1 token a second),
	// and no sweep is due either.
	tab.allow("new-1", start.Add(500*time.Millisecond))
	if got := tab.lastSweep; !got.Equal(start) {
		t.Errorf("swept again after 500ms: lastSweep = %v", got)
	}
	// After a second, every bucket has refilled: the sweep empties the
	// table and the new key takes a bucket of its own.
	now := start.Add(time.Second)
	tab.allow("new-2", now)
	if diff := cmp.Diff(struct {
		Len   int
		Sweep time.Time
	}{1, now}, struct {
		Len   int
		Sweep time.Time
	}{tab.len(), tab.lastSweep}); diff != "" {
		t.Errorf("after the refill (-want +got):\n%s", diff)
	}
}

func TestClientAddr(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	tests := []struct {
		name    string
		remote  string
		xff     []string
		proxies []netip.Prefix
		want    string // "" for the zero Addr
	}{
		{"remote address", "192.0.2.1:1234", nil, nil, "192.0.2.1"},
		{"IPv6 remote", "[2001:db8::1]:443", nil, nil, "2001:db8::1"},
		{"IPv4-mapped remote", "[::ffff:192.0.2.9]:80", nil, nil, "192.0.2.9"},
		{"no port", "192.0.2.1", nil, nil, "192.0.2.1"},
		{"garbage", "not-an-address", nil, nil, ""},
		{"forwarded-for ignored without trusted proxies", "10.0.0.1:1", []string{"198.51.100.7"}, nil, "10.0.0.1"},
		{"forwarded-for ignored from an untrusted peer", "192.0.2.1:1", []string{"198.51.100.7"}, proxies, "192.0.2.1"},
		{"trusted proxy: the client it saw", "10.0.0.1:1", []string{"198.51.100.7"}, proxies, "198.51.100.7"},
		{"a forged left part is skipped", "10.0.0.1:1", []string{"203.0.113.66, 198.51.100.7"}, proxies, "198.51.100.7"},
		{"a chain of trusted proxies", "10.0.0.1:1", []string{"198.51.100.7, 10.2.3.4", "10.9.9.9"}, proxies, "198.51.100.7"},
		{"IPv6 proxy", "[2001:db8:ffff::2]:1", []string{"2001:db8:1::5"}, proxies, "2001:db8:1::5"},
		{"an unreadable hop: the proxy that passed it", "10.0.0.1:1", []string{"198.51.100.7, bogus, 10.2.3.4"}, proxies, "10.2.3.4"},
		{"only trusted hops: the leftmost", "10.0.0.1:1", []string{"10.0.0.2, 10.0.0.3"}, proxies, "10.0.0.2"},
		{"no header from a trusted proxy", "10.0.0.1:1", nil, proxies, "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			got := clientAddr(r, tt.proxies)
			want := netip.Addr{}
			if tt.want != "" {
				want = netip.MustParseAddr(tt.want)
			}
			if got != want {
				t.Errorf("clientAddr = %v, want %v", got, want)
			}
		})
	}
}

func TestAddressKey(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9", true}, // one /64
		{"2001:db8:1:2::1", "2001:db8:1:3::1", false},
		{"192.0.2.1", "192.0.2.2", false},
		{"fe80::1%eth0", "fe80::2%eth1", true},
	}
	for _, tt := range tests {
		if got := addressKey(netip.MustParseAddr(tt.a)) == addressKey(netip.MustParseAddr(tt.b)); got != tt.same {
			t.Errorf("addressKey(%s) == addressKey(%s): %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
	if got := addressKey(netip.Addr{}); got != "" {
		t.Errorf("addressKey(zero) = %q", got)
	}
}

// TestRateLimitedAnswerPerArea: the request past the burst is 429 with
// Retry-After in whole seconds and the area's error body (checked against
// the area's OpenAPI error schema); the other site is not affected; after
// the wait the site is served again. Every area's catch-all is
// authenticated, so no service is needed.
func TestRateLimitedAnswerPerArea(t *testing.T) {
	const trace = "trace-429"
	tests := []struct {
		name     string
		path     string
		header   func(key string) map[string]string
		doc      apiDocLoader
		wantBody map[string]any
	}{
		{"A tracking", "/v1/delivery_tracking/x", func(k string) map[string]string { return map[string]string{"Authorization": bearer(k)} }, trackingAPI,
			map[string]any{"error": "too many requests: rate limit exceeded; retry after 2 s", "trace_id": trace}},
		{"C checkout", "/v1/siw/x", func(k string) map[string]string { return map[string]string{"Authorization": bearer(k)} }, checkoutAPI,
			map[string]any{"error": "too many requests: rate limit exceeded; retry after 2 s", "trace_id": trace}},
		{"D session", "/delivery/v1/x", func(k string) map[string]string { return map[string]string{"Authorization": k} }, sessionAPI,
			map[string]any{"code": float64(8), "message": "rate limit exceeded; retry after 2 s", "details": []any{}}},
		{"E returns", "/returns/merchant/x", func(k string) map[string]string { return map[string]string{"X-Api-Key": k} }, returnsAPI,
			map[string]any{"timestamp": "2026-11-22T10:00:00.000Z", "status": float64(429), "error": "Too Many Requests", "message": "rate limit exceeded; retry after 2 s", "path": "/returns/merchant/x"}},
		{"F shipment", "/v1/som/x", func(k string) map[string]string { return map[string]string{"Authorization": bearer(k)} }, shipmentAPIDoc,
			map[string]any{"error": "too many requests: rate limit exceeded; retry after 2 s", "trace_id": trace}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, Options{RateLimits: RateLimits{Site: RateLimit{PerSecond: 0.5, Burst: 2}}})
			clock := s.clock.(*deliverykit.ManualClock)
			send := func(key string) *httptest.ResponseRecorder {
				req := httptest.NewRequest("GET", tt.path, nil)
				for k, v := range tt.header(key) {
					req.Header.Set(k, v)
				}
				req.Header.Set("X-Trace-Id", trace)
				rec := httptest.NewRecorder()
				s.handler.ServeHTTP(rec, req)
				return rec
			}
			var statuses []int
			for range 2 {
				statuses = append(statuses, send("demo-key").Code)
			}
			limited := send("demo-key")
			statuses = append(statuses, limited.Code, send("demo-key-2").Code)
			clock.Advance(2 * time.Second)
			statuses = append(statuses, send("demo-key").Code)
			if diff := cmp.Diff([]int{404, 404, 429, 404, 404}, statuses); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if got := limited.Header().Get("Retry-After"); got != "2" {
				t.Errorf("Retry-After = %q, want 2", got)
			}
			var body map[string]any
			if err := json.Unmarshal(limited.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantBody, body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if err := tt.doc(t).checkError(limited.Header(), limited.Body.Bytes()); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestRefusedKeysCountPerAddress: guessing keys from one address runs
// into the address limit, whatever keys are tried; another address is
// not affected, and neither is a valid key from the same address.
func TestRefusedKeysCountPerAddress(t *testing.T) {
	s, _ := newTestServer(t, Options{RateLimits: RateLimits{Address: RateLimit{PerSecond: 1, Burst: 3}}})
	send := func(remote, key string) int {
		req := httptest.NewRequest("GET", "/v1/delivery_tracking/x", nil)
		req.RemoteAddr = remote
		req.Header.Set("Authorization", bearer(key))
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		return rec.Code
	}
	got := []int{
		send("192.0.2.1:1", "guess-1"), send("192.0.2.1:2", "guess-2"), send("192.0.2.1:3", "guess-3"),
		send("192.0.2.1:4", "guess-4"),
		send("198.51.100.1:1", "guess-5"),
		send("192.0.2.1:5", "demo-key"),
	}
	if diff := cmp.Diff([]int{401, 401, 401, 429, 401, 404}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestRateLimitsOff: with every class off, nothing is ever refused.
func TestRateLimitsOff(t *testing.T) {
	s, _ := newTestServer(t, Options{RateLimits: noRateLimits})
	for i := range 1000 {
		for _, c := range []call{
			{method: "GET", path: "/v1/delivery_tracking/x", header: map[string]string{"Authorization": bearer("demo-key")}},
			{method: "GET", path: "/v1/delivery_tracking/x"},
			{method: "GET", path: "/nowhere"},
		} {
			req := httptest.NewRequest(c.method, c.path, nil)
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			s.handler.ServeHTTP(rec, req)
			if rec.Code == http.StatusTooManyRequests {
				t.Fatalf("request %d to %s: 429 with rate limits off", i, c.path)
			}
		}
	}
}

func TestRetrySeconds(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{{0, 1}, {time.Nanosecond, 1}, {time.Second, 1}, {time.Second + 1, 2}, {30 * time.Second, 30}} {
		if got := retrySeconds(tt.d); got != tt.want {
			t.Errorf("retrySeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func BenchmarkLimiterTable(b *testing.B) {
	tab := newLimiterTable(RateLimit{PerSecond: 1e9, Burst: 1e9}, DefaultSiteRate, 0)
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			tab.allow("demo-site", now)
		}
	})
}
