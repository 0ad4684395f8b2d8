package httpapi_test

// These tests run the whole handler as the example server builds it
// (wiring.New on one store, the demo configuration) to check what a hostile
// caller meets: rate limits on every kind of endpoint, security headers on
// every page, tokens kept out of the logs, and 503 when the store cannot
// write.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
	"github.com/google/go-cmp/cmp"
)

// Monday morning: every delivery option of the demo catalog is open.
var stackStart = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// faultyStore fails what it is told to: writes commit nothing and return
// writeErr; views return readErr. It counts Updates.
type faultyStore struct {
	storage.Store
	writeErr atomic.Pointer[error]
	readErr  atomic.Pointer[error]
	updates  atomic.Int64
}

func (s *faultyStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	s.updates.Add(1)
	if e := s.writeErr.Load(); e != nil {
		return *e
	}
	return s.Store.Update(ctx, fn)
}

func (s *faultyStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	if e := s.readErr.Load(); e != nil {
		return *e
	}
	return s.Store.View(ctx, fn)
}

func (s *faultyStore) failWrites(err error) { s.writeErr.Store(&err) }
func (s *faultyStore) failReads(err error)  { s.readErr.Store(&err) }

// syncBuffer is the captured log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.b.String()
	b.b.Reset()
	return s
}

type stack struct {
	t     *testing.T
	h     http.Handler
	clock *deliverykit.ManualClock
	log   *syncBuffer
}

func newStack(t *testing.T, store storage.Store, opts httpapi.Options) *stack {
	t.Helper()
	cfg := config.Demo()
	st := &stack{t: t, clock: deliverykit.NewManualClock(stackStart), log: &syncBuffer{}}
	logger := slog.New(slog.NewTextHandler(st.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: st.clock, PublicURL: "http://shop.test", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	opts.Keys, opts.Clock, opts.Logger = cfg.Keyring(), st.clock, logger
	st.h = svcs.Handler(opts)
	return st
}

// req is one request; remote is the client's address (a default when
// empty).
type req struct {
	method, target string
	header         map[string]string
	body           string
	remote         string
}

func (s *stack) do(r req) *httptest.ResponseRecorder {
	s.t.Helper()
	hr := httptest.NewRequest(r.method, r.target, strings.NewReader(r.body))
	if r.remote != "" {
		hr.RemoteAddr = r.remote
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, hr)
	return rec
}

var (
	restKey   = map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	rpcKey    = map[string]string{"Authorization": "demo-key"}
	springKey = map[string]string{"X-Api-Key": "demo-key"}
)

const (
	trackingOrder = `{"site_id": "demo-site", "external_id": "ext-1", "carrier_product_ref": "north-parcel-home",
		"sender": {"name": "Demo Outdoor Store"}, "receiver": {"name": "Alva Berg", "email": "alva@example.com"},
		"destination": {"address": {"city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY"}`
	checkoutCreate = `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "c-1", "total_value": 45000, "items": [{"sku": "tent-2p", "name": "Tent", "quantity": 1, "price": 45000}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`
	sessionCreate = `{"purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
		"deliveries": [{"id": "d1", "line_items": [{"sku": "tent-2p", "title": "Tent", "quantity": 1, "weight": 2400, "price": "45000"}],
		"fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
		"recipient_contact": {"email": "erik@example.com", "address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}}]}`
	returnsOrder = `{"foreignId": "A-1", "foreignName": "#1001", "foreignNumber": 1001, "currencyCode": "SEK", "email": "anna@example.com",
		"items": [{"foreignLineItemId": "L1", "sku": "JACKET-M", "productTitle": "Jacket", "quantity": 3, "purchasePriceAmount": {"amount": 1299.90, "itemTax": 259.98}}]}`
	customerReturn = `{"siteId": "demo-site", "foreignOrderId": "A-1", "email": "anna@example.com", "items": [{"foreignLineItemId": "L1", "quantity": 1}]}`
	shipmentCreate = `{"external_id": "S-1",
		"sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
		"receiver": {"name": "Alva Berg", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
		"parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100}, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`
)

// tokens are the customer credentials of one seeded order of each kind.
type tokens struct {
	tracking string // of the tracking page
	status   string // of the return status page
	widget   string // of a checkout session's widget
}

// seed makes a tracking order with a page link, a customer return with a
// status page, and a checkout session with a widget.
func (s *stack) seed() tokens {
	s.t.Helper()
	must := func(r req, want int) map[string]any {
		s.t.Helper()
		rec := s.do(r)
		if rec.Code != want {
			s.t.Fatalf("seed %s %s: %d %s", r.method, r.target, rec.Code, rec.Body)
		}
		var m map[string]any
		json.Unmarshal(rec.Body.Bytes(), &m)
		return m
	}
	var tk tokens
	must(req{method: "POST", target: "/v1/delivery_tracking/order", header: restKey, body: trackingOrder}, 200)
	link := must(req{method: "POST", target: "/v1/delivery_tracking/generate_tracking_page_link", header: restKey, body: `{"order_id": "ext-1", "locale": "sv-SE"}`}, 200)
	_, rest, _ := strings.Cut(fmt.Sprint(link["tracking_link"]), tracking.PagePath)
	tk.tracking, _, _ = strings.Cut(rest, "?")
	must(req{method: "POST", target: "/returns/merchant/order", header: springKey, body: returnsOrder}, 201)
	ret := must(req{method: "POST", target: "/returns/customer/return", body: customerReturn}, 201)
	_, tk.status, _ = strings.Cut(fmt.Sprint(ret["statusUrl"]), returns.StatusPagePath)
	tk.widget = fmt.Sprint(must(req{method: "POST", target: "/v1/siw/session.create", header: restKey, body: checkoutCreate}, 200)["token"])
	if tk.tracking == "" || tk.status == "" || tk.widget == "" {
		s.t.Fatalf("seed: a token is missing: %+v", tk)
	}
	return tk
}

func widget(token string) map[string]string { return map[string]string{"X-Widget-Token": token} }

// TestPublicRateLimits: every endpoint without an API key is limited per
// client address, and the widget's endpoints also per token: the request
// past the burst is 429 with Retry-After in the area's error shape, while
// another client (another address, or for the token limit another
// address with another token) is still served.
func TestPublicRateLimits(t *testing.T) {
	// The burst of the class under test is 2; the other class is off.
	perAddress := httpapi.RateLimits{Address: httpapi.RateLimit{PerSecond: 1, Burst: 2}, WidgetToken: httpapi.NoRateLimit}
	perToken := httpapi.RateLimits{WidgetToken: httpapi.RateLimit{PerSecond: 1, Burst: 2}, Address: httpapi.NoRateLimit}
	const a1, a2 = "192.0.2.1:1000", "198.51.100.2:2000"
	rest := func(string) map[string]any {
		return map[string]any{"error": "too many requests: rate limit exceeded; retry after 1 s", "trace_id": "t-1"}
	}
	spring := func(path string) map[string]any {
		return map[string]any{"timestamp": "2026-11-23T09:00:00.000Z", "status": float64(429), "error": "Too Many Requests",
			"message": "rate limit exceeded; retry after 1 s", "path": path}
	}
	tests := []struct {
		name   string
		limits httpapi.RateLimits
		// make builds the i-th request (0, 1, 2 use up the burst and
		// get refused; 3 is the other client).
		make     func(tk tokens, i int) req
		wantBody func(path string) map[string]any
	}{
		{"tracking page", perAddress, func(tk tokens, i int) req {
			return req{method: "GET", target: tracking.PagePath + tk.tracking, remote: pick(i, a1, a2)}
		}, rest},
		{"return status page", perAddress, func(tk tokens, i int) req {
			return req{method: "GET", target: returns.StatusPagePath + tk.status, remote: pick(i, a1, a2)}
		}, spring},
		{"customer return", perAddress, func(tk tokens, i int) req {
			return req{method: "POST", target: "/returns/customer/return", body: `{}`, remote: pick(i, a1, a2)}
		}, spring},
		{"widget state, many tokens from one address", perAddress, func(tk tokens, i int) req {
			return req{method: "GET", target: "/v1/siw/_/widget/state", header: widget(fmt.Sprint("guess-", i)), remote: pick(i, a1, a2)}
		}, rest},
		{"widget preflight", perAddress, func(tk tokens, i int) req {
			return req{method: "OPTIONS", target: "/v1/siw/_/widget/select", remote: pick(i, a1, a2)}
		}, rest},
		{"widget script", perAddress, func(tk tokens, i int) req {
			return req{method: "GET", target: "/v1/siw/_/widget.js", remote: pick(i, a1, a2)}
		}, rest},
		{"OpenAPI document", perAddress, func(tk tokens, i int) req {
			return req{method: "GET", target: "/returns/openapi.json", remote: pick(i, a1, a2)}
		}, spring},
		{"no such endpoint", perAddress, func(tk tokens, i int) req {
			return req{method: "GET", target: "/nowhere", remote: pick(i, a1, a2)}
		}, rest},
		{"widget state, one token from many addresses", perToken, func(tk tokens, i int) req {
			tok := tk.widget
			if i == 3 {
				tok = "another-token"
			}
			return req{method: "GET", target: "/v1/siw/_/widget/state", header: widget(tok), remote: fmt.Sprintf("203.0.113.%d:1", i)}
		}, rest},
		{"widget select, one token from many addresses", perToken, func(tk tokens, i int) req {
			tok := tk.widget
			if i == 3 {
				tok = "another-token"
			}
			return req{method: "POST", target: "/v1/siw/_/widget/select", header: widget(tok), body: `{}`, remote: fmt.Sprintf("203.0.113.%d:1", i)}
		}, rest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := memory.New()
			tk := newStack(t, store, httpapi.Options{RateLimits: httpapi.RateLimits{Address: httpapi.NoRateLimit}}).seed()
			st := newStack(t, store, httpapi.Options{RateLimits: tt.limits})
			var recs []*httptest.ResponseRecorder
			for i := range 4 {
				r := tt.make(tk, i)
				if r.header == nil {
					r.header = map[string]string{}
				}
				r.header["X-Trace-Id"] = "t-1"
				recs = append(recs, st.do(r))
			}
			limited := recs[2]
			for i, rec := range recs {
				if got := rec.Code == http.StatusTooManyRequests; got != (i == 2) {
					t.Errorf("request %d: %d %s", i, rec.Code, rec.Body)
				}
			}
			if got := limited.Header().Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After = %q, want 1", got)
			}
			var body map[string]any
			if err := json.Unmarshal(limited.Body.Bytes(), &body); err != nil {
				t.Fatalf("429 body is not JSON: %v: %s", err, limited.Body)
			}
			if diff := cmp.Diff(tt.wantBody(tt.make(tk, 2).target), body); diff != "" {
				t.Errorf("429 body (-want +got):\n%s", diff)
			}
			// A second later the first client is served again.
			st.clock.Advance(time.Second)
			if rec := st.do(tt.make(tk, 0)); rec.Code == http.StatusTooManyRequests {
				t.Errorf("after a second: still 429")
			}
		})
	}
}

func pick(i int, first, other string) string {
	if i == 3 {
		return other
	}
	return first
}

// TestSecurityHeaders: each kind of answer carries the headers its use
// needs. Customer pages may not be framed, cached or leak their URL as a
// Referer; JSON answers cannot run or be framed; the widget's script may be
// loaded by any page and is never sniffed as another type.
func TestSecurityHeaders(t *testing.T) {
	store := memory.New()
	tk := newStack(t, store, httpapi.Options{}).seed()
	st := newStack(t, store, httpapi.Options{RateLimits: httpapi.RateLimits{Address: httpapi.RateLimit{PerSecond: 1, Burst: 1}}})
	names := []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy", "X-Content-Type-Options", "Cache-Control", "Cross-Origin-Resource-Policy"}
	const trackingCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'none'"
	const statusCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data: 'self'; form-action 'self'; frame-ancestors 'none'"
	const apiCSP = "default-src 'none'; frame-ancestors 'none'"
	page := func(csp string) map[string]string {
		return map[string]string{"Content-Security-Policy": csp, "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer",
			"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
	}
	// A page the customer may reload is kept by their browser only,
	// and revalidated (ETag).
	reloadable := func(csp string) map[string]string {
		h := page(csp)
		h["Cache-Control"] = "private, no-cache"
		return h
	}
	api := func(cache string) map[string]string {
		h := map[string]string{"Content-Security-Policy": apiCSP, "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}
		if cache != "" {
			h["Cache-Control"] = cache
		}
		return h
	}
	tests := []struct {
		name       string
		req        req
		wantStatus int
		want       map[string]string
	}{
		{"tracking page", req{method: "GET", target: tracking.PagePath + tk.tracking, remote: "192.0.2.1:1"}, 200, reloadable(trackingCSP)},
		{"tracking page, unknown token", req{method: "GET", target: tracking.PagePath + "nope", remote: "192.0.2.2:1"}, 404, page(trackingCSP)},
		{"tracking page, rate limited", req{method: "GET", target: tracking.PagePath + tk.tracking, remote: "192.0.2.1:1"}, 429,
			page("default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")},
		{"return status page", req{method: "GET", target: returns.StatusPagePath + tk.status, remote: "192.0.2.3:1"}, 200, reloadable(statusCSP)},
		{"return status page, unknown token", req{method: "GET", target: returns.StatusPagePath + "nope", remote: "192.0.2.4:1"}, 404, page(statusCSP)},
		{"return label, no label", req{method: "GET", target: returns.StatusPagePath + tk.status + returns.StatusLabelPath, remote: "192.0.2.8:1"}, 404, page(statusCSP)},
		{"widget script", req{method: "GET", target: "/v1/siw/_/widget.js", remote: "192.0.2.5:1"}, 200,
			map[string]string{"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=300", "Cross-Origin-Resource-Policy": "cross-origin"}},
		{"widget script, content-addressed", req{method: "GET", target: "/v1/siw/_/" + checkout.WidgetScriptName, remote: "192.0.2.10:1"}, 200,
			map[string]string{"Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=31536000, immutable", "Cross-Origin-Resource-Policy": "cross-origin"}},
		{"widget state", req{method: "GET", target: "/v1/siw/_/widget/state", header: widget(tk.widget), remote: "192.0.2.6:1"}, 200, api("no-store")},
		{"widget preflight", req{method: "OPTIONS", target: "/v1/siw/_/widget/state", remote: "192.0.2.7:1"}, 204, api("no-store")},
		{"merchant API", req{method: "GET", target: "/v1/delivery_tracking/orders?external_id=ext-1", header: restKey}, 200, api("")},
		{"merchant API error", req{method: "GET", target: "/delivery/v1/sessions/nope", header: rpcKey}, 404, api("")},
		{"health", req{method: "GET", target: "/healthz"}, 200, api("")},
		// A photo keeps its sandbox, also on a refused link.
		{"complaint photo, bad link", req{method: "GET", target: returns.ComplaintImagePath + "00000000-0000-8000-8000-000000000000?expires=1&signature=x", remote: "192.0.2.9:1"}, 403,
			map[string]string{"Content-Security-Policy": "sandbox; default-src 'none'", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := st.do(tt.req)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.wantStatus, rec.Body)
			}
			got := map[string]string{}
			for _, n := range names {
				if v := rec.Header().Get(n); v != "" {
					got[n] = v
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTokensNeverLogged: the access log and the error log show the path of
// a customer page with its token replaced, for known, unknown and
// mistyped tokens, and never a widget token (it travels in a header).
func TestTokensNeverLogged(t *testing.T) {
	store := &faultyStore{Store: memory.New()}
	tk := newStack(t, store, httpapi.Options{}).seed()
	st := newStack(t, store, httpapi.Options{})
	tests := []struct {
		name     string
		req      req
		failRead bool   // the store fails, so the error log has the path too
		secret   string // must not be in the log
		wantPath string // the path the log shows
	}{
		{"tracking page", req{method: "GET", target: tracking.PagePath + tk.tracking + "?locale=sv-SE"}, false, tk.tracking, tracking.PagePath + "…"},
		{"tracking page, mistyped", req{method: "GET", target: tracking.PagePath + tk.tracking + "x"}, false, tk.tracking, tracking.PagePath + "…"},
		{"tracking page, extra segment", req{method: "GET", target: tracking.PagePath + tk.tracking + "/more"}, false, tk.tracking, tracking.PagePath + "…"},
		{"tracking page, store failing", req{method: "GET", target: tracking.PagePath + tk.tracking}, true, tk.tracking, tracking.PagePath + "…"},
		{"return status page", req{method: "GET", target: returns.StatusPagePath + tk.status}, false, tk.status, returns.StatusPagePath + "…"},
		{"return status page, store failing", req{method: "GET", target: returns.StatusPagePath + tk.status}, true, tk.status, returns.StatusPagePath + "…"},
		{"return label", req{method: "GET", target: returns.StatusPagePath + tk.status + returns.StatusLabelPath}, false, tk.status, returns.StatusPagePath + "…"},
		{"return label, store failing", req{method: "GET", target: returns.StatusPagePath + tk.status + returns.StatusLabelPath}, true, tk.status, returns.StatusPagePath + "…"},
		{"widget state", req{method: "GET", target: "/v1/siw/_/widget/state", header: widget(tk.widget)}, false, tk.widget, "/v1/siw/_/widget/state"},
		{"widget select", req{method: "POST", target: "/v1/siw/_/widget/select", header: widget(tk.widget), body: `{"option_id": "x"}`}, false, tk.widget, "/v1/siw/_/widget/select"},
		{"widget state, store failing", req{method: "GET", target: "/v1/siw/_/widget/state", header: widget(tk.widget)}, true, tk.widget, "/v1/siw/_/widget/state"},
		{"parcels by tracking token", req{method: "GET", target: "/v1/delivery_tracking/parcels?token=" + tk.tracking, header: restKey}, false, tk.tracking, "/v1/delivery_tracking/parcels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.failRead {
				store.failReads(&fs.PathError{Op: "read", Path: "/data/dk.db", Err: syscall.EIO})
				defer store.readErr.Store(nil)
			}
			st.log.take()
			rec := st.do(tt.req)
			log := st.log.take()
			if tt.failRead && rec.Code != http.StatusInternalServerError {
				t.Fatalf("with the store failing: %d, want 500", rec.Code)
			}
			if tt.failRead && !strings.Contains(log, `msg="internal error"`) {
				t.Errorf("no error logged:\n%s", log)
			}
			if strings.Contains(log, tt.secret) {
				t.Errorf("the log holds the token %q:\n%s", tt.secret, log)
			}
			if !strings.Contains(log, "path="+tt.wantPath) {
				t.Errorf("the log lacks path=%s:\n%s", tt.wantPath, log)
			}
		})
	}
}

// TestFullDiskIs503: when the store refuses writes because the disk is
// full (or the quota is used up, or the file system went read-only), every
// write endpoint answers 503 with Retry-After in its area's shape, never
// 500, and the log says why.
func TestFullDiskIs503(t *testing.T) {
	const msg = "service unavailable, try again later"
	rest := map[string]any{"error": "unavailable: " + msg, "trace_id": "t-503"}
	spring := func(path string) map[string]any {
		return map[string]any{"timestamp": "2026-11-23T09:00:00.000Z", "status": float64(503), "error": "Service Unavailable", "message": msg, "path": path}
	}
	tests := []struct {
		name  string
		errno syscall.Errno
		req   req
		want  map[string]any
	}{
		{"A tracking order", syscall.ENOSPC, req{method: "POST", target: "/v1/delivery_tracking/order", header: restKey, body: strings.Replace(trackingOrder, "ext-1", "ext-2", 1)}, rest},
		{"C checkout create", syscall.ENOSPC, req{method: "POST", target: "/v1/siw/session.create", header: restKey, body: checkoutCreate}, rest},
		{"D session create", syscall.EDQUOT, req{method: "POST", target: "/delivery/v1/sessions", header: rpcKey, body: sessionCreate},
			map[string]any{"code": float64(14), "message": msg, "details": []any{}}},
		{"E returns order", syscall.EROFS, req{method: "POST", target: "/returns/merchant/order", header: springKey, body: strings.Replace(returnsOrder, "A-1", "A-2", 1)}, spring("/returns/merchant/order")},
		{"E customer return", syscall.ENOSPC, req{method: "POST", target: "/returns/customer/return", body: customerReturn}, spring("/returns/customer/return")},
		{"F shipment create", syscall.ENOSPC, req{method: "POST", target: "/v1/som/shipments.create", header: restKey, body: shipmentCreate}, rest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &faultyStore{Store: memory.New()}
			st := newStack(t, store, httpapi.Options{})
			st.seed()
			store.failWrites(deliverykit.Errorf(deliverykit.KindInternal, "storage: commit: %w", &fs.PathError{Op: "write", Path: "/data/dk.db", Err: tt.errno}))
			st.log.take()
			tt.req.header = cloneWith(tt.req.header, "X-Trace-Id", "t-503")
			rec := st.do(tt.req)
			if rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("status %d, want 503: %s", rec.Code, rec.Body)
			}
			if got := rec.Header().Get("Retry-After"); got != "30" {
				t.Errorf("Retry-After = %q, want 30", got)
			}
			var body map[string]any
			json.Unmarshal(rec.Body.Bytes(), &body)
			if diff := cmp.Diff(tt.want, body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if log := st.log.take(); !strings.Contains(log, `msg="service unavailable"`) || !strings.Contains(log, tt.errno.Error()) {
				t.Errorf("the log does not say why:\n%s", log)
			}
		})
	}
}

func cloneWith(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for hk, hv := range h {
		out[hk] = hv
	}
	return out
}

// TestReadyz: /readyz is 200 on a store that takes writes and 503 when it
// does not, when a bolt file was removed or replaced under the store, or
// once the server drains; /healthz stays 200 throughout.
func TestReadyz(t *testing.T) {
	type result struct{ Readyz, Healthz int }
	tests := []struct {
		name  string
		store func(t *testing.T) storage.Store
		// breakIt runs after the store is built, before the check.
		breakIt func(t *testing.T, s storage.Store, r *httpapi.Readiness)
		want    result
	}{
		{"memory", func(*testing.T) storage.Store { return memory.New() }, nil, result{200, 200}},
		{"bolt", openBolt, nil, result{200, 200}},
		{"disk full", func(*testing.T) storage.Store {
			s := &faultyStore{Store: memory.New()}
			s.failWrites(&fs.PathError{Op: "write", Path: "/data/dk.db", Err: syscall.ENOSPC})
			return s
		}, nil, result{503, 200}},
		{"draining", func(*testing.T) storage.Store { return memory.New() }, func(t *testing.T, s storage.Store, r *httpapi.Readiness) { r.Drain() }, result{503, 200}},
		{"bolt file removed", openBolt, func(t *testing.T, s storage.Store, _ *httpapi.Readiness) {
			if err := os.Remove(s.(*bolt.Store).Path()); err != nil {
				t.Fatal(err)
			}
		}, result{503, 200}},
		{"bolt file replaced", openBolt, func(t *testing.T, s storage.Store, _ *httpapi.Readiness) {
			path := s.(*bolt.Store).Path()
			other := filepath.Join(filepath.Dir(path), "other.db")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, result{503, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := tt.store(t)
			ready := httpapi.NewReadiness(store, httpapi.ReadinessOptions{Clock: deliverykit.NewManualClock(stackStart)})
			st := newStack(t, store, httpapi.Options{
				Health: func(ctx context.Context) error { return nil },
				Ready:  ready.Check,
			})
			if tt.breakIt != nil {
				tt.breakIt(t, store, ready)
			}
			got := result{st.do(req{method: "GET", target: "/readyz"}).Code, st.do(req{method: "GET", target: "/healthz"}).Code}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func openBolt(t *testing.T) storage.Store {
	s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestReadinessProbesOncePerInterval: however many callers ask, the store
// is written once per interval; a failure is seen at the next probe and a
// recovery too; the probe leaves one record in the health collection.
func TestReadinessProbesOncePerInterval(t *testing.T) {
	store := &faultyStore{Store: memory.New()}
	clock := deliverykit.NewManualClock(stackStart)
	r := httpapi.NewReadiness(store, httpapi.ReadinessOptions{Clock: clock, Interval: 10 * time.Second})
	ctx := t.Context()
	type step struct {
		Updates int64
		Ready   bool
	}
	var got []step
	check := func() {
		err := r.Check(ctx)
		got = append(got, step{store.updates.Load(), err == nil})
	}
	check()
	check()
	clock.Advance(9 * time.Second)
	check()
	store.failWrites(syscall.ENOSPC)
	check() // still the cached success
	clock.Advance(time.Second)
	check() // probed: the disk is full
	store.writeErr.Store(nil)
	clock.Advance(5 * time.Second)
	check() // cached failure
	clock.Advance(5 * time.Second)
	check() // probed: recovered
	want := []step{{1, true}, {1, true}, {1, true}, {1, true}, {2, false}, {2, false}, {3, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var n int
	err := store.View(ctx, func(tx storage.Tx) error {
		for rec, err := range tx.Scan(httpapi.HealthCollection, storage.Range{}) {
			if err != nil {
				return err
			}
			n++
			if want, _ := clock.Now().MarshalText(); string(rec.Value) != string(want) {
				t.Errorf("probe record %q, want %q", rec.Value, want)
			}
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Errorf("health records: %d (%v), want 1", n, err)
	}
}

func ExampleReadiness() {
	store := memory.New()
	ready := httpapi.NewReadiness(store, httpapi.ReadinessOptions{})
	h := httpapi.New(httpapi.Options{Ready: ready.Check, Logger: slog.New(slog.DiscardHandler)})

	get := func() int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		return rec.Code
	}
	fmt.Println("serving:", get())
	ready.Drain() // at SIGTERM, before closing the listener
	fmt.Println("draining:", get())
	// Output:
	// serving: 200
	// draining: 503
}

func ExampleRateLimits() {
	// Each site may send 500 requests a second (1,000 at once); customer
	// pages and the widget are limited per client address, read from
	// X-Forwarded-For when the connection comes from the proxy.
	h := httpapi.New(httpapi.Options{
		Logger: slog.New(slog.DiscardHandler),
		RateLimits: httpapi.RateLimits{
			Site:           httpapi.RateLimit{PerSecond: 500, Burst: 1000},
			Address:        httpapi.RateLimit{PerSecond: 1, Burst: 1},
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		},
	})
	for range 2 {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/nowhere", nil)
		r.RemoteAddr = "10.1.2.3:4567"
		r.Header.Set("X-Forwarded-For", "192.0.2.44")
		h.ServeHTTP(rec, r)
		fmt.Printf("%d Retry-After: %q\n", rec.Code, rec.Header().Get("Retry-After"))
	}
	// Output:
	// 404 Retry-After: ""
	// 429 Retry-After: "1"
}
