package checkout

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// A /v1/siw session whose shopper entered the delivery address in the
// widget completes without a merchant customer, and the order's receiver
// is that address; a merchant's customer address wins over it; without
// either, the completion is refused naming customer (or
// customer.address) and nothing is completed.
func TestCompleteWithWidgetAddress(t *testing.T) {
	merchant := &Customer{Email: "m@example.com", Address: &CustomerAddress{Name: "Maja Lind", AddressLines: []string{"Sveavägen 1"},
		City: "Stockholm", PostalCode: "113 50", Country: "SE"}}
	type who struct{ Name, Email, PostalCode string }
	tests := []struct {
		name           string
		addressForm    bool
		widget         bool
		customer       *Customer
		wantViolations []deliverykit.FieldViolation
		wantReceiver   who
	}{
		{name: "widget address, no customer", addressForm: true, widget: true,
			wantReceiver: who{"Anna Berg", "anna@example.com", "118 26"}},
		{name: "widget address, customer without address", addressForm: true, widget: true, customer: &Customer{Email: "m@example.com"},
			wantReceiver: who{"Anna Berg", "anna@example.com", "118 26"}},
		{name: "merchant's address wins", addressForm: true, widget: true, customer: merchant,
			wantReceiver: who{"Maja Lind", "m@example.com", "113 50"}},
		{name: "form not filled, no customer", addressForm: true,
			wantViolations: []deliverykit.FieldViolation{{Field: "customer", Rule: "required", Message: "the customer is required to complete a session"}}},
		{name: "no form, no customer",
			wantViolations: []deliverykit.FieldViolation{{Field: "customer", Rule: "required", Message: "the customer is required to complete a session"}}},
		{name: "no form, customer without address", customer: &Customer{Email: "m@example.com"},
			wantViolations: []deliverykit.FieldViolation{{Field: "customer.address", Rule: "required", Message: "the customer's address is required to complete a session"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			req := createRequest()
			req.AddressForm = tt.addressForm
			v, err := f.svc.Create(t.Context(), "demo-site", req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.widget {
				if _, err := f.svc.SaveAddresses(t.Context(), v.Token, AddressRequest{DeliveryAddress: shopperAddress()}); err != nil {
					t.Fatal(err)
				}
			}
			done, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: v.Session.ID, Customer: tt.customer, ExternalID: "order-1"})
			if tt.wantViolations != nil {
				if got := deliverykit.KindOf(err); got != deliverykit.KindInvalidArgument {
					t.Errorf("kind = %v (%v), want invalid argument", got, err)
				}
				if diff := cmp.Diff(tt.wantViolations, deliverykit.ViolationsOf(err)); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				if n := len(f.orders(t)); n != 0 {
					t.Errorf("%d orders after a refused completion", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if done.Session.Status != StatusComplete || done.TosID == "" {
				t.Errorf("status %s, tos_id %q", done.Session.Status, done.TosID)
			}
			evs := f.orders(t)
			if len(evs) != 1 {
				t.Fatalf("%d orders, want 1", len(evs))
			}
			o, err := event.Decode[event.OrderCompleted](evs[0])
			if err != nil {
				t.Fatal(err)
			}
			var got who
			got.Name, got.Email = o.Customer.Name, o.Customer.Email
			if o.CustomerAddress != nil {
				got.PostalCode = o.CustomerAddress.PostalCode
			}
			if diff := cmp.Diff(tt.wantReceiver, got); diff != "" {
				t.Errorf("order's receiver (-want +got):\n%s", diff)
			}
		})
	}
}
