package wiring_test

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// checkoutOrder completes a checkout of order id for the customer, over
// HTTP; the customer's address is in Stockholm.
func checkoutOrder(t *testing.T, e env, id string) {
	t.Helper()
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	status, body := e.do("POST", "/v1/siw/session.create", bearer, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "`+id+`", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`)
	if status != 200 {
		t.Fatalf("session.create: %d %v", status, body)
	}
	status, body = e.do("POST", "/v1/siw/session.complete", bearer, `{"id": "`+get(body, "session", "id").(string)+`", "customer": {"email": "lukasz@example.com",
		"address": {"name": "Łukasz Żółć", "street": "Drottninggatan", "street_number": "5", "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
	if status != 200 {
		t.Fatalf("session.complete: %d %v", status, body)
	}
}

// TestReturnShipmentDrivesReturn walks a return through its parcel, over
// HTTP, with the carrier simulator: the return asks for its parcel, which
// is booked (through the outbox) before the customer's request is
// answered, so the status page shows its label and the return and order
// list it in shipments[]; the simulator carries it, and the steps it
// reports move the return to IN_TRANSIT when the carrier has the parcel
// and its items to AWAITING_INSPECTION when the merchant has it; the
// merchant then reports the items by the parcel's trackingReference.
func TestReturnShipmentDrivesReturn(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test", Logger: quiet,
		Simulate: &carrier.SimulatorOptions{Rates: &carrier.Rates{}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	key := map[string]string{"X-Api-Key": "demo-key"}
	checkoutOrder(t, e, "order-88")
	// The outbound parcel travels first, so that only the return parcel
	// is left for the simulator below.
	runSimulator(t, svcs, clock, nil)

	status, body := e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-88",
		"email": "lukasz@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1}]}`)
	if status != 201 {
		t.Fatalf("customer return: %d %v", status, body)
	}
	id := strconv.FormatFloat(body["id"].(float64), 'f', -1, 64)
	pagePath := strings.TrimPrefix(body["statusUrl"].(string), "http://shop.test")

	// Booked by the time the customer's request was answered.
	sh, err := svcs.Shipment.Get(ctx, "demo-site", shipment.GetShipmentQuery{ExternalID: "return-" + id})
	if err != nil {
		t.Fatal(err)
	}
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber
	wantShipments := []any{map[string]any{"id": 1.0, "foreignId": sh.ID, "type": "C2B", "carrier": "North Parcel", "trackingReference": tn}}
	status, body = e.do("GET", "/returns/merchant/return/"+id, key, "")
	if status != 200 || body["status"] != "AWAITING_RETURN" {
		t.Fatalf("return: %d %v", status, body)
	}
	if diff := cmp.Diff(wantShipments, body["shipments"]); diff != "" {
		t.Errorf("return shipments (-want +got):\n%s", diff)
	}
	status, body = e.do("GET", "/returns/merchant/order/order-88?idType=FOREIGN_ID", key, "")
	if diff := cmp.Diff(wantShipments, body["shipments"]); status != 200 || diff != "" {
		t.Errorf("order shipments %d (-want +got):\n%s", status, diff)
	}
	code, _, page := e.page(pagePath, nil)
	if m := trackingNum.FindStringSubmatch(page); code != 200 || m == nil || m[1] != tn || !strings.Contains(page, `href="`+pagePath+`/label.pdf"`) {
		t.Fatalf("status page %d does not show the label of %s:\n%s", code, tn, page)
	}
	if code, ctype, pdf := e.page(pagePath+"/label.pdf", nil); code != 200 || ctype != "application/pdf" || !strings.HasPrefix(pdf, "%PDF") {
		t.Errorf("label: %d %s", code, ctype)
	}

	// The carrier carries it; what the return shows after each step.
	type seen struct{ Step, Status, Item, ReturnedAt string }
	var got []seen
	route, err := svcs.Simulator.Route(ctx, tn)
	if err != nil {
		t.Fatal(err)
	}
	stepAt := map[time.Time]string{}
	for _, s := range route.Steps {
		stepAt[s.At] = s.Step
	}
	runSimulator(t, svcs, clock, func(at time.Time) {
		step := stepAt[at]
		_, body := e.do("GET", "/returns/merchant/return/"+id, key, "")
		returned, _ := get(body, "items", 0, "returnedToWarehouseAt").(string)
		got = append(got, seen{step, body["status"].(string), get(body, "items", 0, "status").(string), returned})
	})
	var want []seen
	for _, s := range route.Steps {
		switch s.Step {
		case "STEP_DELIVERED_TO_MERCHANT":
			want = append(want, seen{s.Step, "IN_TRANSIT", "AWAITING_INSPECTION", returns.Timestamp(s.At).String()})
		default:
			want = append(want, seen{s.Step, "IN_TRANSIT", "AWAITING_RETURN", ""})
		}
	}
	if len(want) == 0 || want[0].Step != "STEP_SUBMITTED_TO_CARRIER" || want[len(want)-1].Step != "STEP_DELIVERED_TO_MERCHANT" {
		t.Fatalf("route %+v", route.Steps)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the return after each carrier step (-want +got):\n%s", diff)
	}

	// The merchant inspects the items, finding the return by the parcel.
	status, body = e.do("POST", "/returns/merchant/items/returned", key, `{"trackingReference": "`+tn+`", "items": [{"sku": "tent", "quantity": 1, "approved": true}]}`)
	if status != 200 || get(body, "returns", 0, "id") != body["returns"].([]any)[0].(map[string]any)["id"] ||
		strconv.FormatFloat(get(body, "returns", 0, "id").(float64), 'f', -1, 64) != id || get(body, "returns", 0, "status") != "AWAITING_REFUND" ||
		get(body, "returns", 0, "items", 0, "status") != "RETURNED" {
		t.Errorf("items/returned by trackingReference: %d %v", status, body)
	}
}

// runSimulator moves every simulated parcel to its end, step by step;
// after each time steps were due it calls after (when set) with the time.
func runSimulator(t *testing.T, svcs *wiring.Services, clock *deliverykit.ManualClock, after func(at time.Time)) {
	t.Helper()
	ctx := t.Context()
	for {
		at, ok, err := svcs.Simulator.NextDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		clock.Set(at)
		if _, err := svcs.Simulator.Dispatch(ctx); err != nil {
			t.Fatal(err)
		}
		if after != nil {
			after(at)
		}
	}
}

// flakyCarrier is the demo carrier, unreachable for its first fail
// bookings.
type flakyCarrier struct {
	*carrier.Demo
	mu    sync.Mutex
	fail  int
	calls int
}

func (c *flakyCarrier) Book(ctx context.Context, req shipment.BookingRequest) (shipment.Booking, error) {
	c.mu.Lock()
	c.calls++
	failing := c.calls <= c.fail
	c.mu.Unlock()
	if failing {
		return shipment.Booking{}, deliverykit.E(deliverykit.KindUnavailable, "carrier unreachable")
	}
	return c.Demo.Book(ctx, req)
}

func (c *flakyCarrier) booked() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// TestReturnShipmentRetried: a return whose parcel cannot be booked (the
// carrier is down) is created all the same; its page says the label is
// being prepared, and the outbox retries the booking until the carrier
// answers: then the return has its one parcel, the page its label, and no
// event is left pending or dead.
func TestReturnShipmentRetried(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	store := memory.New()
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flaky := &flakyCarrier{Demo: demo, fail: 2}
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test", Logger: quiet,
		Carriers: map[string]shipment.Carrier{"north-parcel": flaky, "swift-courier": demo}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	key := map[string]string{"X-Api-Key": "demo-key"}
	checkoutOrder(t, e, "order-88")
	status, body := e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-88",
		"email": "lukasz@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1}]}`)
	if status != 201 {
		t.Fatalf("customer return: %d %v", status, body)
	}
	id := strconv.FormatFloat(body["id"].(float64), 'f', -1, 64)
	pagePath := strings.TrimPrefix(body["statusUrl"].(string), "http://shop.test")

	type state struct {
		Calls     int
		Shipments int
		Pending   bool // the page says the label is being prepared
		Label     string
		Events    int // pending in the outbox
	}
	look := func() state {
		t.Helper()
		_, body := e.do("GET", "/returns/merchant/return/"+id, key, "")
		_, _, page := e.page(pagePath, nil)
		st := state{Calls: flaky.booked(), Shipments: len(body["shipments"].([]any)), Pending: strings.Contains(page, `id="label-pending"`)}
		if m := trackingNum.FindStringSubmatch(page); m != nil {
			st.Label = m[1]
		}
		stats, err := svcs.Outbox.Stats(ctx, 100)
		if err != nil || stats.Dead != 0 {
			t.Fatalf("outbox %+v, %v", stats, err)
		}
		st.Events = stats.Pending
		return st
	}
	var got []state
	got = append(got, look())
	for range 2 {
		clock.Advance(time.Hour) // past any backoff
		if _, err := svcs.Outbox.Dispatch(ctx); err != nil {
			t.Fatal(err)
		}
		got = append(got, look())
	}
	sh, err := svcs.Shipment.Get(ctx, "demo-site", shipment.GetShipmentQuery{ExternalID: "return-" + id})
	if err != nil {
		t.Fatal(err)
	}
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber
	want := []state{
		{Calls: 1, Pending: true, Events: 1}, // failed right after the commit
		{Calls: 2, Pending: true, Events: 1}, // failed again
		{Calls: 3, Shipments: 1, Label: tn},  // booked: nothing left to deliver
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after each delivery (-want +got):\n%s", diff)
	}
	// Later rounds book nothing more.
	clock.Advance(time.Hour)
	if _, err := svcs.Outbox.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	if st := look(); st.Calls != 3 || st.Shipments != 1 {
		t.Errorf("after another round: %+v", st)
	}
}
