package wiring_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook"
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
		{checkout.DefaultSessionTTL + 2*24*time.Hour - time.Minute, map[string]int{"checkout": 0, "session": 0, "outbox": 0, "tracking": 0, "notify": 0, "webhook": 0, "shipment": 0, "returns": 0, "idempotency": 0, "promise": 0, "test sites": 0}},
		{checkout.DefaultSessionTTL + 2*24*time.Hour + time.Minute, map[string]int{"checkout": 1, "session": 0, "outbox": 0, "tracking": 0, "notify": 0, "webhook": 0, "shipment": 0, "returns": 0, "idempotency": 0, "promise": 0, "test sites": 0}},
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
	days, returnDays := 30, 60
	cfg.Retention = &config.Retention{TrackingDays: &days, ReturnDays: &returnDays}
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
	ret := must("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-77",
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
		want := map[string]int{"checkout": 0, "session": 0, "outbox": 0, "tracking": 0, "notify": 0, "webhook": 0, "shipment": 0, "returns": 0, "idempotency": 0, "promise": 0, "test sites": 0}
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

	// The return goes return_days after its last change (its creation),
	// and then answers as one that never existed: 404 to the merchant,
	// the not-found page to the customer.
	key := map[string]string{"X-Api-Key": "demo-key"}
	id := fmt.Sprint(get(ret, "id"))
	_, statusPath, _ := strings.Cut(get(ret, "statusUrl").(string), "/returns/customer/return/")
	statusPath = "/returns/customer/return/" + statusPath
	unknownCode, _, unknownPage := e.page("/returns/customer/return/rt_never-made", nil)
	unknownStatus, unknown := e.do("GET", "/returns/merchant/return/999999", key, "")
	for _, tt := range []struct {
		at   time.Time
		want int
	}{
		{lastEvent.Add(60*24*time.Hour - time.Minute), 0},
		{lastEvent.Add(60*24*time.Hour + time.Minute), 1},
	} {
		clock.Set(tt.at)
		got, err := svcs.Retention.SweepOnce(t.Context())
		if err != nil || got["returns"] != tt.want {
			t.Fatalf("returns swept at %s: %v (%v), want %d", tt.at, got, err, tt.want)
		}
		if tt.want == 0 {
			if code, _, _ := e.page(statusPath, nil); code != http.StatusOK {
				t.Errorf("status page of a kept return: %d", code)
			}
			must("GET", "/returns/merchant/return/"+id, key, "", 200)
		}
	}
	if status, body := e.do("GET", "/returns/merchant/return/"+id, key, ""); status != http.StatusNotFound || status != unknownStatus ||
		get(body, "status") != get(unknown, "status") {
		t.Errorf("GET of the swept return: %d %v, want %d like an unknown id (%v)", status, body, http.StatusNotFound, unknown)
	}
	if code, _, page := e.page(statusPath, nil); code != unknownCode || page != unknownPage {
		t.Errorf("status page of the swept return: %d, want %d and the page of an unknown token", code, unknownCode)
	}
	if res := must("GET", "/returns/merchant/return", key, "", 200); get(res, "totalElements") != float64(0) {
		t.Errorf("merchant returns after the return was swept: %v", res)
	}
}

// answer204 is a webhook receiver in process that accepts everything.
type answer204 struct{}

func (answer204) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

// TestEveryClassSweptUnderStep: a webhook delivery and a shipment are
// deleted by the background work (Services.Step, which Run runs) after the
// configuration's webhook_delivery_days and shipment_days, not before.
func TestEveryClassSweptUnderStep(t *testing.T) {
	cfg := config.Demo()
	one, ten := 1, 10
	cfg.Retention = &config.Retention{WebhookDeliveryDays: &one, ShipmentDays: &ten}
	cfg.Sites[0].Webhooks = []webhook.Endpoint{{ID: "erp", URL: "https://erp.example.com/hooks", Secrets: []string{"whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))},
		Events: []event.Type{event.TypeParcelBooked}}}
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		Webhooks: webhook.Options{Transport: answer204{}}})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	status, body := e.do("POST", "/v1/som/shipments.createAndBook", bearer, `{"external_id": "ORD-901",
	  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
	  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
	  "parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`)
	if status != 200 {
		t.Fatalf("createAndBook: %d %v", status, body)
	}
	id := body["id"].(string)
	step := func() {
		t.Helper()
		for {
			n, err := svcs.Step(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	step() // the parcel.booked delivery is sent and settles now
	left := func() []string {
		t.Helper()
		var out []string
		if page, err := svcs.Webhooks.Deliveries(t.Context(), "demo-site", "erp", webhook.DeliveriesQuery{}); err != nil {
			t.Fatal(err)
		} else if len(page.Deliveries) > 0 {
			out = append(out, "delivery")
		}
		if _, err := svcs.Shipment.Get(t.Context(), "demo-site", shipment.GetShipmentQuery{ID: id}); err == nil {
			out = append(out, "shipment")
		} else if deliverykit.KindOf(err) != deliverykit.KindNotFound {
			t.Fatal(err)
		}
		return out
	}
	day := 24 * time.Hour
	for _, tt := range []struct {
		after time.Duration
		want  []string
	}{
		{0, []string{"delivery", "shipment"}},
		{day - time.Minute, []string{"delivery", "shipment"}},
		{day, []string{"shipment"}},
		{10*day - time.Minute, []string{"shipment"}},
		{10 * day, nil},
	} {
		clock.Set(start.Add(tt.after))
		step()
		if diff := cmp.Diff(tt.want, left()); diff != "" {
			t.Errorf("left %v after: (-want +got):\n%s", tt.after, diff)
		}
	}
}
