package returns

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
)

// TestHandleParcelBooked: a return's RETURN parcel becomes its label and
// a C2B shipment, once, and its tracking number finds the return; other
// parcels change nothing.
func TestHandleParcelBooked(t *testing.T) {
	changed := func(f func(*event.ParcelBooked)) func(*event.ParcelBooked) { return f }
	tests := []struct {
		name     string
		events   []func(*event.ParcelBooked) // each changes the return parcel's parcel.booked
		want     []Shipment
		wantKind string // of the last event
	}{
		{name: "booked", events: []func(*event.ParcelBooked){nil},
			want: []Shipment{{ID: 1, ForeignID: "shp_CR1", Type: "C2B", Carrier: "North Parcel", TrackingReference: "CR1"}}},
		{name: "delivered twice", events: []func(*event.ParcelBooked){nil, nil},
			want: []Shipment{{ID: 1, ForeignID: "shp_CR1", Type: "C2B", Carrier: "North Parcel", TrackingReference: "CR1"}}},
		{name: "booked again after a cancellation", events: []func(*event.ParcelBooked){nil, changed(func(p *event.ParcelBooked) { p.TrackingNumber = "CR2" })},
			want: []Shipment{{ID: 1, ForeignID: "shp_CR1", Type: "C2B", Carrier: "North Parcel", TrackingReference: "CR1"},
				{ID: 2, ForeignID: "shp_CR1", Type: "C2B", Carrier: "North Parcel", TrackingReference: "CR2"}}},
		{name: "an outbound parcel", events: []func(*event.ParcelBooked){changed(func(p *event.ParcelBooked) { p.Direction = "OUTBOUND" })}, want: []Shipment{}},
		{name: "another shipment's external id", events: []func(*event.ParcelBooked){changed(func(p *event.ParcelBooked) { p.ShipmentExternalID = "return-01" })}, want: []Shipment{}},
		{name: "an unknown return", events: []func(*event.ParcelBooked){changed(func(p *event.ParcelBooked) { p.ShipmentExternalID = "return-9" })}, want: []Shipment{}},
		{name: "another order's", events: []func(*event.ParcelBooked){changed(func(p *event.ParcelBooked) { p.OrderExternalID = "B-1" })}, want: []Shipment{}},
		{name: "a tracking number of another return", events: []func(*event.ParcelBooked){changed(func(p *event.ParcelBooked) { p.TrackingNumber = "TAKEN" })},
			want: []Shipment{}, wantKind: "invalid argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSendBackFixture(t, "np-return")
			in := orderInput("A-1")
			in.DeliveryAddress = testAddress
			if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
				t.Fatal(err)
			}
			f.importOrder(t, "site-a", "B-1")
			r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
			other := f.createReturn(t, "site-a", "B-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
			if _, err := f.svc.MarkInTransit(f.ctx, "site-a", other.ID, ShipmentInput{Carrier: "own", TrackingReference: "TAKEN"}); err != nil {
				t.Fatal(err)
			}
			var err error
			for _, change := range tc.events {
				ev := booked(t, "site-a", r.ID, "A-1", "CR1")
				if change != nil {
					p, _ := event.Decode[event.ParcelBooked](ev)
					change(&p)
					ev, _ = event.New(ev.ID, ev.Site, ev.Subject, ev.Time, p)
				}
				err = f.svc.HandleParcelBooked(f.ctx, ev)
			}
			if kindOf(err) != cmpOr(tc.wantKind, "ok") {
				t.Errorf("err %v, want %s", err, cmpOr(tc.wantKind, "ok"))
			}
			got, err := f.svc.GetReturn(f.ctx, "site-a", r.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.Shipments); diff != "" {
				t.Errorf("shipments (-want +got):\n%s", diff)
			}
			order, err := f.svc.GetOrder(f.ctx, "site-a", "A-1", IDForeign)
			if err != nil || cmp.Diff(tc.want, order.Shipments) != "" {
				t.Errorf("the order's shipments %+v, %v; want the return's", order.Shipments, err)
			}
			// The last tracking number finds the return.
			if n := len(tc.want); n > 0 {
				res, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{TrackingReference: tc.want[n-1].TrackingReference,
					Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}}})
				if err != nil || len(res.Returns) != 1 || res.Returns[0].ID != r.ID || res.Returns[0].Status != StatusAwaitingRefund {
					t.Errorf("report by trackingReference: %+v, %v", res.Returns, err)
				}
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestHandleParcelChanged: the return parcel's carrier steps move its
// return to IN_TRANSIT and its items to AWAITING_INSPECTION, with their
// events, once; other parcels' steps and later steps change nothing.
func TestHandleParcelChanged(t *testing.T) {
	at := time.Date(2026, 11, 24, 8, 30, 0, 0, time.UTC)
	type want struct {
		status     ReturnStatus
		items      []ItemStatus
		arrived    *Timestamp
		eventTypes []event.Type // after return.created
	}
	arrived := Timestamp(at)
	tests := []struct {
		name  string
		steps []string // of parcel CR1 (the return's); "other:" prefix: another parcel
		want  want
	}{
		{"submitted", []string{"STEP_SUBMITTED_TO_CARRIER"},
			want{StatusInTransit, []ItemStatus{ItemAwaitingReturn}, nil, []event.Type{event.TypeReturnStatusChanged}}},
		{"submitted, on route, again", []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_SUBMITTED_TO_CARRIER"},
			want{StatusInTransit, []ItemStatus{ItemAwaitingReturn}, nil, []event.Type{event.TypeReturnStatusChanged}}},
		{"delivered to the merchant", []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_DELIVERED_TO_MERCHANT", "STEP_DELIVERED_TO_MERCHANT"},
			want{StatusInTransit, []ItemStatus{ItemAwaitingInspection}, &arrived, []event.Type{event.TypeReturnStatusChanged, event.TypeReturnItemsReceived}}},
		{"delivered without a step before", []string{"STEP_DELIVERED_TO_MERCHANT"},
			want{StatusInTransit, []ItemStatus{ItemAwaitingInspection}, &arrived, []event.Type{event.TypeReturnStatusChanged, event.TypeReturnItemsReceived}}},
		{"steps that say nothing of the carrier having it", []string{"STEP_PREPARED_BY_MERCHANT", "STEP_SENT_BACK"},
			want{StatusAwaitingReturn, []ItemStatus{ItemAwaitingReturn}, nil, nil}},
		{"another parcel", []string{"other:STEP_SUBMITTED_TO_CARRIER", "other:STEP_DELIVERED_TO_MERCHANT"},
			want{StatusAwaitingReturn, []ItemStatus{ItemAwaitingReturn}, nil, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSendBackFixture(t, "np-return")
			in := orderInput("A-1")
			in.DeliveryAddress = testAddress
			if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
				t.Fatal(err)
			}
			r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
			if err := f.svc.HandleParcelBooked(f.ctx, booked(t, "site-a", r.ID, "A-1", "CR1")); err != nil {
				t.Fatal(err)
			}
			for _, step := range tc.steps {
				tn := "CR1"
				if s, ok := strings.CutPrefix(step, "other:"); ok {
					tn, step = "CP9", s
				}
				ev, err := event.New("evt_x", "site-a", tn, at, event.ParcelChanged{TosID: "tos_1", ExternalID: "A-1", TrackingNumber: tn, Step: step, Time: at})
				if err != nil {
					t.Fatal(err)
				}
				if err := f.svc.HandleParcelChanged(f.ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
			ret, err := f.svc.GetReturn(f.ctx, "site-a", r.ID)
			if err != nil {
				t.Fatal(err)
			}
			var got want
			got.status = ret.Status
			for _, it := range ret.Items {
				got.items = append(got.items, it.Status)
				got.arrived = it.ReturnedToWarehouseAt
			}
			evs, err := outboxPending(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if ev.Type != event.TypeReturnCreated && ev.Type != event.TypeReturnShipmentRequested {
					got.eventTypes = append(got.eventTypes, ev.Type)
				}
				if ev.Type == event.TypeReturnItemsReceived {
					p, err := event.Decode[event.ReturnItemsReceived](ev)
					mustDecode(t, err)
					if it := p.Items[0]; it.Status != "AWAITING_INSPECTION" || it.ReceivedAt == nil || !it.ReceivedAt.Equal(at) {
						t.Errorf("return.items_received item %+v, want AWAITING_INSPECTION received at %v", it, at)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{}), cmp.Comparer(func(a, b Timestamp) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func outboxPending(f *sendBackFixture) ([]event.Event, error) {
	return outbox.Pending(f.ctx, f.store, 1000)
}
