package wiring_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
)

// A tracking order as a shipment reads it: the receiver at home, the
// sender when the order has its address, the pickup point of a pickup
// order, the cart as line items when it names its currency.
func TestShipmentOrders(t *testing.T) {
	home := &deliverykit.Address{Street: "Storgatan", StreetNumber: "5", PostalCode: "753 20", City: "Uppsala", Country: "SE"}
	point := &deliverykit.Address{AddressLines: []string{"Sergels torg 12"}, PostalCode: "111 57", City: "Stockholm", Country: "SE"}
	shop := &deliverykit.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm", Country: "SE"}
	cart := &tracking.Cart{Currency: "SEK", Items: []tracking.CartItem{{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900, Discount: 100}}}
	items := []shipment.LineItem{{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900, Currency: "SEK", Discount: 100}}
	tests := []struct {
		name string
		req  tracking.CreateTrackingOrderRequest
		want shipment.Order
	}{
		{"home delivery: the destination is home",
			tracking.CreateTrackingOrderRequest{ExternalID: "SO-1", CarrierProductRef: "north-parcel-home", DeliveryType: tracking.OrderDeliveryDelivery,
				Sender: &tracking.Sender{Name: "Shop", Address: shop}, Receiver: &tracking.Receiver{Name: "Alva Berg", Email: "alva@example.com", PhoneNumber: "+46701234567"},
				Destination: &tracking.Destination{Address: home}, Cart: cart},
			shipment.Order{ExternalID: "SO-1", ShippingMethod: "north-parcel-home", Sender: &shipment.Sender{Name: "Shop", Address: shop},
				Receiver: &shipment.Receiver{Name: "Alva Berg", Address: home, Email: "alva@example.com", PhoneNumber: "+46701234567"}, LineItems: items}},
		{"pickup order: the point is no home",
			tracking.CreateTrackingOrderRequest{ExternalID: "SO-2", CarrierProductRef: "north-parcel-point", DeliveryType: tracking.OrderDeliveryPickup,
				Sender: &tracking.Sender{Name: "Shop"}, Receiver: &tracking.Receiver{Name: "Alva Berg"},
				Destination: &tracking.Destination{Address: point, LocationExternalID: "np-se-101", LocationType: "LOCKER"}},
			shipment.Order{ExternalID: "SO-2", ShippingMethod: "north-parcel-point", Receiver: &shipment.Receiver{Name: "Alva Berg"},
				Pickup: &shipment.Pickup{ID: "np-se-101", Address: point, LocationType: "LOCKER"}}},
		{"pickup order with the receiver's address, a cart without currency",
			tracking.CreateTrackingOrderRequest{ExternalID: "SO-3", CarrierProductRef: "north-parcel-point", DeliveryType: tracking.OrderDeliveryPickup,
				Sender: &tracking.Sender{Name: "Shop"}, Receiver: &tracking.Receiver{Name: "Alva Berg", Address: home},
				Destination: &tracking.Destination{Address: point, LocationExternalID: "np-se-101"},
				Cart:        &tracking.Cart{Items: cart.Items}},
			shipment.Order{ExternalID: "SO-3", ShippingMethod: "north-parcel-point", Receiver: &shipment.Receiver{Name: "Alva Berg", Address: home},
				Pickup: &shipment.Pickup{ID: "np-se-101", Address: point}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
			svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			tos, err := svcs.Tracking.CreateOrder(t.Context(), "demo-site", tt.req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := wiring.ShipmentOrders{Tracking: svcs.Tracking}.Order(t.Context(), "demo-site", tos)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the order (-want +got):\n%s", diff)
			}
			if _, err := (wiring.ShipmentOrders{Tracking: svcs.Tracking}).Order(t.Context(), "other-site", tos); deliverykit.KindOf(err) != deliverykit.KindNotFound {
				t.Errorf("another site's order: %v, want NotFound", err)
			}
		})
	}
}

// A shipment created for a tracking order with only a sender and a
// weight has the order's receiver and items, and its booked parcel is
// tracked with that order.
func TestShipmentForTrackingOrder(t *testing.T) {
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tos, err := svcs.Tracking.CreateOrder(ctx, "demo-site", tracking.CreateTrackingOrderRequest{ExternalID: "SO-1", CarrierProductRef: "north-parcel-home",
		DeliveryType: tracking.OrderDeliveryDelivery, Sender: &tracking.Sender{Name: "Shop"}, Receiver: &tracking.Receiver{Name: "Alva Berg"},
		Destination: &tracking.Destination{Address: &deliverykit.Address{Street: "Storgatan", StreetNumber: "5", PostalCode: "753 20", City: "Uppsala", Country: "SE"}},
		Cart:        &tracking.Cart{Currency: "SEK", Items: []tracking.CartItem{{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900}}}})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := svcs.Shipment.CreateAndBook(ctx, "demo-site", shipment.CreateShipmentRequest{TosID: tos,
		Sender:  &shipment.Sender{Name: "Demo Outdoor Warehouse", Address: &shipment.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm", Country: "SE"}},
		Parcels: []shipment.ParcelInput{{Weight: 1200}}})
	if err != nil {
		t.Fatal(err)
	}
	type facts struct{ Receiver, Product, Items string }
	p := sh.Parcels[0]
	got := facts{sh.Receiver.Name + ", " + sh.Receiver.Address.PostalCode, p.Deliveries[0].CarrierProductRef, ""}
	for _, it := range p.LineItems {
		got.Items += it.SKU + " x" + strconv.Itoa(int(it.Quantity))
	}
	if diff := cmp.Diff(facts{"Alva Berg, 753 20", "north-parcel-home", "MUG x2"}, got); diff != "" {
		t.Errorf("the shipment (-want +got):\n%s", diff)
	}
	res, err := svcs.Tracking.Parcels(ctx, "demo-site", tracking.ParcelsQuery{TrackingNumber: p.Deliveries[0].TrackingNumber})
	if err != nil {
		t.Fatal(err)
	}
	if res.TosID != tos || res.ExternalID != "SO-1" {
		t.Errorf("the parcel is tracked with %s / %s, want %s / SO-1", res.TosID, res.ExternalID, tos)
	}
}
