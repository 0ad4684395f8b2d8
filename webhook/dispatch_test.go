package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"code.dny.dev/ssrf"
	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestDeliver sends one event end to end on every backend: the request
// carries the body, the headers and a signature that verifies at the
// clock's time, and the delivery is listed as delivered.
func TestDeliver(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			e := newEnv(t, b.open(t), map[string][]Endpoint{"s1": {endpoint("erp", rc.URL+"/hooks")}}, nil)
			ev := parcelEvent(t, "evt_1", "s1", "CP1", "DELIVERED")
			e.handle(t, ev)
			if n := e.dispatch(t); n != 1 {
				t.Fatalf("Dispatch delivered %d, want 1", n)
			}
			hits := rc.got()
			if len(hits) != 1 {
				t.Fatalf("receiver got %d requests, want 1", len(hits))
			}
			h := hits[0]
			wantBody, err := body(ev)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(wantBody), string(h.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			gotHeaders := map[string]string{}
			for _, k := range []string{"Content-Type", "User-Agent", HeaderID, HeaderTimestamp} {
				gotHeaders[k] = h.Header.Get(k)
			}
			wantHeaders := map[string]string{"Content-Type": "application/json", "User-Agent": UserAgent,
				HeaderID: "evt_1", HeaderTimestamp: strconv.FormatInt(testTime.Unix(), 10)}
			if diff := cmp.Diff(wantHeaders, gotHeaders); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if h.Path != "/hooks" {
				t.Errorf("path %q, want /hooks", h.Path)
			}
			if err := Verify(h.Body, h.Header, testTime, secretA); err != nil {
				t.Errorf("Verify: %v", err)
			}
			got := e.deliveries(t, "s1", "erp")
			settled := testTime
			want := []Delivery{{ID: got[0].ID, EventID: "evt_1", EventType: event.TypeParcelChanged, Subject: "CP1", Status: StatusDelivered,
				Attempts: 1, CreatedAt: testTime, LastAttemptAt: &settled, LastResponseCode: 200, LastResponse: "ok", SettledAt: &settled}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("deliveries (-want +got):\n%s", diff)
			}
			if n := e.dispatch(t); n != 0 || len(rc.got()) != 1 {
				t.Errorf("a second Dispatch delivered %d and the receiver has %d requests, want 0 and 1", n, len(rc.got()))
			}
		})
	}
}

// TestSubscriptionsAndSites: an event goes to the endpoints of its site
// that subscribed to its type, and nowhere else.
func TestSubscriptionsAndSites(t *testing.T) {
	rc := newReceiver(t, nil)
	parcels := endpoint("parcels", rc.URL+"/parcels")
	parcels.Events = []event.Type{event.TypeParcelChanged}
	returns := endpoint("returns", rc.URL+"/returns")
	returns.Events = []event.Type{event.TypeReturnCreated}
	e := newEnv(t, nil, map[string][]Endpoint{
		"s1": {parcels, returns, endpoint("all", rc.URL+"/all")},
		"s2": {endpoint("other", rc.URL+"/other")},
	}, nil)
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "DELIVERED"), parcelEvent(t, "evt_2", "s3", "CP2", "DELIVERED"))
	e.dispatch(t)
	var got []string
	for _, h := range rc.got() {
		got = append(got, h.Path)
	}
	if diff := cmp.Diff([]string{"/all", "/parcels"}, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// TestHandleIsIdempotent hands every event over twice (as the outbox may):
// one delivery record per endpoint and event, one request each.
func TestHandleIsIdempotent(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			e := newEnv(t, b.open(t), map[string][]Endpoint{"s1": {endpoint("a", rc.URL+"/a"), endpoint("b", rc.URL+"/b")}}, nil)
			var evs []event.Event
			for i := range 4 {
				evs = append(evs, parcelEvent(t, fmt.Sprintf("evt_%d", i), "s1", fmt.Sprintf("CP%d", i%2), "IN_TRANSIT"))
			}
			e.handle(t, evs...)
			e.handle(t, evs...)
			for range 3 {
				e.dispatch(t)
				e.handle(t, evs...)
			}
			for _, id := range []string{"a", "b"} {
				want := []string{"evt_0:delivered", "evt_1:delivered", "evt_2:delivered", "evt_3:delivered"}
				if diff := cmp.Diff(want, e.statuses(t, "s1", id)); diff != "" {
					t.Errorf("deliveries of %s (-want +got):\n%s", id, diff)
				}
			}
			if got := len(rc.got()); got != 8 {
				t.Errorf("receiver got %d requests, want 8", got)
			}
		})
	}
}

// TestOrderPerSubject: while a subject's first delivery fails, the next
// one of that subject waits; other subjects go on.
func TestOrderPerSubject(t *testing.T) {
	failing := true
	rc := newReceiver(t, nil)
	rc.answer = func(h hit) (int, string) {
		if failing && strings.Contains(string(h.Body), `"subject":"A"`) {
			return http.StatusServiceUnavailable, "busy"
		}
		return http.StatusOK, "ok"
	}
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, nil)
	e.handle(t,
		parcelEvent(t, "evt_a1", "s1", "A", "IN_TRANSIT"),
		parcelEvent(t, "evt_b1", "s1", "B", "IN_TRANSIT"),
		parcelEvent(t, "evt_a2", "s1", "A", "DELIVERED"),
		parcelEvent(t, "evt_b2", "s1", "B", "DELIVERED"),
	)
	// First round: A1 fails, B1 is delivered; A2 and B2 wait their turn.
	e.dispatch(t)
	// B2 was made due by B1's success.
	e.dispatch(t)
	want := []string{"evt_a1:retrying", "evt_b1:delivered", "evt_a2:pending", "evt_b2:delivered"}
	if diff := cmp.Diff(want, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("after the failure (-want +got):\n%s", diff)
	}
	// Not due yet: nothing is sent.
	before := len(rc.got())
	e.dispatch(t)
	if len(rc.got()) != before {
		t.Errorf("a delivery was sent before its retry was due")
	}
	failing = false
	e.clock.Advance(time.Second)
	e.dispatch(t) // A1
	e.dispatch(t) // A2, due once A1 is delivered
	want = []string{"evt_a1:delivered", "evt_b1:delivered", "evt_a2:delivered", "evt_b2:delivered"}
	if diff := cmp.Diff(want, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("at the end (-want +got):\n%s", diff)
	}
	var perSubject = map[string][]string{}
	for _, h := range rc.got() {
		subj := "B"
		if strings.Contains(string(h.Body), `"subject":"A"`) {
			subj = "A"
		}
		perSubject[subj] = append(perSubject[subj], h.Header.Get(HeaderID))
	}
	wantOrder := map[string][]string{"A": {"evt_a1", "evt_a1", "evt_a2"}, "B": {"evt_b1", "evt_b2"}}
	if diff := cmp.Diff(wantOrder, perSubject); diff != "" {
		t.Errorf("requests per subject (-want +got):\n%s", diff)
	}
}

// TestRetriesAndDead: failures back off exponentially; after MaxAttempts
// the delivery is dead, logged at ERROR, and its subject goes on.
func TestRetriesAndDead(t *testing.T) {
	rc := newReceiver(t, func(h hit) (int, string) {
		if h.Header.Get(HeaderID) == "evt_1" {
			return http.StatusInternalServerError, "database down"
		}
		return http.StatusOK, "ok"
	})
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, func(o *Options) {
		o.MaxAttempts = 4
		o.RetryMax = 3 * time.Second
	})
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"), parcelEvent(t, "evt_2", "s1", "CP1", "DELIVERED"))
	// Backoffs: 1 s, 2 s, then 4 s capped at RetryMax 3 s.
	for i, wait := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
		e.dispatch(t)
		d := e.deliveries(t, "s1", "erp")[0]
		next := e.clock.Now().Add(wait)
		if d.Status != StatusRetrying || d.Attempts != i+1 || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(next) {
			t.Fatalf("after attempt %d: %+v, want retrying with next attempt at %s", i+1, d, next)
		}
		e.clock.Advance(wait - time.Millisecond)
		if e.dispatch(t); len(rc.got()) != i+1 {
			t.Fatalf("attempt %d was sent before its backoff ended", i+2)
		}
		e.clock.Advance(time.Millisecond)
	}
	e.dispatch(t) // the fourth attempt: dead
	e.dispatch(t) // evt_2, made due by the death
	got := e.deliveries(t, "s1", "erp")
	if diff := cmp.Diff([]string{"evt_1:dead", "evt_2:delivered"}, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if d := got[0]; d.Attempts != 4 || d.LastResponseCode != 500 || d.LastError != "HTTP 500" || d.LastResponse != "database down" {
		t.Errorf("dead delivery %+v", d)
	}
	if n := logLines(e.logs.String(), "webhook delivery is dead"); n != 1 || !strings.Contains(e.logs.String(), "level=ERROR") {
		t.Errorf("log has %d dead lines at ERROR, want 1:\n%s", n, e.logs)
	}
}

// TestQueuePolicy: the queue's policy is the options' (internal/queue
// tests the backoff it makes), with their defaults.
func TestQueuePolicy(t *testing.T) {
	e := newEnv(t, nil, nil, func(o *Options) {
		o.Jitter = func() float64 { return 0.5 }
		o.Lease, o.RetryMax, o.MaxAttempts = 2*time.Minute, time.Minute, 3
	})
	set := e.svc.q.Policy
	def, err := New(memoryStore(t), Options{Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ignore := cmpopts.IgnoreFields(queue.Policy{}, "Jitter")
	tests := []struct {
		name   string
		got    queue.Policy
		want   queue.Policy
		jitter bool // the options' jitter, not the default
	}{
		{"set", set, queue.Policy{Lease: 2 * time.Minute, RetryBase: time.Second, RetryMax: time.Minute, MaxAttempts: 3}, true},
		{"defaults", def.q.Policy, queue.Policy{Lease: 3*time.Second + time.Minute, RetryBase: DefaultRetryBase, RetryMax: DefaultRetryMax, MaxAttempts: DefaultMaxAttempts}, false},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got, ignore); diff != "" {
			t.Errorf("%s: policy (-want +got):\n%s", tt.name, diff)
		}
		if j := tt.got.Jitter(); (j == 0.5) != tt.jitter || j < 0 || j >= 1 {
			t.Errorf("%s: jitter %v", tt.name, j)
		}
	}
	if got, want := set.Backoff(2), 1500*time.Millisecond; got != want {
		t.Errorf("Backoff(2) = %s, want %s", got, want)
	}
}

// TestGoneDisables: 410 disables the endpoint; its queued deliveries die
// without a request, new events are not recorded, and Enable restarts it.
func TestGoneDisables(t *testing.T) {
	gone := true
	rc := newReceiver(t, func(hit) (int, string) {
		if gone {
			return http.StatusGone, "gone"
		}
		return http.StatusOK, "ok"
	})
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, nil)
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"), parcelEvent(t, "evt_2", "s1", "CP1", "DELIVERED"))
	e.dispatch(t)
	e.dispatch(t)
	e.handle(t, parcelEvent(t, "evt_3", "s1", "CP2", "IN_TRANSIT"))
	e.dispatch(t)
	if diff := cmp.Diff([]string{"evt_1:dead", "evt_2:dead"}, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"evt_1"}, rc.ids()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	v, err := e.svc.Endpoint(t.Context(), "s1", "erp")
	if err != nil {
		t.Fatal(err)
	}
	at := testTime
	want := EndpointView{ID: "erp", URL: rc.URL, Events: event.Types, Secrets: 1, Enabled: false, DisabledAt: &at, DisabledReason: "the endpoint answered 410 Gone"}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("endpoint (-want +got):\n%s", diff)
	}
	if !strings.Contains(e.logs.String(), "webhook endpoint disabled") {
		t.Errorf("no log line for the disabled endpoint:\n%s", e.logs)
	}
	if _, err := e.svc.Redeliver(t.Context(), "s1", "erp", "evt_1"); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("Redeliver on a disabled endpoint: %v, want failed precondition", err)
	}

	gone = false
	if v, err := e.svc.Enable(t.Context(), "s1", "erp"); err != nil || !v.Enabled {
		t.Fatalf("Enable = %+v, %v", v, err)
	}
	e.handle(t, parcelEvent(t, "evt_4", "s1", "CP1", "DELIVERED"))
	if _, err := e.svc.Redeliver(t.Context(), "s1", "erp", "evt_2"); err != nil {
		t.Fatal(err)
	}
	e.dispatch(t)
	e.dispatch(t)
	if diff := cmp.Diff([]string{"evt_1", "evt_4", "evt_2"}, rc.ids()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestRedirectNotFollowed: a 3xx is an answer like any other non-2xx: the
// request is not sent on, and the delivery is retried.
func TestRedirectNotFollowed(t *testing.T) {
	elsewhere := newReceiver(t, nil)
	rc := newReceiver(t, func(hit) (int, string) { return http.StatusTemporaryRedirect, elsewhere.URL + "/stolen" })
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, nil)
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	e.dispatch(t)
	if n := len(elsewhere.got()); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
	d := e.deliveries(t, "s1", "erp")[0]
	if d.Status != StatusRetrying || d.LastResponseCode != http.StatusTemporaryRedirect || !strings.Contains(d.LastError, "redirect (not followed) to "+elsewhere.URL) {
		t.Errorf("delivery %+v", d)
	}
}

// TestPrivateAddressesRefused: without AllowPrivate no request reaches a
// loopback address, whether the URL names it or a name resolves to it (the
// check is at dial time).
func TestPrivateAddressesRefused(t *testing.T) {
	rc := newReceiver(t, nil)
	u, err := url.Parse(rc.URL)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, url string }{
		{"address", rc.URL},
		{"name resolving to loopback", "http://localhost:" + u.Port()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", tt.url)}}, func(o *Options) { o.AllowPrivate = false })
			e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
			e.dispatch(t)
			d := e.deliveries(t, "s1", "erp")[0]
			if d.Status != StatusRetrying || d.LastResponseCode != 0 || !strings.HasPrefix(d.LastError, "refused: the endpoint's") {
				t.Errorf("delivery %+v", d)
			}
		})
	}
	if n := len(rc.got()); n != 0 {
		t.Errorf("receiver got %d requests", n)
	}
}

// TestDialPolicy checks the dialer's address policy on its own.
func TestDialPolicy(t *testing.T) {
	dial := newClient(false, nil).Transport.(*http.Transport).DialContext
	for _, addr := range []string{"127.0.0.1:443", "[::1]:443", "10.1.2.3:443", "172.16.0.1:8443", "192.168.1.1:80",
		"169.254.169.254:80", "[fe80::1]:443", "0.0.0.0:443", "[::]:443", "100.64.0.1:443", "[::ffff:127.0.0.1]:443", "[fc00::1]:443"} {
		t.Run(addr, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			conn, err := dial(ctx, "tcp", addr)
			if err == nil {
				conn.Close()
			}
			if !strings.Contains(fmt.Sprint(err), "prohibited") {
				t.Errorf("dial %s: %v, want a refusal", addr, err)
			}
		})
	}
}

// TestDialPorts: the dialer refuses ports other than DefaultPorts and the
// allowed ones before connecting, whatever the address; New refuses an
// endpoint URL naming one.
func TestDialPorts(t *testing.T) {
	dial := newClient(false, []int{9443}).Transport.(*http.Transport).DialContext
	for _, tc := range []struct {
		addr    string
		refused bool
	}{{"203.0.113.9:22", true}, {"203.0.113.9:5432", true}, {"203.0.113.9:8080", true}} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		conn, err := dial(ctx, "tcp", tc.addr)
		cancel()
		if err == nil {
			conn.Close()
		}
		if got := errors.Is(err, ssrf.ErrProhibitedPort); got != tc.refused {
			t.Errorf("dial %s: %v, want refused %v", tc.addr, err, tc.refused)
		}
	}
	for _, tc := range []struct {
		url   string
		ports []int
		ok    bool
	}{
		{"https://hooks.example.com/x", nil, true},
		{"https://hooks.example.com:8443/x", nil, true},
		{"https://hooks.example.com:5432/x", nil, false},
		{"https://hooks.example.com:9443/x", []int{9443}, true},
		{"http://127.0.0.1:9000/x", nil, true},
	} {
		_, err := New(memory.New(), Options{Endpoints: map[string][]Endpoint{"s1": {endpoint("erp", tc.url)}},
			AllowPorts: tc.ports})
		if (err == nil) != tc.ok {
			t.Errorf("New with %s (ports %v): %v, want ok %v", tc.url, tc.ports, err, tc.ok)
		}
	}
}

// TestTimeout: an attempt that gets no answer within Timeout fails and is
// retried.
func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	rc := newReceiver(t, func(hit) (int, string) {
		<-release
		return http.StatusOK, "late"
	})
	t.Cleanup(func() { close(release) }) // runs before the receiver closes
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, func(o *Options) { o.Timeout = 50 * time.Millisecond })
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	e.dispatch(t)
	d := e.deliveries(t, "s1", "erp")[0]
	if d.Status != StatusRetrying || d.LastError != "no answer within 50ms" {
		t.Errorf("delivery %+v", d)
	}
}

// TestResponseExcerpt: at most MaxResponseBytes of an answer are read.
func TestResponseExcerpt(t *testing.T) {
	rc := newReceiver(t, func(hit) (int, string) { return http.StatusBadRequest, strings.Repeat("é", 1<<20) })
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, nil)
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	e.dispatch(t)
	d := e.deliveries(t, "s1", "erp")[0]
	if len(d.LastResponse) != MaxResponseBytes || d.LastResponseCode != 400 {
		t.Errorf("response excerpt of %d bytes (code %d), want %d", len(d.LastResponse), d.LastResponseCode, MaxResponseBytes)
	}
}

// TestTwoSecrets: during a rotation every request carries both
// signatures, and a receiver knowing either secret accepts it.
func TestTwoSecrets(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL, secretA, secretB)}}, nil)
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	e.dispatch(t)
	h := rc.got()[0]
	if n := len(strings.Fields(h.Header.Get(HeaderSignature))); n != 2 {
		t.Errorf("%d signatures, want 2", n)
	}
	for _, s := range []string{secretA, secretB} {
		if err := Verify(h.Body, h.Header, testTime, s); err != nil {
			t.Errorf("Verify with %s: %v", s, err)
		}
	}
	if err := Verify(h.Body, h.Header, testTime, "whsec_"+strings.Repeat("A", 32)); !errors.Is(err, ErrSignature) {
		t.Errorf("Verify with another secret: %v", err)
	}
}

// TestEndpointNoLongerConfigured: deliveries of an endpoint removed from
// the configuration die without a request.
func TestEndpointNoLongerConfigured(t *testing.T) {
	rc := newReceiver(t, nil)
	store := backends[0].open(t)
	before := newEnv(t, store, map[string][]Endpoint{"s1": {endpoint("old", rc.URL)}}, nil)
	before.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	after := newEnv(t, store, map[string][]Endpoint{"s1": {endpoint("new", rc.URL)}}, nil)
	after.dispatch(t)
	if n := len(rc.got()); n != 0 {
		t.Errorf("receiver got %d requests", n)
	}
	if diff := cmp.Diff([]string{"evt_1:dead"}, before.statuses(t, "s1", "old")); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
}

// TestLeaseExpiry: a delivery claimed by a sender that died is sent again
// once the lease runs out, and not before.
func TestLeaseExpiry(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, func(o *Options) { o.Lease = time.Minute })
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	// Claim by hand, as a sender that died after claiming leaves it.
	rf := ref{"s1", "erp", 1}
	claimOnly(t, e, rf)
	if e.dispatch(t); len(rc.got()) != 0 {
		t.Fatal("a claimed delivery was sent within its lease")
	}
	e.clock.Advance(time.Minute)
	if n := e.dispatch(t); n != 1 || len(rc.got()) != 1 {
		t.Errorf("after the lease: delivered %d, receiver got %d; want 1 and 1", n, len(rc.got()))
	}
}

// TestReleaseLeases: a process that owns its store frees, at start, the
// leases a dead predecessor held.
func TestReleaseLeases(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, func(o *Options) { o.Lease = time.Hour })
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	claimOnly(t, e, ref{"s1", "erp", 1})
	if e.dispatch(t); len(rc.got()) != 0 {
		t.Fatal("a claimed delivery was sent within its lease")
	}
	if n, err := e.svc.ReleaseLeases(t.Context()); err != nil || n != 1 {
		t.Fatalf("ReleaseLeases = %d, %v; want 1", n, err)
	}
	if n := e.dispatch(t); n != 1 || len(rc.got()) != 1 {
		t.Errorf("after ReleaseLeases: delivered %d, receiver got %d; want 1 and 1", n, len(rc.got()))
	}
}

// TestRun: Run sends what Handle queues without waiting for its tick, and
// returns when its context ends.
func TestRun(t *testing.T) {
	got := make(chan string, 1)
	rc := newReceiver(t, func(h hit) (int, string) {
		got <- h.Header.Get(HeaderID)
		return http.StatusOK, "ok"
	})
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- e.svc.Run(ctx, time.Hour) }()
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	if id := <-got; id != "evt_1" {
		t.Errorf("received %s, want evt_1", id)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

// TestHandleRefusesBadPayload: a payload that is not a JSON object can
// never be delivered; the outbox treats InvalidArgument as permanent.
func TestHandleRefusesBadPayload(t *testing.T) {
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", "https://erp.example.com")}}, nil)
	ev := parcelEvent(t, "evt_1", "s1", "CP1", "DELIVERED")
	ev.Payload = []byte(`"a string"`)
	if err := e.svc.Handle(t.Context(), ev); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("Handle = %v, want invalid argument", err)
	}
	if got := e.statuses(t, "s1", "erp"); len(got) != 0 {
		t.Errorf("deliveries recorded: %v", got)
	}
}
