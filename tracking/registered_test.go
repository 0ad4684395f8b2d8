package tracking

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A parcel registered through CreateParcel is announced once, by a
// parcel.registered written with it; repeating the registration writes
// none, and a parcel tracking registers for a parcel.booked writes none
// either (parcel.booked announced it).
func TestParcelRegisteredEvent(t *testing.T) {
	clock := deliverykit.NewManualClock(t0)
	d := outbox.New(memory.New(), outbox.Options{Clock: clock})
	var got []string
	d.Handle(event.TypeParcelRegistered, "test", func(_ context.Context, e event.Event) error {
		p, err := event.Decode[event.ParcelRegistered](e)
		got = append(got, e.Site+" "+e.Subject)
		if p.TrackingNumber != e.Subject || !p.RegisteredAt.Equal(clock.Now()) {
			t.Errorf("payload %+v of subject %s", p, e.Subject)
		}
		return err
	})
	svc, err := New(d.Store(), Options{Products: testProducts, Clock: clock, IDs: &deliverykit.SequentialIDs{}, PortalURL: "https://portal.example/"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tos, err := svc.CreateOrder(ctx, "site-a", orderReq("ORD-1"))
	if err != nil {
		t.Fatal(err)
	}
	var payloads []event.ParcelRegistered
	d.Handle(event.TypeParcelRegistered, "payloads", func(_ context.Context, e event.Event) error {
		p, err := event.Decode[event.ParcelRegistered](e)
		payloads = append(payloads, p)
		return err
	})
	for range 2 {
		if err := svc.CreateParcel(ctx, "site-a", parcelReq(tos, "TESTLOST0001")); err != nil {
			t.Fatal(err)
		}
	}
	booked, err := event.New("evt_1", "site-a", "CP000000001SE", t0, event.ParcelBooked{ShipmentID: "shp_1", DeliveryID: "shp_1-P1-D1",
		OrderExternalID: "ORD-1", TosID: tos, TrackingNumber: "CP000000001SE", ProductRef: "fastpost-home", Direction: "OUTBOUND", DeliveryType: "DELIVERY",
		Sender: deliverykit.Contact{Name: "Shop A"}, Receiver: deliverykit.Contact{Name: "Alva"}, BookedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.HandleParcelBooked(ctx, booked); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"site-a TESTLOST0001"}, got); diff != "" {
		t.Errorf("parcel.registered events (-want +got):\n%s", diff)
	}
	want := []event.ParcelRegistered{{TosID: tos, OrderExternalID: "ORD-1", TrackingNumber: "TESTLOST0001", ProductRef: "fastpost-pickup",
		Direction: "OUTBOUND", DeliveryType: "PICKUP", RegisteredAt: t0}}
	if diff := cmp.Diff(want, payloads); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
}
