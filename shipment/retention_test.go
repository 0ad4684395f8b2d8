package shipment_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/recordtest"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/shipment"
)

// A shipment is deleted retention.DefaultShipments after its last change,
// not before, with the indexes that find it by external id and tracking
// number; one changed later stays until its own time.
func TestSweepAfterLastChange(t *testing.T) {
	f := newFixture(t)
	quiet := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("ext-quiet")))
	busy := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("ext-busy")))
	f.clock.Set(t0.Add(10 * 24 * time.Hour))
	booked := must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: busy.ID}))
	tn := booked.Parcels[0].Deliveries[0].TrackingNumber
	keep := retention.DefaultShipments
	for _, tt := range []struct {
		at   time.Time
		want int
		left []string
	}{
		{t0.Add(keep - time.Minute), 0, []string{quiet.ID, busy.ID}},
		// The busy one's entry (its creation) is due too: it moves.
		{t0.Add(keep), 1, []string{busy.ID}},
		{t0.Add(10*24*time.Hour + keep - time.Minute), 0, []string{busy.ID}},
		{t0.Add(10*24*time.Hour + keep), 1, nil},
	} {
		n, err := f.svc.Sweep(ctx, tt.at, 0)
		if err != nil || n != tt.want {
			t.Errorf("Sweep at %s = %d, %v; want %d", tt.at, n, err, tt.want)
		}
		var left []string
		for _, id := range []string{quiet.ID, busy.ID} {
			if _, err := f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: id}); err == nil {
				left = append(left, id)
			} else if deliverykit.KindOf(err) != deliverykit.KindNotFound {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(tt.left, left); diff != "" {
			t.Errorf("shipments left at %s (-want +got):\n%s", tt.at, diff)
		}
	}
	for _, q := range []shipment.GetShipmentQuery{{ExternalID: "ext-busy"}, {TrackingNumber: tn}} {
		if _, err := f.svc.Get(ctx, site, q); deliverykit.KindOf(err) != deliverykit.KindNotFound {
			t.Errorf("Get(%+v) after the sweep: %v, want NotFound", q, err)
		}
	}
	// The external id is free again.
	if _, err := f.svc.Create(ctx, site, request("ext-busy")); err != nil {
		t.Errorf("create with a swept shipment's external id: %v", err)
	}
}

// Shipments stored before they had a retention entry are indexed by the
// first sweep and deleted on time; Never keeps them.
func TestSweepBackfillsStoredShipments(t *testing.T) {
	for _, tt := range []struct {
		name      string
		retention time.Duration
		want      int
	}{
		{"default", 0, 3},
		{"never", retention.Never, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(o *shipment.Options) { o.Retention = tt.retention })
			recordtest.Load(t, f.store, "testdata/schema1/store.json")
			far := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
			if n, err := f.svc.Sweep(ctx, far, 0); err != nil || n != tt.want {
				t.Errorf("Sweep = %d, %v; want %d", n, err, tt.want)
			}
		})
	}
}
