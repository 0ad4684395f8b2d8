package tracking

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// Every field of the customer's address reaches the tracking order's
// receiver, and the merchant's order number is the order's external id.
func TestOrderRequestReceiver(t *testing.T) {
	f := newFixture(t)
	addr := &deliverykit.Address{
		Name: "Alva Berg", AddressLines: []string{"Storgatan 5"}, Street: "Storgatan", StreetNumber: "5", ApartmentNumber: "1102",
		City: "Uppsala", PostalCode: "753 20", Region: "Uppsala län", Country: "SE", CareOf: "Berg", Attn: "Alva", DoorCode: "1234",
		Coordinates: &deliverykit.Coordinates{Lat: 59.8586, Lng: 17.6389}}
	o := event.OrderCompleted{TosID: "tos_1", ExternalID: "web-1", Country: "SE", Locale: "sv-SE", ProductRef: "fastpost-home",
		DeliveryType: "DELIVERY", Customer: deliverykit.Contact{Name: "Alva Berg", Email: "a@example.com", Phone: "+46701234567"},
		CustomerAddress: addr}
	req, err := f.svc.orderRequest("site-a", &o)
	if err != nil {
		t.Fatal(err)
	}
	want := CreateTrackingOrderRequest{
		SiteID: "site-a", ExternalID: "web-1", CarrierProductRef: "fastpost-home", Locale: "sv-SE",
		Sender:       &Sender{Name: "Shop A"},
		Receiver:     &Receiver{Name: "Alva Berg", Email: "a@example.com", PhoneNumber: "+46701234567", Address: addr},
		Destination:  &Destination{Address: addr},
		DeliveryType: OrderDeliveryDelivery,
	}
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if req.Receiver.Address == addr {
		t.Error("the order shares the event's address")
	}
}

// TestReceiverName: tracking needs a name; without one the customer's
// e-mail address or phone number stands in.
func TestReceiverName(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		contact deliverykit.Contact
		want    string
	}{
		{deliverykit.Contact{Name: "Alva"}, "Alva"},
		{deliverykit.Contact{Name: " ", Email: "a@example.com", Phone: "+46"}, "a@example.com"},
		{deliverykit.Contact{Phone: "+46701234567"}, "+46701234567"},
		{deliverykit.Contact{}, "customer"},
	} {
		o := event.OrderCompleted{TosID: "tos_1", ExternalID: "x", ProductRef: "fastpost-home", Customer: tc.contact}
		req, err := f.svc.orderRequest("site-a", &o)
		if err != nil {
			t.Fatal(err)
		}
		if req.Receiver.Name != tc.want {
			t.Errorf("%+v: name %q, want %q", tc.contact, req.Receiver.Name, tc.want)
		}
	}
}
