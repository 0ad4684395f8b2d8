package wiring_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestSessionOrder drives a delivery session to completion, its parcel
// through delivered and a return with a refund, and reads the session's
// order in the Agentic Commerce Protocol's form over HTTP: the parcel's
// journey as events, the return and the refund as adjustments, valid
// against the protocol's published schema.
func TestSessionOrder(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test/", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	ctx := t.Context()
	key := map[string]string{"authorization": "demo-key"}
	bearer := map[string]string{"Authorization": demoBearer["Authorization"]}

	status, body := e.do("POST", "/delivery/v1/sessions", key, `{
	  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
	  "deliveries": [{"id": "d1", "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "price": "45000"}],
	    "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T09:00:00Z"}}],
	    "recipient_contact": {"name": "Anna Svensson", "email": "anna@example.com",
	      "address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}}]}`)
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	name := body["name"].(string)
	order := func() (int, map[string]any) {
		return e.do("GET", "/delivery/v1/"+name+":order?acp_version=2026-04-17", key, "")
	}
	if status, body := order(); status != 400 {
		t.Errorf("order of an ACTIVE session: %d %v, want 400", status, body)
	}
	status, body = e.do("POST", "/delivery/v1/"+name+":complete", key,
		`{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "addon_ids": ["carry-in"], "external_id": "order-77"}]}`)
	if status != 200 {
		t.Fatalf("complete: %d %v", status, body)
	}
	tos := get(body, "session", "deliveries", 0, "tos_id").(string)
	// The completion reaches tracking and returns through the outbox.
	if _, err := svcs.Outbox.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	status, body = order()
	if status != 200 || get(body, "fulfillments", 0, "status") != "pending" || get(body, "status") != "confirmed" {
		t.Fatalf("order before a parcel: %d %v", status, body)
	}

	if status, body := e.do("POST", "/v1/delivery_tracking/parcel", bearer, `{"tos_id": "`+tos+`", "tracking_number": "NP77",
		"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`); status != 200 {
		t.Fatalf("parcel: %d %v", status, body)
	}
	for _, ev := range []string{
		`"time": "2026-11-23T15:00:00Z", "step": "STEP_SUBMITTED_TO_CARRIER"`,
		`"time": "2026-11-24T06:00:00Z", "step": "STEP_ON_ROUTE"`,
		`"time": "2026-11-24T07:00:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"`,
		`"time": "2026-11-24T14:00:00Z", "step": "STEP_DELIVERED_TO_CONSUMER"`,
	} {
		if status, body := e.do("POST", "/v1/delivery_tracking/parcel.event", bearer, `{"tracking_number": "NP77", `+ev+`}`); status != 200 {
			t.Fatalf("parcel.event %s: %d %v", ev, status, body)
		}
	}
	clock.Set(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	if _, err := svcs.Outbox.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	ret, err := svcs.Returns.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "order-77", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "1", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	if _, err := svcs.Returns.ReportReturnedItems(ctx, "demo-site", returns.ReturnedItemsInput{ReturnID: ret.ID,
		Items: []returns.ReturnedItemInput{{SKU: "tent", Quantity: 1, Approved: true}}}); err != nil {
		t.Fatal(err)
	}
	// The merchant pays the refund out.
	r, err := svcs.Returns.GetReturn(ctx, "demo-site", ret.ID)
	if err != nil || len(r.RefundTransactions) != 1 {
		t.Fatalf("return: %v %+v", err, r)
	}
	if _, err := svcs.Returns.ReportRefundSucceeded(ctx, "demo-site", r.RefundTransactions[0].ID, returns.RefundReport{ForeignID: "pay-77"}); err != nil {
		t.Fatal(err)
	}

	status, body = order()
	if status != 200 {
		t.Fatalf("order: %d %v", status, body)
	}
	validOrder(t, body)
	type summary struct {
		Status, Number, Fulfillment, Tracking string
		Events                                []any
		Quantity                              any
		Adjustments                           []string
		Refund, Refunded                      any
	}
	got := summary{Status: get(body, "status").(string), Number: get(body, "order_number").(string),
		Fulfillment: get(body, "fulfillments", 0, "status").(string), Tracking: get(body, "fulfillments", 0, "tracking_number").(string),
		Quantity: get(body, "line_items", 0, "quantity"), Refunded: get(body, "totals", 3, "amount")}
	for _, ev := range get(body, "fulfillments", 0, "events").([]any) {
		got.Events = append(got.Events, ev.(map[string]any)["type"])
	}
	for _, a := range get(body, "adjustments").([]any) {
		am := a.(map[string]any)
		got.Adjustments = append(got.Adjustments, am["type"].(string)+" "+am["status"].(string))
		if am["type"] == "refund" {
			got.Refund = am["amount"]
		}
	}
	want := summary{Status: "completed", Number: "order-77", Fulfillment: "delivered", Tracking: "NP77",
		Events:      []any{"shipped", "in_transit", "out_for_delivery", "delivered"},
		Quantity:    map[string]any{"ordered": 1.0, "current": 0.0, "fulfilled": 1.0},
		Adjustments: []string{"return completed", "refund completed"},
		// The tent and the shipping (the demo policy refunds it), less
		// the return cost.
		Refund: 45000.0 + 27800 - 4900, Refunded: 45000.0 + 27800 - 4900}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// validOrder checks an order against the protocol's published schema,
// read from the shared data next to the repository; without it the check
// is skipped.
func validOrder(t *testing.T, order map[string]any) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "shared", "data", "acp", "2026-04-17", "schema.agentic_checkout.json"))
	if err != nil {
		t.Logf("the protocol's schema is not here, the order is not validated: %v", err)
		return
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("acp.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("acp.json#/$defs/Order")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(order)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("the order is not a valid 2026-04-17 Order: %v", err)
	}
}
