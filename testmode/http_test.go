package testmode_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/wiring"
)

// server is a deployment of the demo configuration (test-mode sites) on
// the memory store, served in process.
type server struct {
	t     *testing.T
	h     http.Handler
	clock *deliverykit.ManualClock
	svcs  *wiring.Services
}

var start = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

func newServer(t *testing.T, cfg *config.Config) *server {
	t.Helper()
	if cfg == nil {
		cfg = config.Demo()
	}
	clock := deliverykit.NewManualClock(start)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, PublicURL: "http://shop.test", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: slog.New(slog.DiscardHandler),
		RateLimits: httpapi.RateLimits{Site: httpapi.NoRateLimit, WidgetToken: httpapi.NoRateLimit, Address: httpapi.NoRateLimit}})
	return &server{t: t, h: h, clock: clock, svcs: svcs}
}

// do calls the server with key as a bearer (areas A, B, C, F) and decodes
// the answer into out (when not nil); it returns the status.
func (s *server) do(method, path, key string, body any, out any) int {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			s.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, "http://shop.test"+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(key)))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpapi.NewInProcessClient(s.h).Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			s.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

type created struct {
	SiteID    string    `json:"site_id"`
	Parent    string    `json:"parent_site_id"`
	APIKey    string    `json:"api_key"`
	Now       time.Time `json:"now"`
	ExpiresAt time.Time `json:"expires_at"`
}

func (s *server) newSite(key string) created {
	s.t.Helper()
	var c created
	if st := s.do("POST", "/v1/test/sites", key, struct{}{}, &c); st != http.StatusOK {
		s.t.Fatalf("POST /v1/test/sites: %d %+v", st, c)
	}
	return c
}

func TestCreateSiteAndClock(t *testing.T) {
	s := newServer(t, nil)
	c := s.newSite("demo-key")
	if c.Parent != "demo-site" || !c.Now.Equal(start) || c.APIKey == "" {
		t.Fatalf("created %+v", c)
	}
	var clock struct {
		Now time.Time `json:"now"`
	}
	if st := s.do("GET", "/v1/test/clock?site_id="+c.SiteID, "demo-key", nil, &clock); st != 200 || !clock.Now.Equal(start) {
		t.Fatalf("clock: %d %v", st, clock.Now)
	}
	var adv struct {
		Now time.Time      `json:"now"`
		Ran map[string]int `json:"ran"`
	}
	if st := s.do("POST", "/v1/test/clock:advance", c.APIKey, map[string]string{"duration": "144h"}, &adv); st != 200 || !adv.Now.Equal(start.Add(144*time.Hour)) {
		t.Fatalf("advance: %d %+v", st, adv)
	}
	if st := s.do("GET", "/v1/test/clock", c.APIKey, nil, &clock); st != 200 || !clock.Now.Equal(start.Add(144*time.Hour)) {
		t.Fatalf("clock after: %d %v", st, clock.Now)
	}
	// The deployment's clock did not move.
	if !s.clock.Now().Equal(start) {
		t.Errorf("process clock moved to %v", s.clock.Now())
	}
	if st := s.do("POST", "/v1/test/clock:advance", c.APIKey, map[string]string{"duration": "-1h"}, nil); st != 400 {
		t.Errorf("back: %d, want 400", st)
	}
}

// order registers a tracking order (area A) with key and returns its id.
func (s *server) order(key, externalID string) string {
	s.t.Helper()
	var out struct {
		ID string `json:"id"`
	}
	body := map[string]any{"external_id": externalID, "carrier_product_ref": "north-parcel-home",
		"sender": map[string]any{"name": "Shop"}, "receiver": map[string]any{"name": "Alva Berg", "email": "alva@example.com"},
		"destination": map[string]any{"address": map[string]any{"city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY"}
	if st := s.do("POST", "/v1/delivery_tracking/order", key, body, &out); st != 200 || out.ID == "" {
		var e map[string]any
		s.do("POST", "/v1/delivery_tracking/order", key, body, &e)
		s.t.Fatalf("order %s: %d %+v", externalID, st, e)
	}
	return out.ID
}

// orders counts the orders key sees with externalID.
func (s *server) orders(key, externalID string) int {
	s.t.Helper()
	var out struct {
		Orders []any `json:"orders"`
	}
	st := s.do("GET", "/v1/delivery_tracking/orders?external_id="+externalID, key, nil, &out)
	if st == http.StatusNotFound {
		return 0
	}
	if st != 200 {
		s.t.Fatalf("orders %s: %d", externalID, st)
	}
	return len(out.Orders)
}

// TestSitesAreIsolated: a test site's orders are its own, at the same
// paths, and neither its parent nor another test site sees them.
func TestSitesAreIsolated(t *testing.T) {
	s := newServer(t, nil)
	a, b := s.newSite("demo-key"), s.newSite("demo-key")
	s.order(a.APIKey, "SO-1")
	s.order("demo-key", "SO-2")
	for _, c := range []struct {
		key, order string
		want       int
	}{
		{a.APIKey, "SO-1", 1}, {b.APIKey, "SO-1", 0}, {"demo-key", "SO-1", 0},
		{a.APIKey, "SO-2", 0}, {b.APIKey, "SO-2", 0}, {"demo-key", "SO-2", 1},
	} {
		if got := s.orders(c.key, c.order); got != c.want {
			t.Errorf("key %.12s… sees %d orders %s, want %d", c.key, got, c.order, c.want)
		}
	}
	// The same order number in another test site is another order.
	s.order(b.APIKey, "SO-1")
	// A test site's clock is its own.
	if st := s.do("POST", "/v1/test/clock:advance", a.APIKey, map[string]string{"duration": "48h"}, nil); st != 200 {
		t.Fatalf("advance: %d", st)
	}
	var clock struct {
		Now time.Time `json:"now"`
	}
	s.do("GET", "/v1/test/clock", b.APIKey, nil, &clock)
	if !clock.Now.Equal(start) {
		t.Errorf("site b's clock reads %v after site a's advance", clock.Now)
	}
	// A test site's clock is its and its parent's only.
	if st := s.do("GET", "/v1/test/clock?site_id="+a.SiteID, b.APIKey, nil, nil); st != 400 {
		t.Errorf("b reading a's clock: %d, want 400 naming site_id", st)
	}
}

// TestLiveSitesSeeNoTestMode: a live site's key gets 404 on every test
// path, and a request without a key 401.
func TestLiveSitesSeeNoTestMode(t *testing.T) {
	cfg := config.Demo()
	cfg.Sites[1].Mode = testmode.ModeLive
	s := newServer(t, cfg)
	c := s.newSite("demo-key")
	for _, p := range []struct{ method, path string }{
		{"POST", "/v1/test/sites"}, {"GET", "/v1/test/clock?site_id=" + c.SiteID},
		{"POST", "/v1/test/clock:advance"}, {"POST", "/v1/test/events"}, {"GET", "/v1/test/nothing"},
	} {
		body := map[string]string{"site_id": c.SiteID, "duration": "1h", "type": "parcel.changed"}
		if st := s.do(p.method, p.path, "demo-key-2", body, nil); st != http.StatusNotFound {
			t.Errorf("%s %s with a live key: %d, want 404", p.method, p.path, st)
		}
		if st := s.do(p.method, p.path, "", body, nil); st != http.StatusUnauthorized {
			t.Errorf("%s %s without a key: %d, want 401", p.method, p.path, st)
		}
	}
	// A magic value means nothing to a live site: a fault named in
	// meta.test_scenario books as any delivery does.
	b := bookingOf(1, "BOOKING_REJECTED", "shipment")
	b.shipment["sender"].(map[string]any)["address"].(map[string]any)["country"] = "DE"
	var out map[string]any
	if st := s.do("POST", "/v1/som/shipments.createAndBook", "demo-key-2", b.shipment, &out); st != 200 {
		t.Errorf("a live site's booking naming a fault: %d %v, want 200", st, out)
	}
}

// TestSitesExpireAndAreBounded: a site unused for a day is deleted with
// its records; a parent holds at most MaxSites.
func TestSitesExpireAndAreBounded(t *testing.T) {
	s := newServer(t, nil)
	a := s.newSite("demo-key")
	s.order(a.APIKey, "SO-1")
	s.clock.Advance(testmode.DefaultExpiry - time.Minute)
	if n, err := s.svcs.TestSites.Sweep(context.Background(), s.clock.Now(), 100); err != nil || n != 0 {
		t.Fatalf("sweep before expiry: %d %v", n, err)
	}
	s.clock.Advance(2 * time.Minute)
	n, err := s.svcs.TestSites.Sweep(context.Background(), s.clock.Now(), 100)
	if err != nil || n == 0 {
		t.Fatalf("sweep after expiry: %d %v", n, err)
	}
	if st := s.do("GET", "/v1/delivery_tracking/orders?external_id=SO-1", a.APIKey, nil, nil); st != http.StatusUnauthorized {
		t.Errorf("an expired site's key: %d, want 401", st)
	}
	left := 0
	s.svcs.TestSites.ForEachRecord(context.Background(), a.SiteID, func(string, string) { left++ })
	if left != 0 {
		t.Errorf("%d records of the expired site are left", left)
	}

	svc, err := testmode.New(testmode.Options{Store: memory.New(), MaxSites: 2, Parents: func(string) bool { return true },
		Build: func(context.Context, testmode.Build) (testmode.Sandbox, error) { return nil, errors.New("not built") }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		_, err := svc.Create(context.Background(), "shop", testmode.CreateRequest{})
		if want := i == 2; (deliverykit.KindOf(err) == deliverykit.KindResourceExhausted) != want || (err != nil) != want {
			t.Errorf("site %d: %v", i+1, err)
		}
	}
}

// TestLinksReachTheSite: the links a test site makes (the widget's base,
// here) lead to the site, and only under its path.
func TestLinksReachTheSite(t *testing.T) {
	s := newServer(t, nil)
	a := s.newSite("demo-key")
	var created struct {
		Token   string `json:"token"`
		Snippet string `json:"html_snippet"`
	}
	body := map[string]any{"purchase_country": "SE", "purchase_currency": "SEK", "locales": []string{"sv-SE"},
		"cart":           map[string]any{"cart_id": "c-1", "total_value": 45000, "items": []any{map[string]any{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}}},
		"search_address": map[string]any{"postal_code": "111 57", "country": "SE"}}
	if st := s.do("POST", "/v1/siw/session.create", a.APIKey, body, &created); st != 200 {
		t.Fatalf("create: %d", st)
	}
	base := "http://shop.test/test/" + a.SiteID + "/v1/siw/_/"
	if !strings.Contains(created.Snippet, `data-deliverykit-base="`+base+`"`) {
		t.Fatalf("snippet has no base %s: %s", base, created.Snippet)
	}
	for path, want := range map[string]int{
		"/test/" + a.SiteID + "/v1/siw/_/widget/state": 200,
		"/v1/siw/_/widget/state":                       http.StatusNotFound,
		"/test/test_nosuchsite/v1/siw/_/widget/state":  http.StatusNotFound,
	} {
		req, _ := http.NewRequest("GET", "http://shop.test"+path, nil)
		req.Header.Set("X-Widget-Token", created.Token)
		resp, err := httpapi.NewInProcessClient(s.h).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestBadInput: every test endpoint answers hostile input with a 4xx
// naming the field, and a body past the limit unread.
func TestBadInput(t *testing.T) {
	s := newServer(t, nil)
	a := s.newSite("demo-key")
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		method, path string
		body         any
		status       int
		field        string
	}{
		{"POST", "/v1/test/clock:advance", map[string]any{"duration": "soon"}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{"duration": "-1h"}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{"duration": "10000h"}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{"duration": long}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{"duration": "1h", "to": "2030-01-01T00:00:00Z"}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{"to": "2020-01-01T00:00:00Z"}, 400, "to"},
		{"POST", "/v1/test/clock:advance", map[string]any{"duration": 5}, 400, "duration"},
		{"POST", "/v1/test/clock:advance", map[string]any{"site_id": long, "duration": "1h"}, 400, "site_id"},
		{"POST", "/v1/test/clock:advance", map[string]any{"site_id": "test_nosuch", "duration": "1h"}, 400, "site_id"},
		{"GET", "/v1/test/clock?site_id=" + long, nil, 400, "site_id"},
		{"POST", "/v1/test/events", map[string]any{"type": "parcel.exploded"}, 400, "type"},
		{"POST", "/v1/test/events", map[string]any{"type": []int{1}}, 400, "type"},
		{"POST", "/v1/test/faults", map[string]any{"faults": []string{"A", "B", "C", "D", "E", "F", "G", "H", "I"}}, 400, "faults"},
		{"POST", "/v1/test/faults", map[string]any{"faults": []string{"FLOOD"}}, 400, "faults[0]"},
		{"POST", "/v1/test/faults", map[string]any{"faults": "FLOOD"}, 400, "faults"},
		{"POST", "/v1/test/sites", strings.Repeat(" ", 2<<20), 413, ""},
	} {
		var out struct {
			Details []struct {
				Field string `json:"field"`
			} `json:"details"`
		}
		st := s.do(c.method, c.path, a.APIKey, c.body, &out)
		var fields []string
		for _, d := range out.Details {
			fields = append(fields, d.Field)
		}
		if st != c.status || c.field != "" && !slices.Contains(fields, c.field) {
			t.Errorf("%s %s %.60v: %d %v, want %d naming %s", c.method, c.path, c.body, st, fields, c.status, c.field)
		}
	}
}

// TestAdvanceExpires: an advance past a checkout session's expiry and
// its retention deletes it, and says so; advancing to a time works as a
// duration does.
func TestAdvanceExpires(t *testing.T) {
	s := newServer(t, nil)
	a := s.newSite("demo-key")
	body := map[string]any{"purchase_country": "SE", "purchase_currency": "SEK", "locales": []string{"sv-SE"},
		"cart":           map[string]any{"cart_id": "c-1", "total_value": 45000, "items": []any{map[string]any{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}}},
		"search_address": map[string]any{"postal_code": "111 57", "country": "SE"}}
	var created struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
	}
	if st := s.do("POST", "/v1/siw/session.create", a.APIKey, body, &created); st != 200 {
		t.Fatalf("create: %d", st)
	}
	var adv struct {
		Now time.Time    `json:"now"`
		Ran testmode.Ran `json:"ran"`
	}
	to := start.Add(10 * 24 * time.Hour)
	if st := s.do("POST", "/v1/test/clock:advance", a.APIKey, map[string]any{"to": to}, &adv); st != 200 || !adv.Now.Equal(to) {
		t.Fatalf("advance: %d %+v", st, adv)
	}
	if adv.Ran.Expired != 1 {
		t.Errorf("ran %+v, want one expired session", adv.Ran)
	}
	if st := s.do("GET", "/v1/siw/session.get?id="+created.Session.ID, a.APIKey, nil, nil); st != http.StatusNotFound {
		t.Errorf("the expired session: %d, want 404", st)
	}
}
