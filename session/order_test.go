package session_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// fakeOrders answers every delivery with the facts of its external id.
type fakeOrders map[string]*session.DeliveryFacts

func (f fakeOrders) DeliveryOrder(_ context.Context, _ string, ref session.OrderRef) (*session.DeliveryFacts, error) {
	return f[ref.ExternalID], nil
}

// A delivered parcel and a return refunded: the Order shows the journey
// as events, the line as returned, the return and the refund as
// adjustments; it is valid against the protocol's schema.
func TestOrder(t *testing.T) {
	at := func(day, hour int) time.Time { return time.Date(2026, 11, day, hour, 0, 0, 0, time.UTC) }
	facts := fakeOrders{"order-1": {
		PageURL: "https://track.example/t/abc",
		Parcels: []session.ParcelFacts{{
			TrackingNumber: "NP123", Carrier: "North Parcel", TrackingURL: "https://north-parcel.example/track?id=NP123",
			Earliest: at(20, 8), Latest: at(21, 18),
			Steps: []session.Happened{{"STEP_CONFIRMED_BY_MERCHANT", at(19, 9)}, {"STEP_SUBMITTED_TO_CARRIER", at(19, 15)},
				{"STEP_ON_ROUTE", at(20, 6)}, {"STEP_DELIVERED_TO_CONSUMER", at(20, 14)}, {"STEP_RETURN_REQUESTED", at(22, 9)}},
			Alerts: []session.Happened{{"ALERT_OUT_FOR_DELIVERY", at(20, 8)}, {"ALERT_DELIVERY_DELAYED", at(20, 7)}},
		}},
		Adjustments: []session.AdjustmentFacts{
			{ID: "refund-1", Type: "refund", Status: "completed", At: at(25, 10), Amount: 45000, Currency: "SEK"},
			{ID: "return-1", Type: "return", Status: "completed", At: at(22, 9), Reason: "size", Items: map[string]int{"tent": 1}},
		},
		Returned: map[string]int{"tent": 1},
	}}
	clock := deliverykit.NewManualClock(testNow)
	svc, err := session.New(memory.New(), session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{}, OrderSource: facts})
	if err != nil {
		t.Fatal(err)
	}
	s, err := svc.Create(t.Context(), "demo-site", input(t, named))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Order(t.Context(), "demo-site", s.Name, ""); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("order of an ACTIVE session: %v, want FailedPrecondition", err)
	}
	if _, err := svc.Complete(t.Context(), "demo-site", s.Name, completeReq(
		session.DeliveryChoice{DeliveryID: "d1", OptionID: "home/north-parcel-home", AddonIDs: []string{"carry-in"}, ExternalID: "order-1"})); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Order(t.Context(), "demo-site", s.Name, session.ACPVersionCurrent)
	if err != nil {
		t.Fatal(err)
	}
	validACPDef(t, "Order", got)
	checkGolden(t, filepath.Join("testdata", "agentic", session.ACPVersionCurrent, "order.json"), got)

	type summary struct {
		Status, Fulfillment string
		Events              []string
		Quantity            session.ACPOrderQuantity
		Adjustments         []string
		Refunded            int64
	}
	sum := summary{Status: got.Status, Fulfillment: got.Fulfillments[0].Status, Quantity: got.LineItems[0].Quantity, Refunded: got.Totals[3].Amount}
	for _, e := range got.Fulfillments[0].Events {
		sum.Events = append(sum.Events, e.Type)
	}
	for _, a := range got.Adjustments {
		sum.Adjustments = append(sum.Adjustments, a.Type+" "+a.Status)
	}
	want := summary{Status: "completed", Fulfillment: "delivered",
		Events:      []string{"processing", "shipped", "in_transit", "out_for_delivery", "delivered"},
		Quantity:    session.ACPOrderQuantity{Ordered: 1, Current: 0, Fulfilled: 1},
		Adjustments: []string{"return completed", "refund completed"}, Refunded: 45000}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}

	if _, err := svc.Order(t.Context(), "demo-site", s.Name, session.ACPVersion); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("order in %s: %v, want InvalidArgument", session.ACPVersion, err)
	}
	facts["order-1"] = &session.DeliveryFacts{} // not recorded yet
	if _, err := svc.Order(t.Context(), "demo-site", s.Name, ""); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("order not recorded yet: %v, want FailedPrecondition", err)
	}
	e := newEnv(t) // no order source
	s2, _ := e.svc.Create(t.Context(), "demo-site", input(t))
	if _, err := e.svc.Order(t.Context(), "demo-site", s2.Name, ""); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("order without a source: %v, want FailedPrecondition", err)
	}
}
