package wiring_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestRetentionFollowsTheConfiguration: the sweeper New builds deletes an
// expired checkout session after the configuration's grace period, not
// before.
func TestRetentionFollowsTheConfiguration(t *testing.T) {
	cfg := config.Demo()
	days := 2
	cfg.Retention = &config.Retention{ActiveSessionDays: &days}
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		Retention: retention.Options{Limit: 10}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := svcs.Checkout.Create(t.Context(), "demo-site", checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.Cart{TotalValue: 1000, Items: []checkout.CartItem{{SKU: "s", Name: "S", Quantity: 1, Price: 1000}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		after time.Duration
		want  map[string]int
	}{
		{checkout.DefaultSessionTTL + 2*24*time.Hour - time.Minute, map[string]int{"checkout": 0, "session": 0, "outbox": 0, "tracking": 0, "notify": 0}},
		{checkout.DefaultSessionTTL + 2*24*time.Hour + time.Minute, map[string]int{"checkout": 1, "session": 0, "outbox": 0, "tracking": 0, "notify": 0}},
	} {
		clock.Set(start.Add(tt.after))
		got, err := svcs.Retention.SweepOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("swept %v after creation (-want +got):\n%s", tt.after, diff)
		}
	}
	if _, err := svcs.Checkout.Get(t.Context(), "demo-site", v.Session.ID); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("get the swept session: %v, want NotFound", err)
	}
}

// TestTrackingSweptEndToEnd: a checkout's tracking order and its
// notifications are swept tracking_days after their last activity, not
// before, and the order's return is still there afterwards.
func TestTrackingSweptEndToEnd(t *testing.T) {
	cfg := config.Demo()
	days := 30
	cfg.Retention = &config.Retention{TrackingDays: &days}
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: notify.NewLogSender(quiet)}})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	must := func(method, path string, header map[string]string, body string, want int) map[string]any {
		t.Helper()
		status, res := e.do(method, path, header, body)
		if status != want {
			t.Fatalf("%s %s: %d %v", method, path, status, res)
		}
		return res
	}
	res := must("POST", "/v1/siw/session.create", bearer, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "order-77", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`, 200)
	res = must("POST", "/v1/siw/session.complete", bearer, `{"id": "`+get(res, "session", "id").(string)+`", "customer": {"email": "anna@example.com",
		"address": {"name": "Anna Svensson", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`, 200)
	must("POST", "/v1/delivery_tracking/parcel", bearer, `{"tos_id": "`+res["tos_id"].(string)+`", "tracking_number": "NP1",
		"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`, 200)
	// Two events, less than a day apart; each notification is sent as
	// it happens.
	for _, ev := range []struct{ at, body string }{
		{"2026-11-24T07:00:00Z", `"alert": "ALERT_OUT_FOR_DELIVERY"`},
		{"2026-11-24T14:00:00Z", `"step": "STEP_DELIVERED_TO_CONSUMER"`},
	} {
		at, _ := time.Parse(time.RFC3339, ev.at)
		clock.Set(at)
		must("POST", "/v1/delivery_tracking/parcel.event", bearer, `{"tracking_number": "NP1", "time": "`+ev.at+`", `+ev.body+`}`, 200)
		if n, err := svcs.Notify.Dispatch(t.Context()); n != 1 || err != nil {
			t.Fatalf("dispatch = %d, %v", n, err)
		}
	}
	must("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-77",
		"email": "anna@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1, "reason": "too small"}]}`, 201)
	lastEvent := time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		at   time.Time
		want map[string]int
	}{
		// The order's entry (its registration) is due, but its parcel was
		// active since: it moves. The first notification goes.
		{time.Date(2026, 11, 24, 7, 1, 0, 0, time.UTC).Add(30 * 24 * time.Hour), map[string]int{"notify": 1}},
		{lastEvent.Add(30*24*time.Hour - time.Minute), map[string]int{}},
		// The order, the delivered notification and the parcel's state.
		{lastEvent.Add(30*24*time.Hour + time.Minute), map[string]int{"tracking": 1, "notify": 2}},
	} {
		clock.Set(tt.at)
		got, err := svcs.Retention.SweepOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"checkout": 0, "session": 0, "outbox": 0, "tracking": 0, "notify": 0}
		for k, v := range tt.want {
			want[k] = v
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("swept at %s (-want +got):\n%s", tt.at, diff)
		}
	}
	if res := must("GET", "/v1/delivery_tracking/orders?external_id=order-77", bearer, "", 200); len(res["orders"].([]any)) != 0 {
		t.Errorf("orders after the sweep: %v", res)
	}
	if res := must("GET", "/v1/delivery_tracking/notifications?external_id=order-77", bearer, "", 200); len(res["notifications"].([]any)) != 0 {
		t.Errorf("notifications after the sweep: %v", res)
	}
	// The return names the order by its external id: it outlives it.
	res = must("GET", "/returns/merchant/return", map[string]string{"X-Api-Key": "demo-key"}, "", 200)
	if get(res, "totalElements") != float64(1) || get(res, "content", 0, "order", "foreignId") != "order-77" {
		t.Errorf("merchant returns after the sweep: %v", res)
	}
}
