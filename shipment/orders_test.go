package shipment_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// staticOrders are orders by site and tos_id.
type staticOrders map[string]shipment.Order

func (m staticOrders) Order(_ context.Context, site, tosID string) (shipment.Order, error) {
	o, ok := m[site+"/"+tosID]
	if !ok {
		return shipment.Order{}, deliverykit.E(deliverykit.KindNotFound, "tracking order not found")
	}
	return o, nil
}

// ordersFixture is a service whose create requests may name the orders.
func ordersFixture(t *testing.T, orders shipment.Orders) *fixture {
	t.Helper()
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: store, carrier: &spyCarrier{Demo: demo}, clock: deliverykit.NewManualClock(t0)}
	f.svc, err = shipment.New(store, shipment.Options{Products: testProducts, Carriers: map[string]shipment.Carrier{"north": f.carrier},
		Orders: orders, Clock: f.clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A shipment created with a tos_id takes what the request lacks from the
// order (receiver, sender, shipping method, reference, pickup point, the
// line items of a one-parcel shipment); what the request says wins; the
// booked parcels name the order.
func TestCreateFromOrder(t *testing.T) {
	items := []shipment.LineItem{{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900, Currency: "SEK"}}
	point := &shipment.Pickup{ID: "SP-7", Address: &shipment.Address{Street: "Torget 1", PostalCode: "753 10", City: "Uppsala", Country: "SE"}, LocationType: "LOCKER"}
	orders := staticOrders{
		site + "/tos_home":  {ExternalID: "ORD-9", ShippingMethod: "np-home", Sender: sender(), Receiver: receiver(), LineItems: items},
		site + "/tos_point": {ExternalID: "ORD-10", ShippingMethod: "np-point", Receiver: receiver(), Pickup: point, LineItems: items},
	}
	bare := func(refs ...string) shipment.ParcelInput {
		p := parcel(refs...)
		p.LineItems = nil
		return p
	}
	other := &shipment.Receiver{Name: "Maja Lind", Address: &shipment.Address{Street: "Sveavägen", StreetNumber: "1", PostalCode: "113 50", City: "Stockholm", Country: "SE"}}
	type facts struct {
		TosID, Reference, Sender, Receiver string
		Products                           [][]string
		Pickups                            []*shipment.Pickup
		LineItems                          [][]shipment.LineItem
	}
	tests := []struct {
		name     string
		req      shipment.CreateShipmentRequest
		want     facts
		wantKind deliverykit.Kind
		wantVs   []deliverykit.FieldViolation
	}{
		{name: "everything from the order", req: shipment.CreateShipmentRequest{TosID: "tos_home", Parcels: []shipment.ParcelInput{{Weight: 800}}},
			want: facts{TosID: "tos_home", Reference: "ORD-9", Sender: "Demo Outdoor Warehouse", Receiver: "Alva Berg",
				Products: [][]string{{"np-home"}}, Pickups: []*shipment.Pickup{nil}, LineItems: [][]shipment.LineItem{items}}},
		{name: "the request wins", req: shipment.CreateShipmentRequest{TosID: "tos_home", Reference: "R-1", Receiver: other, ShippingMethod: "np-point",
			Parcels: []shipment.ParcelInput{parcel("np-point")}},
			want: facts{TosID: "tos_home", Reference: "R-1", Sender: "Demo Outdoor Warehouse", Receiver: "Maja Lind",
				Products: [][]string{{"np-point"}}, Pickups: []*shipment.Pickup{parcel("np-point").Deliveries[0].Pickup},
				LineItems: [][]shipment.LineItem{parcel().LineItems}}},
		{name: "several parcels: no line items taken", req: shipment.CreateShipmentRequest{TosID: "tos_home", Parcels: []shipment.ParcelInput{bare("np-home"), bare("np-home")}},
			want: facts{TosID: "tos_home", Reference: "ORD-9", Sender: "Demo Outdoor Warehouse", Receiver: "Alva Berg",
				Products: [][]string{{"np-home"}, {"np-home"}}, Pickups: []*shipment.Pickup{nil, nil}, LineItems: [][]shipment.LineItem{nil, nil}}},
		{name: "pickup point of the order's product", req: shipment.CreateShipmentRequest{TosID: "tos_point", Sender: sender(),
			Parcels: []shipment.ParcelInput{{Weight: 800}}},
			want: facts{TosID: "tos_point", Reference: "ORD-10", Sender: "Demo Outdoor Warehouse", Receiver: "Alva Berg",
				Products: [][]string{{"np-point"}}, Pickups: []*shipment.Pickup{point}, LineItems: [][]shipment.LineItem{items}}},
		{name: "no sender in the order nor the request", req: shipment.CreateShipmentRequest{TosID: "tos_point", Parcels: []shipment.ParcelInput{{Weight: 800}}},
			wantKind: deliverykit.KindInvalidArgument, wantVs: []deliverykit.FieldViolation{{Field: "sender", Rule: "required", Message: "is required"}}},
		{name: "unknown order", req: shipment.CreateShipmentRequest{TosID: "tos_nope", Parcels: []shipment.ParcelInput{{Weight: 800}}},
			wantKind: deliverykit.KindNotFound, wantVs: []deliverykit.FieldViolation{{Field: "tos_id", Rule: "exists", Message: "is not an order of this site"}}},
		{name: "tos_id over its limit", req: shipment.CreateShipmentRequest{TosID: string(make([]byte, 129)), Parcels: []shipment.ParcelInput{{Weight: 800}}},
			wantKind: deliverykit.KindInvalidArgument, wantVs: []deliverykit.FieldViolation{{Field: "tos_id", Rule: "max", Message: "must be at most 128 characters long"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ordersFixture(t, orders)
			sh, err := f.svc.CreateAndBook(ctx, site, tt.req)
			if tt.wantKind != 0 {
				if got := deliverykit.KindOf(err); got != tt.wantKind {
					t.Fatalf("kind = %v (%v), want %v", got, err, tt.wantKind)
				}
				if diff := cmp.Diff(tt.wantVs, deliverykit.ViolationsOf(err)); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := facts{TosID: sh.TosID, Reference: sh.Reference, Sender: sh.Sender.Name, Receiver: sh.Receiver.Name}
			for _, p := range sh.Parcels {
				var refs []string
				for _, d := range p.Deliveries {
					refs = append(refs, d.CarrierProductRef)
				}
				got.Products = append(got.Products, refs)
				got.Pickups = append(got.Pickups, p.Deliveries[0].Pickup)
				got.LineItems = append(got.LineItems, p.LineItems)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the shipment (-want +got):\n%s", diff)
			}
			for _, b := range f.booked(t) {
				if b.TosID != tt.want.TosID {
					t.Errorf("parcel booked for order %q, want %q", b.TosID, tt.want.TosID)
				}
			}
		})
	}
}

// Without Options.Orders a tos_id is refused naming it; without a tos_id
// nothing changes.
func TestCreateTosIDWithoutOrders(t *testing.T) {
	f := ordersFixture(t, nil)
	_, err := f.svc.Create(ctx, site, shipment.CreateShipmentRequest{TosID: "tos_1", Sender: sender(), Receiver: receiver(),
		Parcels: []shipment.ParcelInput{parcel("np-home")}})
	if diff := cmp.Diff([]deliverykit.FieldViolation{{Field: "tos_id", Rule: "supported",
		Message: "cannot be used: this server has no orders to take a shipment's content from"}}, deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if _, err := f.svc.Create(ctx, site, request("")); err != nil {
		t.Errorf("without tos_id: %v", err)
	}
}

// A create request with a tos_id and an external_id, repeated, answers
// the first shipment; with other content it is a Conflict.
func TestCreateFromOrderRepeated(t *testing.T) {
	f := ordersFixture(t, staticOrders{site + "/tos_home": {ExternalID: "ORD-9", ShippingMethod: "np-home", Sender: sender(), Receiver: receiver()}})
	req := shipment.CreateShipmentRequest{ExternalID: "SH-1", TosID: "tos_home", Parcels: []shipment.ParcelInput{{Weight: 800}}}
	first := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, req))
	again := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, req))
	if again.ID != first.ID {
		t.Errorf("repeated create: %s, want %s", again.ID, first.ID)
	}
	req.Parcels[0].Weight = 900
	if _, err := f.svc.Create(ctx, site, req); deliverykit.KindOf(err) != deliverykit.KindConflict {
		t.Errorf("other content: %v, want Conflict", err)
	}
}
