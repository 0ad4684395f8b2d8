package shipment_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
)

// TestAddParcelWithoutParcel: addParcel without a parcel adds a duplicate
// of the first parcel (weight, dimensions, carrier products, legs' ends,
// pickup point), without its external id and line items; booked at once
// when the shipment is booked.
func TestAddParcelWithoutParcel(t *testing.T) {
	hub := &shipment.Address{Street: "Hamnvägen", StreetNumber: "3", PostalCode: "415 05", City: "Göteborg", Country: "SE"}
	chained := parcel("wh-leg", "np-home")
	chained.Deliveries[0].Receiver = &shipment.Receiver{Name: "Hub West", Address: hub}
	chained.Deliveries[1].Sender = &shipment.Sender{Name: "Hub West", Address: hub}
	first := func(p shipment.ParcelInput) shipment.ParcelInput {
		p.ExternalID = "BOX-1"
		return p
	}
	// dup is what the duplicate of p keeps.
	type dup struct {
		Weight     int32
		Dimensions *shipment.Dimensions
		ExternalID string
		LineItems  []shipment.LineItem
		Deliveries []shipment.DeliveryInput
	}
	tests := []struct {
		name       string
		first      shipment.ParcelInput
		book       bool
		want       dup
		wantStates []shipment.DeliveryState
	}{
		{name: "home delivery", first: first(parcel("np-home")),
			want: dup{Weight: 1250, Dimensions: &shipment.Dimensions{Length: 300, Width: 200, Height: 100},
				Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "np-home", DeliveryType: shipment.DeliveryDelivery}}},
			wantStates: []shipment.DeliveryState{shipment.DeliveryCreated}},
		{name: "pickup point, booked", first: first(parcel("np-point")), book: true,
			want: dup{Weight: 1250, Dimensions: &shipment.Dimensions{Length: 300, Width: 200, Height: 100},
				Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "np-point", DeliveryType: shipment.DeliveryPickup,
					Pickup: &shipment.Pickup{ID: "SP-1001", Address: &shipment.Address{Street: "Torget 1", PostalCode: "753 10", City: "Uppsala", Country: "SE"}}}}},
			wantStates: []shipment.DeliveryState{shipment.DeliveryBooked}},
		{name: "chained legs", first: first(chained),
			want: dup{Weight: 1250, Dimensions: &shipment.Dimensions{Length: 300, Width: 200, Height: 100},
				Deliveries: []shipment.DeliveryInput{
					{CarrierProductRef: "wh-leg", DeliveryType: shipment.DeliveryInwarehouse, Receiver: &shipment.Receiver{Name: "Hub West", Address: hub}},
					{CarrierProductRef: "np-home", DeliveryType: shipment.DeliveryDelivery, Sender: &shipment.Sender{Name: "Hub West", Address: hub}}}},
			wantStates: []shipment.DeliveryState{shipment.DeliveryCreated, shipment.DeliveryCreated}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("", tt.first)))
			if tt.book {
				must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
			}
			got := must[*shipment.Shipment](t)(f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: sh.ID}))
			if len(got.Parcels) != 2 {
				t.Fatalf("%d parcels, want 2", len(got.Parcels))
			}
			p := got.Parcels[1]
			g := dup{Weight: p.Weight, Dimensions: p.Dimensions, ExternalID: p.ExternalID, LineItems: p.LineItems}
			var st []shipment.DeliveryState
			for _, d := range p.Deliveries {
				g.Deliveries = append(g.Deliveries, shipment.DeliveryInput{CarrierProductRef: d.CarrierProductRef, DeliveryType: d.DeliveryType,
					Sender: d.Sender, Receiver: d.Receiver, Pickup: d.Pickup})
				st = append(st, d.State)
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("the duplicate (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantStates, st); diff != "" {
				t.Errorf("its delivery states (-want +got):\n%s", diff)
			}
		})
	}
}

// Without a parcel, an unknown shipment is still NotFound naming
// shipment_id, another site's shipment is not duplicated, and a cancelled
// one is FailedPrecondition naming its state.
func TestAddParcelWithoutParcelErrors(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	gone := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: gone.ID}))
	tests := []struct {
		name string
		site string
		id   string
		want deliverykit.Kind
	}{
		{"unknown shipment", site, "shp_nope", deliverykit.KindNotFound},
		{"another site's", "other-site", sh.ID, deliverykit.KindNotFound},
		{"cancelled", site, gone.ID, deliverykit.KindFailedPrecondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.AddParcel(ctx, tt.site, shipment.AddParcelRequest{ShipmentID: tt.id})
			if got := deliverykit.KindOf(err); got != tt.want {
				t.Errorf("kind = %v (%v), want %v", got, err, tt.want)
			}
		})
	}
	if got := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID})); len(got.Parcels) != 1 {
		t.Errorf("%d parcels after the refused calls, want 1", len(got.Parcels))
	}
}
