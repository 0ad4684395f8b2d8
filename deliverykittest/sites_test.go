package deliverykittest_test

import (
	"context"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/tracking"
)

// TestNewSite: a test site's kit ships and advances on its own data and
// clock; the kit, and another test site, see nothing of it.
func TestNewSite(t *testing.T) {
	ctx := context.Background()
	k := deliverykittest.Start(t, deliverykittest.Options{})
	a, err := k.NewSite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.NewSite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "SO-1"})
	if err != nil {
		t.Fatal(err)
	}
	ran, err := a.AdvanceSite(ctx, 96*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if ran.CarrierEvents == 0 || ran.Notifications == 0 || ran.Webhooks == 0 {
		t.Errorf("ran %+v", ran)
	}
	if !a.Clock.Now().Equal(deliverykittest.DefaultStart.Add(96*time.Hour)) || !k.Clock.Now().Equal(deliverykittest.DefaultStart) || !b.Clock.Now().Equal(deliverykittest.DefaultStart) {
		t.Errorf("clocks: site a %v, kit %v, site b %v", a.Clock.Now(), k.Clock.Now(), b.Clock.Now())
	}
	if len(a.Sent(notify.ChannelEmail)) == 0 || len(b.Sent(notify.ChannelEmail)) != 0 || len(k.Sent(notify.ChannelEmail)) != 0 {
		t.Errorf("e-mails: site a %d, site b %d, kit %d", len(a.Sent(notify.ChannelEmail)), len(b.Sent(notify.ChannelEmail)), len(k.Sent(notify.ChannelEmail)))
	}
	hooks := a.Webhooks(event.TypeParcelChanged)
	if len(hooks) == 0 || len(b.Webhooks()) != 0 || len(k.Webhooks()) != 0 {
		t.Errorf("webhooks: site a %d, site b %d, kit %d", len(hooks), len(b.Webhooks()), len(k.Webhooks()))
	}
	for _, h := range a.Webhooks() {
		if h.SignatureErr != nil {
			t.Errorf("%s %s: %v", h.Type, h.ID, h.SignatureErr)
		}
	}
	if _, err := k.Services.Tracking.Parcels(ctx, k.Site, tracking.ParcelsQuery{TrackingNumber: p.TrackingNumber}); err == nil {
		t.Errorf("the kit's site sees the test site's parcel %s", p.TrackingNumber)
	}
	// A fault by name refuses the next booking until cleared.
	if err := b.SetFaults(ctx, carrier.FaultBookingRejected); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "SO-2"}); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("a booking under BOOKING_REJECTED: %v", err)
	}
	if err := b.SetFaults(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "SO-3"}); err != nil {
		t.Errorf("a booking once the fault cleared: %v", err)
	}
	if err := k.SetFaults(ctx, carrier.FaultCarrierUnavailable); err == nil {
		t.Error("the kit's own site took a fault")
	}
	id, err := b.TriggerEvent(ctx, event.TypeReturnCreated)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Webhooks(event.TypeReturnCreated); len(got) != 1 || got[0].ID != id || got[0].SignatureErr != nil {
		t.Errorf("triggered %s: %+v", id, got)
	}
}
