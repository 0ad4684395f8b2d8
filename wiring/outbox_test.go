package wiring_test

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
)

type outboxEnv struct {
	env
	svcs  *wiring.Services
	store *memory.Store
	clock *deliverykit.ManualClock
	// seen are the events delivered, in order, copied by a spy consumer.
	mu   sync.Mutex
	seen []event.Event
}

func newOutboxEnv(t *testing.T) *outboxEnv {
	t.Helper()
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	store := memory.New()
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test",
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: notify.NewLogSender(quiet)}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e := &outboxEnv{env: env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}, svcs: svcs, store: store, clock: clock}
	for _, typ := range []event.Type{event.TypeOrderCompleted, event.TypeParcelBooked, event.TypeParcelChanged} {
		svcs.Outbox.Handle(typ, "spy", func(_ context.Context, ev event.Event) error {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.seen = append(e.seen, ev)
			return nil
		})
	}
	return e
}

var bearer = map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}

func (e *outboxEnv) checkout(externalID string) (int, map[string]any) {
	e.t.Helper()
	status, body := e.do("POST", "/v1/siw/session.create", bearer, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "cart-`+externalID+`", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]}}`)
	if status != 200 {
		e.t.Fatalf("session.create: %d %v", status, body)
	}
	id := get(body, "session", "id").(string)
	return e.do("POST", "/v1/siw/session.complete", bearer, `{"id": "`+id+`", "external_id": "`+externalID+`",
		"customer": {"email": "anna@example.com", "address": {"name": "Anna Svensson", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
}

// TestDuplicateOrderNumber: a completion whose order number is already an
// order's answers 409 naming the field, before anything is written: the
// session stays open and no effect is queued.
func TestDuplicateOrderNumber(t *testing.T) {
	e := newOutboxEnv(t)
	if status, body := e.checkout("web-1"); status != 200 {
		t.Fatalf("first completion: %d %v", status, body)
	}
	status, body := e.checkout("web-1")
	if status != 409 || get(body, "details", 0, "field") != "external_id" {
		t.Errorf("second completion with web-1: %d %v, want 409 naming external_id", status, body)
	}

	// The delivery session: a choice whose external id is taken.
	key := map[string]string{"authorization": "demo-key"}
	status, body = e.do("POST", "/delivery/v1/sessions", key, `{
	  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000"},
	  "deliveries": [{"id": "d1", "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "price": "45000"}],
	    "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
	    "recipient_contact": {"address": {"country_code": "SE", "postal_code": "111 57", "city": "Stockholm"}, "email": "anna@example.com"}}]}`)
	if status != 200 {
		t.Fatalf("delivery session: %d %v", status, body)
	}
	name := body["name"].(string)
	option := get(body, "deliveries", 0, "delivery_categories", 0, "delivery_options", 0, "id").(string)
	status, body = e.do("POST", "/delivery/v1/"+name+":complete", key, `{"delivery_choices": [{"delivery_id": "d1", "option_id": "`+option+`", "external_id": "web-1"}]}`)
	if status != 409 || get(body, "details", 0, "fieldViolations", 0, "field") != "delivery_choices[0].external_id" {
		t.Errorf("delivery session completion with web-1: %d %v, want 409 naming the choice's external_id", status, body)
	}
	status, body = e.do("GET", "/delivery/v1/"+name, key, "")
	if status != 200 || body["state"] == "COMPLETED" {
		t.Errorf("after the refused completion: %d state %v", status, body["state"])
	}
	if n := len(e.seen); n != 1 {
		t.Errorf("%d events delivered, want the first completion's only", n)
	}
	pending, err := outbox.Pending(t.Context(), e.store, 10)
	if err != nil || len(pending) != 0 {
		t.Errorf("pending events %v, %v", pending, err)
	}
}

// TestEveryEffectOnce delivers every event of a merchant's day a second
// time, straight to the consumers wiring registered: nothing changes, as a
// redelivery after a crash must change nothing.
func TestEveryEffectOnce(t *testing.T) {
	e := newOutboxEnv(t)
	if status, body := e.checkout("web-7"); status != 200 {
		t.Fatalf("complete: %d %v", status, body)
	}
	status, body := e.do("POST", "/v1/som/shipments.createAndBook", bearer, `{"external_id": "web-7",
	  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
	  "receiver": {"name": "Anna Svensson", "email": "anna@example.com", "address": {"address_lines": ["Sergels torg 1"], "postal_code": "111 57", "city": "Stockholm", "country": "SE"}},
	  "parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`)
	if status != 200 {
		t.Fatalf("createAndBook: %d %v", status, body)
	}
	tn := get(body, "parcels", 0, "deliveries", 0, "tracking_number").(string)
	link := get(body, "parcels", 0, "deliveries", 0, "tracking_link").(string)
	for _, ev := range []string{`"time": "2026-11-24T07:00:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"`, `"time": "2026-11-24T14:00:00Z", "step": "STEP_DELIVERED_TO_CONSUMER"`} {
		if status, body := e.do("POST", "/v1/delivery_tracking/parcel.event", bearer, `{"tracking_number": "`+tn+`", `+ev+`}`); status != 200 {
			t.Fatalf("parcel.event: %d %v", status, body)
		}
	}
	// The booked delivery's link, handed out before tracking knew the
	// parcel, opens the order's page.
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, httptest.NewRequest("GET", strings.TrimPrefix(link, "http://shop.test"), nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), tn) {
		t.Errorf("tracking link %s: %d", link, rec.Code)
	}

	before := e.snapshot(t)
	var types []event.Type
	for _, ev := range e.seen {
		types = append(types, ev.Type)
	}
	want := []event.Type{event.TypeOrderCompleted, event.TypeParcelBooked, event.TypeParcelChanged, event.TypeParcelChanged}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	handlers := map[event.Type][]outbox.Handler{
		event.TypeOrderCompleted: {e.svcs.Tracking.HandleOrderCompleted, e.svcs.Returns.HandleOrderCompleted},
		event.TypeParcelBooked:   {e.svcs.Tracking.HandleParcelBooked},
		event.TypeParcelChanged:  {e.svcs.Notify.HandleParcelChanged},
	}
	for _, ev := range e.seen {
		for _, h := range handlers[ev.Type] {
			if err := h(t.Context(), ev); err != nil {
				t.Errorf("redelivering %s: %v", ev.Type, err)
			}
		}
	}
	if diff := cmp.Diff(before, e.snapshot(t)); diff != "" {
		t.Errorf("a second delivery changed state (-first +second):\n%s", diff)
	}
}

// state is what the effects made: tracking orders and parcels,
// notifications, returnable orders.
type state struct {
	Orders        *tracking.GetTrackingOrdersResponse
	Parcels       *tracking.GetTrackingParcelsResponse
	Notifications *notify.ListResponse
	Returnable    returns.Page[returns.OrderSummary]
}

func (e *outboxEnv) snapshot(t *testing.T) state {
	t.Helper()
	ctx := t.Context()
	var s state
	var err error
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.Orders, err = e.svcs.Tracking.Orders(ctx, "demo-site", tracking.OrdersQuery{ExternalID: "web-7"})
	must(err)
	s.Parcels, err = e.svcs.Tracking.Parcels(ctx, "demo-site", tracking.ParcelsQuery{ExternalID: "web-7"})
	must(err)
	s.Notifications, err = e.svcs.Notify.List(ctx, "demo-site", "web-7")
	must(err)
	s.Returnable, err = e.svcs.Returns.ListOrders(ctx, "demo-site", returns.PageRequest{})
	must(err)
	if len(s.Orders.Orders) != 1 || len(s.Parcels.Parcels) != 1 || len(s.Notifications.Notifications) == 0 || len(s.Returnable.Content) != 1 {
		t.Fatalf("effects missing: %d orders, %d parcels, %d notifications, %d returnable orders",
			len(s.Orders.Orders), len(s.Parcels.Parcels), len(s.Notifications.Notifications), len(s.Returnable.Content))
	}
	return s
}

// TestDeadEvents: an effect that can never be applied (an amount too
// large for the tracking order's 32-bit fields) is dead at once, listed
// for its site with the consumers that did apply it, and can be retried.
func TestDeadEvents(t *testing.T) {
	e := newOutboxEnv(t)
	status, body := e.do("POST", "/v1/siw/session.create", bearer, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "big-1", "total_value": 3000000000, "items": [{"sku": "yacht", "name": "Yacht", "quantity": 1, "price": 3000000000}]}}`)
	if status != 200 {
		t.Fatalf("session.create: %d %v", status, body)
	}
	id := get(body, "session", "id").(string)
	status, body = e.do("POST", "/v1/siw/session.complete", bearer, `{"id": "`+id+`",
		"customer": {"email": "anna@example.com", "address": {"name": "Anna", "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
	if status != 200 {
		t.Fatalf("the completion is the customer's, whatever its effects: %d %v", status, body)
	}
	tos := body["tos_id"].(string)
	status, body = e.do("GET", "/v1/webhooks/events/dead", bearer, "")
	if status != 200 {
		t.Fatalf("dead events: %d %v", status, body)
	}
	type dead struct {
		Type, Subject string
		Done          []any
		Attempts      float64
		Error         bool
	}
	var got []dead
	for _, d := range get(body, "events").([]any) {
		got = append(got, dead{get(d, "event", "type").(string), get(d, "event", "subject").(string),
			get(d, "done").([]any), get(d, "attempts").(float64), strings.Contains(get(d, "last_error").(string), "32-bit")})
	}
	want := []dead{{"order.completed", tos, []any{"returns", "promise", "webhook", "spy"}, 1, true}} // spy: the test's own consumer // spy: the test's own consumer
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dead events (-want +got):\n%s", diff)
	}
	evID := get(body, "events", 0, "event", "id").(string)
	other := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key-2"))}
	if status, body := e.do("GET", "/v1/webhooks/events/dead", other, ""); status != 200 || len(get(body, "events").([]any)) != 0 {
		t.Errorf("another site sees the dead event: %d %v", status, body)
	}
	if status, _ := e.do("POST", "/v1/webhooks/events/dead/"+evID+":retry", other, ""); status != 404 {
		t.Errorf("another site retried the dead event: %d", status)
	}
	if status, body := e.do("POST", "/v1/webhooks/events/dead/"+evID+":retry", bearer, ""); status != 200 || body["id"] != evID {
		t.Errorf("retry: %d %v", status, body)
	}
	// Delivered again to tracking only, it fails again: dead again.
	if _, err := e.svcs.Outbox.Dispatch(t.Context()); err != nil {
		t.Fatal(err)
	}
	status, body = e.do("GET", "/v1/webhooks/events/dead", bearer, "")
	if status != 200 || len(get(body, "events").([]any)) != 1 || get(body, "events", 0, "event", "id") != evID {
		t.Errorf("after the retry: %d %v", status, body)
	}
}
