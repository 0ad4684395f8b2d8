package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestReceiverAgainstTheServer: the receiver accepts what deliverykit
// sends, prints each event once, and refuses a forged delivery.
func TestReceiverAgainstTheServer(t *testing.T) {
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("r", 32)))
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	var out strings.Builder
	rc := httptest.NewServer(newReceiver(&out, clock.Now, secret))
	defer rc.Close()
	cfg := config.Demo()
	cfg.Sites[0].Webhooks = []webhook.Endpoint{{ID: "shop", URL: rc.URL + "/hooks/delivery", Secrets: []string{secret}, Events: []event.Type{event.TypeOrderCompleted}}}
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Webhooks: webhook.Options{AllowPrivate: true}})
	if err != nil {
		t.Fatal(err)
	}
	client := httpapi.NewInProcessClient(svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock}))
	do := func(path, body string) *http.Response {
		req, _ := http.NewRequest("POST", "http://deliverykit"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte("demo-key")))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := do("/v1/siw/session.create", `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "c-1", "total_value": 100, "items": [{"sku": "a", "quantity": 1, "price": 100}]}}`)
	var created struct {
		Session struct{ ID string } `json:"session"`
	}
	decode(t, resp, &created)
	resp = do("/v1/siw/session.complete", `{"id": "`+created.Session.ID+`", "customer": {"address": {"postal_code": "111 57", "country": "SE"}}}`)
	var done struct {
		TosID string `json:"tos_id"`
	}
	decode(t, resp, &done)
	for range 2 { // a redelivery is printed once
		if _, err := svcs.Webhooks.Dispatch(t.Context()); err != nil {
			t.Fatal(err)
		}
		evs, _ := svcs.Webhooks.Deliveries(t.Context(), "demo-site", "shop", webhook.DeliveriesQuery{})
		for _, d := range evs.Deliveries {
			svcs.Webhooks.Redeliver(t.Context(), "demo-site", "shop", d.EventID)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if diff := cmp.Diff([]string{"order.completed demo-site " + done.TosID}, trimIDs(lines)); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	forged, _ := http.NewRequest("POST", rc.URL+"/hooks/delivery", strings.NewReader(`{"type": "order.completed"}`))
	forged.Header.Set("webhook-id", "evt_x")
	forged.Header.Set("webhook-timestamp", "1795424400")
	forged.Header.Set("webhook-signature", "v1,bm90IGEgc2lnbmF0dXJl")
	r, err := http.DefaultClient.Do(forged)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusUnauthorized {
		t.Errorf("a forged delivery: %d, want 401", r.StatusCode)
	}
}

func trimIDs(lines []string) []string {
	var out []string
	for _, l := range lines {
		if _, rest, ok := strings.Cut(l, " "); ok {
			out = append(out, rest)
		}
	}
	return out
}

func decode(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d", resp.Request.URL.Path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
