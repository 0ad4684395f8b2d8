package wiring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/checkout/options"
	"github.com/deliverykit/deliverykit/tracking"
)

// Every field of the customer's address reaches the tracking order's
// receiver, and the merchant's order number is the order's external id.
func TestTrackingOrderReceiver(t *testing.T) {
	o := checkout.CompletedOrder{Site: "s", TosID: "tos_1", CartID: "cart-1", ExternalID: "web-1", Country: "SE", Locale: "sv-SE",
		Option: options.Option{Carrier: &options.Carrier{ProductRef: "north-parcel-home"}},
		Customer: checkout.Customer{Email: "a@example.com", Phone: "+46701234567", Address: &checkout.CustomerAddress{
			Name: "Alva Berg", AddressLines: []string{"Storgatan 5"}, Street: "Storgatan", StreetNumber: "5", ApartmentNumber: "1102",
			City: "Uppsala", PostalCode: "753 20", Region: "Uppsala län", Country: "SE", CareOf: "Berg", Attn: "Alva", DoorCode: "1234",
			Coordinates: &checkout.Coordinates{Lat: 59.8586, Lng: 17.6389}}}}
	req, err := trackingOrder(o, "Shop")
	if err != nil {
		t.Fatal(err)
	}
	want := &tracking.Receiver{Name: "Alva Berg", Email: "a@example.com", PhoneNumber: "+46701234567", Address: &tracking.Address{
		Name: "Alva Berg", AddressLines: []string{"Storgatan 5"}, Street: "Storgatan", StreetNumber: "5", ApartmentNumber: "1102",
		City: "Uppsala", PostalCode: "753 20", Region: "Uppsala län", Country: "SE", CareOf: "Berg", Attn: "Alva", DoorCode: "1234",
		Coordinates: &tracking.Coordinates{Lat: 59.8586, Lng: 17.6389}}}
	if diff := cmp.Diff(want, req.Receiver); diff != "" {
		t.Errorf("receiver (-want +got):\n%s", diff)
	}
	if req.ExternalID != "web-1" || req.CarrierProductRef != "north-parcel-home" || req.Locale != "sv-SE" {
		t.Errorf("external_id %q, carrier_product_ref %q, locale %q", req.ExternalID, req.CarrierProductRef, req.Locale)
	}
}
