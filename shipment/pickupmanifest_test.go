package shipment_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/shipment"
)

// handOverSpy is the spy carrier taking hand-overs: it records each and
// fails them when asked.
type handOverSpy struct {
	*spyCarrier
	fail bool
}

func (c *handOverSpy) HandOver(_ context.Context, req shipment.HandOverRequest) error {
	if c.fail {
		c.log("handover-failed")
		return errCarrierDown
	}
	c.log("handover " + req.Window.Start.Format(time.RFC3339) + " " + strings.Join(req.TrackingNumbers, ","))
	return nil
}

// A pickup booked with manifest closes the day of its carrier first: the
// carrier's waiting parcels, of every shipment, go into a manifest for the
// window's day, the carrier is told them before, and they can no longer
// be cancelled. Another carrier's parcels and a pickup booked without
// manifest are left as they are; a failed hand-over leaves no manifest.
func TestBookPickupManifestsTheDay(t *testing.T) {
	var spy *handOverSpy
	f := newFixtureWith(t, func(o *shipment.Options) {
		spy = &handOverSpy{spyCarrier: o.Carriers["north"].(*spyCarrier)}
		o.Carriers = map[string]shipment.Carrier{"north": spy, "ghost": spy.spyCarrier}
	})
	a := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("A", parcel("np-home"), parcel("np-point"))))
	b := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("B")))
	g := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("G", parcel("nowhere"))))

	// Without manifest: a pickup only.
	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: numbers(g)[0], PickupWindow: pickupWindow()}))
	if got := pendingIndex(t, f); len(got) != 4 {
		t.Fatalf("after a pickup without manifest: pending %q, want all 4 parcels", got)
	}

	// A failed hand-over: no manifest, the parcels still wait.
	spy.fail = true
	req := shipment.BookPickupRequest{ShipmentID: a.ID, PickupWindow: pickupWindow(), Manifest: true}
	if _, err := f.svc.BookPickup(ctx, site, req); err == nil {
		t.Fatal("BookPickup with a failing hand-over succeeded")
	}
	if got := pendingIndex(t, f); len(got) != 4 {
		t.Fatalf("after a failed hand-over: pending %q, want all 4 parcels", got)
	}

	spy.fail = false
	calls := len(spy.Calls())
	sh := must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, req))
	north := append(numbers(a), numbers(b)...)
	wantCalls := []string{"handover 2026-11-21T09:00:00Z " + strings.Join(north, ","),
		"pickup " + numbers(a)[0] + " 2026-11-21T09:00:00Z", "pickup " + numbers(a)[1] + " 2026-11-21T09:00:00Z"}
	if diff := cmp.Diff(wantCalls, spy.Calls()[calls:]); diff != "" {
		t.Errorf("carrier calls (-want +got):\n%s", diff)
	}
	id := sh.Parcels[0].Deliveries[0].ManifestID
	if id == "" {
		t.Fatal("the pickup's delivery is in no manifest")
	}
	m := must[*shipment.Manifest](t)(f.svc.GetManifest(ctx, site, id))
	if diff := cmp.Diff(north, trackingNumbersOf(m)); diff != "" {
		t.Errorf("manifest parcels (-want +got):\n%s", diff)
	}
	if m.PickupDate != "2026-11-21" || m.Carrier != "north" {
		t.Errorf("manifest for %s of %s, want 2026-11-21 of north", m.PickupDate, m.Carrier)
	}
	for _, d := range []shipment.Delivery{sh.Parcels[0].Deliveries[0], sh.Parcels[1].Deliveries[0]} {
		if d.State != shipment.DeliveryPickupBooked || d.ManifestID != id {
			t.Errorf("%s: %s in %q, want PICKUP_BOOKED in %s", d.TrackingNumber, d.State, d.ManifestID, id)
		}
	}
	// B, of the same carrier, is handed over too; G, of another, is not.
	if _, err := f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: b.ID}); kindOf(err) != "conflict" {
		t.Errorf("cancelling a manifested shipment: %v, want conflict", err)
	}
	if diff := cmp.Diff([]string{"ghost " + g.ID + " " + g.Parcels[0].Deliveries[0].ID}, pendingIndex(t, f)); diff != "" {
		t.Errorf("pending after the close (-want +got):\n%s", diff)
	}

	// Repeated: nothing changes, no second manifest.
	calls = len(spy.Calls())
	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, req))
	if got := spy.Calls()[calls:]; len(got) != 0 {
		t.Errorf("a repeated pickup called the carrier: %q", got)
	}
}
