package notify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	outboxevent "github.com/deliverykit/deliverykit/event"
)

// TestHandleParcelChangedDirection: an outbound parcel's change (and one
// written before events named a direction) notifies the customer; a
// return parcel's does not: its steps are the return's.
func TestHandleParcelChangedDirection(t *testing.T) {
	for _, tt := range []struct {
		direction string
		want      []string
	}{
		{"OUTBOUND", []string{"OUT_FOR_DELIVERY/EMAIL", "OUT_FOR_DELIVERY/SMS"}},
		{"", []string{"OUT_FOR_DELIVERY/EMAIL", "OUT_FOR_DELIVERY/SMS"}},
		{"RETURN", nil},
	} {
		f := newFixture(t)
		ev, err := outboxevent.New("evt_1", "site-a", "TN1", t0, outboxevent.ParcelChanged{TosID: "tos_1", ExternalID: "ORD-1",
			TrackingNumber: "TN1", Step: "STEP_ON_ROUTE", Alert: "ALERT_OUT_FOR_DELIVERY", Time: t0, Direction: tt.direction,
			Receiver: deliverykit.Contact{Name: "Alva", Email: "alva@example.com", Phone: "+46701234567"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.svc.HandleParcelChanged(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range f.list(t, "site-a") {
			got = append(got, string(n.Name)+"/"+string(n.Channel))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("direction %q: notifications (-want +got):\n%s", tt.direction, diff)
		}
	}
}
