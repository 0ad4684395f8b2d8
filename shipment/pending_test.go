package shipment_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
)

// pendingIndex is the stored pending index: "carrier shipment delivery"
// per entry of site, in key order.
func pendingIndex(t *testing.T, f *fixture) []string {
	t.Helper()
	var out []string
	err := f.store.View(ctx, func(tx storage.Tx) error {
		for rec, err := range tx.Scan("shipment.pending", storage.Range{Prefix: storage.KeyPrefix(site)}) {
			if err != nil {
				return err
			}
			out = append(out, strings.Join(strings.Split(rec.Key, storage.KeySep)[1:], " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The pending index follows every change that makes a parcel wait for a
// manifest or stop waiting, in the change's transaction: booking adds
// it, a pickup booking keeps it, a cancellation, a collection and a
// manifest remove it.
func TestPendingIndexFollowsTheParcels(t *testing.T) {
	f := twoCarriers(t)
	entry := func(carrier string, sh *shipment.Shipment, p int) string {
		return carrier + " " + sh.ID + " " + sh.Parcels[p].Deliveries[0].ID
	}
	created := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("created")))
	if got := pendingIndex(t, f); len(got) != 0 {
		t.Fatalf("after a create: %q, want none", got)
	}
	a := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("A", parcel("np-home"), parcel("np-point"))))
	b := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("B")))
	g := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("G", parcel("nowhere"))))
	created = must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: created.ID}))
	check := func(step string, want ...string) {
		t.Helper()
		if diff := cmp.Diff(want, pendingIndex(t, f)); diff != "" {
			t.Errorf("%s: pending index (-want +got):\n%s", step, diff)
		}
	}
	check("booked", entry("ghost", g, 0), entry("north", created, 0), entry("north", a, 0), entry("north", a, 1), entry("north", b, 0))

	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{ShipmentID: b.ID, PickupWindow: pickupWindow()}))
	check("a pickup booked", entry("ghost", g, 0), entry("north", created, 0), entry("north", a, 0), entry("north", a, 1), entry("north", b, 0))

	must[*shipment.Shipment](t)(f.svc.ConfirmPickup(ctx, site, shipment.ConfirmPickupRequest{TrackingNumber: numbers(b)[0]}))
	check("collected", entry("ghost", g, 0), entry("north", created, 0), entry("north", a, 0), entry("north", a, 1))

	must[*shipment.Shipment](t)(f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: numbers(a)[1]}))
	check("one of two cancelled", entry("ghost", g, 0), entry("north", created, 0), entry("north", a, 0))

	m := must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	if diff := cmp.Diff([]string{numbers(created)[0], numbers(a)[0]}, trackingNumbersOf(m)); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
	check("north manifested", entry("ghost", g, 0))
}

func trackingNumbersOf(m *shipment.Manifest) []string {
	var out []string
	for _, p := range m.Parcels {
		out = append(out, p.TrackingNumber)
	}
	return out
}

// A store written before the index existed has booked parcels and no
// entries: the first close indexes them (once) and manifests them. An
// entry no shipment backs any more is dropped by the close that meets it.
func TestPendingIndexBackfillAndStaleEntries(t *testing.T) {
	f := newFixture(t)
	a := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("A")))
	err := f.store.Update(ctx, func(tx storage.Tx) error {
		var keys []string
		for rec, err := range tx.Scan("shipment.pending", storage.Range{}) {
			if err != nil {
				return err
			}
			keys = append(keys, rec.Key)
		}
		for _, k := range keys {
			if err := tx.Delete("shipment.pending", k, storage.Condition{}); err != nil {
				return err
			}
		}
		// An entry of a shipment that is gone.
		_, err := tx.Put("shipment.pending", storage.Key(site, "north", "shp_gone", "shp_gone-P1-D1"), []byte(`{"shipment_id":"shp_gone"}`), storage.AnyVersion)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m := must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	if diff := cmp.Diff(numbers(a), trackingNumbersOf(m)); diff != "" {
		t.Errorf("manifest after the backfill (-want +got):\n%s", diff)
	}
	if got := pendingIndex(t, f); len(got) != 0 {
		t.Errorf("after the close: %q, want none", got)
	}
}
