package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDemoDefaults: the demo configuration runs the simulator at the demo
// time scale and serves the shop; -config runs neither unless asked; the
// flags given always win.
func TestDemoDefaults(t *testing.T) {
	type got struct {
		Carrier   string
		TimeScale float64
		Shop      bool
	}
	cfg := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(cfg, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want got
	}{
		{nil, got{"simulate", demoTimeScale, true}},
		{[]string{"-time-scale", "60"}, got{"simulate", 60, true}},
		{[]string{"-demo-carrier", "simulate"}, got{"simulate", 1, true}},
		{[]string{"-demo-carrier", "manual"}, got{"manual", 0, true}},
		{[]string{"-demo-carrier", "static"}, got{"manual", 0, true}},
		{[]string{"-demo-shop=false"}, got{"simulate", demoTimeScale, false}},
		{[]string{"-config", cfg}, got{"manual", 0, false}},
		{[]string{"-config", cfg, "-demo-shop"}, got{"manual", 0, true}},
		{[]string{"-config", cfg, "-demo-carrier", "simulate"}, got{"simulate", 1, false}},
	}
	for _, tt := range tests {
		f, err := parseFlags(tt.args, new(strings.Builder))
		if err != nil {
			t.Errorf("parseFlags(%q): %v", tt.args, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got{f.demoCarrier, f.timeScale, f.demoShop}); diff != "" {
			t.Errorf("parseFlags(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestShopLang: ?lang= when the shop speaks it, else Accept-Language,
// else English.
func TestShopLang(t *testing.T) {
	tests := []struct{ query, accept, want string }{
		{"", "", "en-US"},
		{"sv-SE", "", "sv-SE"},
		{"sv", "en-US", "sv-SE"},
		{"", "sv-SE,sv;q=0.9,en;q=0.8", "sv-SE"},
		{"", "de-DE", "en-US"},
		{"en-US", "sv-SE", "en-US"},
		{"xx-" + strings.Repeat("y", 100), "sv", "sv-SE"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/demo/shop?lang="+tt.query, nil)
		r.Header.Set("Accept-Language", tt.accept)
		if got := shopLang(r); got != tt.want {
			t.Errorf("shopLang(lang=%q, Accept-Language %q) = %s, want %s", tt.query, tt.accept, got, tt.want)
		}
	}
}

// TestDemoShopAPI: the backend prices the cart itself, refuses what the
// shop does not sell and sessions it did not create, names the field of
// a missing customer detail, and bounds bodies. Served only with the
// demo configuration or -demo-shop.
func TestDemoShopAPI(t *testing.T) {
	base, done, stop := start(t, hooks{})
	defer func() {
		stop()
		<-done
	}()
	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		status, raw := do(t, method, base+path, map[string]string{"Content-Type": "application/json"}, body)
		var out map[string]any
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			t.Fatalf("%s %s: %d %s", method, path, status, raw)
		}
		return status, out
	}
	status, created := call("POST", "/demo/shop/api/session", `{"lang": "sv-SE", "cart": {"tent-2p": 1, "lamp-1": 2}}`)
	if status != 200 {
		t.Fatalf("session: %d %v", status, created)
	}
	id := created["id"].(string)
	if got, want := created["summary"], map[string]any{"items": 89900.0 + 2*24900, "shipping": 0.0, "total": 89900.0 + 2*24900, "currency": "SEK"}; !cmp.Equal(got, want) {
		// Above the free-shipping threshold: free.
		t.Errorf("summary %v, want %v", got, want)
	}
	if s, _ := created["html_snippet"].(string); !strings.Contains(s, `id="shipwallet-container"`) {
		t.Errorf("html_snippet: %.200s", s)
	}

	// The API's own session (created with the key) is not the shop's.
	fstatus, foreign := do(t, "POST", base+"/v1/siw/session.create", trackingAuth, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"total_value": 100, "items": [{"sku": "x", "quantity": 1, "price": 100}]}}`)
	var fv struct{ Session struct{ ID string } }
	if err := json.Unmarshal([]byte(foreign), &fv); err != nil || fstatus != 200 {
		t.Fatalf("session.create: %d %s", fstatus, foreign)
	}

	tests := []struct {
		name, method, path, body string
		status                   int
		err                      string
	}{
		{"a product the shop does not sell", "POST", "/demo/shop/api/session", `{"cart": {"tent-2p": 1, "yacht": 1}}`, 400, "cart"},
		{"too many", "POST", "/demo/shop/api/session", `{"cart": {"tent-2p": 10}}`, 400, "cart.tent-2p"},
		{"an empty cart", "POST", "/demo/shop/api/session", `{"cart": {}}`, 400, "cart"},
		{"not JSON", "POST", "/demo/shop/api/cart", `{"id": `, 400, "body"},
		{"too large", "POST", "/demo/shop/api/cart", `{"id": "` + strings.Repeat("x", maxShopBody) + `"}`, 413, "body"},
		{"another's session", "GET", "/demo/shop/api/summary?id=" + fv.Session.ID, "", 404, "no checkout session"},
		{"no session", "GET", "/demo/shop/api/summary", "", 400, "id"},
		{"no e-mail", "POST", "/demo/shop/api/complete", `{"id": "` + id + `", "customer": {"name": "A", "street": "B 1", "postal_code": "111 57", "city": "C"}}`, 400, "customer.email"},
		{"an order not the shop's", "POST", "/demo/shop/api/return", `{"order": "order-1", "email": "a@example.com"}`, 400, "order"},
	}
	for _, tt := range tests {
		status, out := call(tt.method, tt.path, tt.body)
		if msg, _ := out["error"].(string); status != tt.status || !strings.Contains(msg, tt.err) {
			t.Errorf("%s: %d %v, want %d naming %q", tt.name, status, out, tt.status, tt.err)
		}
	}

	// A form another site posts is refused before it is read.
	if status, raw := do(t, "POST", base+"/demo/shop/api/session", map[string]string{"Content-Type": "text/plain"}, `{"cart": {"tent-2p": 1}}`); status != 415 {
		t.Errorf("a text/plain post: %d %s, want 415", status, raw)
	}

	// The page, with its policy.
	resp, err := http.Get(base + "/demo/shop")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != 200 || !strings.Contains(csp, "script-src 'self' 'sha256-") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
		t.Errorf("GET /demo/shop: %d, CSP %q", resp.StatusCode, csp)
	}
}

// TestDemoShopOffWithConfig: with -config the shop is not served.
func TestDemoShopOffWithConfig(t *testing.T) {
	base, done, stop := start(t, hooks{}, "-config", "../../config/demo.json", "-dev")
	defer func() {
		stop()
		<-done
	}()
	if got := get(t, base+"/demo/shop", nil); got != 404 {
		t.Errorf("GET /demo/shop with -config: %d, want 404", got)
	}
}
