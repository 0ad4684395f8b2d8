package testmode_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
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
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, PublicURL: "http://shop.test"})
	if err != nil {
		t.Fatal(err)
	}
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock,
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
	if st := s.do("POST", "/v1/test/sites", key, struct{}{}, &c); st != http.StatusCreated {
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
