package shipment_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// twoCarriers is a fixture whose "ghost" products are booked too, so that
// a manifest of one carrier can be shown to leave the other's parcels.
func twoCarriers(t *testing.T) *fixture {
	return newFixtureWith(t, func(o *shipment.Options) {
		o.Carriers = map[string]shipment.Carrier{"north": o.Carriers["north"], "ghost": o.Carriers["north"]}
	})
}

func TestManifestClosesTheDay(t *testing.T) {
	f := twoCarriers(t)
	a := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("A", parcel("np-home"), parcel("np-point"))))
	b := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("B")))
	ghost := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("G", parcel("nowhere"))))
	must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("not-booked")))
	cancelled := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("C")))
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: cancelled.ID}))
	other := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, "site-2", request("A")))

	m := must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	want := &shipment.Manifest{
		ID: m.ID, SiteID: site, Carrier: "north", CarrierName: "North Parcel", PickupDate: "2026-11-20", CreatedAt: t0,
		Parcels: []shipment.ManifestParcel{
			{TrackingNumber: numbers(a)[0], ShipmentID: a.ID, Weight: 1250},
			{TrackingNumber: numbers(a)[1], ShipmentID: a.ID, Weight: 1250},
			{TrackingNumber: numbers(b)[0], ShipmentID: b.ID, Weight: 1250},
		},
		Totals: shipment.ManifestTotals{Parcels: 3, Weight: 3750},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Fatalf("manifest (-want +got):\n%s", diff)
	}
	if got := must[*shipment.Manifest](t)(f.svc.GetManifest(ctx, site, m.ID)); !cmp.Equal(got, m) {
		t.Errorf("stored manifest differs:\n%s", cmp.Diff(m, got))
	}
	// The deliveries name their manifest; the other carrier's and site's
	// do not.
	for _, c := range []struct {
		id, site, want string
	}{{a.ID, site, m.ID}, {b.ID, site, m.ID}, {ghost.ID, site, ""}, {other.ID, "site-2", ""}} {
		sh := must[*shipment.Shipment](t)(f.svc.Get(ctx, c.site, shipment.GetShipmentQuery{ID: c.id}))
		for _, p := range sh.Parcels {
			if got := p.Deliveries[0].ManifestID; got != c.want {
				t.Errorf("%s/%s: manifest_id %q, want %q", c.site, c.id, got, c.want)
			}
		}
	}

	// The next day: only the parcels booked since go into the next one.
	f.clock.Advance(24 * 60 * 60 * 1e9)
	next := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("D")))
	m2 := must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-21"}))
	if diff := cmp.Diff([]shipment.ManifestParcel{{TrackingNumber: numbers(next)[0], ShipmentID: next.ID, Weight: 1250}}, m2.Parcels); diff != "" {
		t.Errorf("next manifest (-want +got):\n%s", diff)
	}
	if m2.ID == m.ID {
		t.Errorf("the next manifest has the first one's id %s", m.ID)
	}

	// Nothing left: a Conflict naming carrier.
	_, err := f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-21"})
	if got := fieldsOf(err); kindOf(err) != "conflict" || !cmp.Equal(got, []string{"carrier"}) {
		t.Errorf("empty close: %s %v, want conflict naming carrier", kindOf(err), got)
	}
	// Another site cannot read it.
	if _, err := f.svc.GetManifest(ctx, "site-2", m.ID); kindOf(err) != "not found" {
		t.Errorf("another site's manifest: %v, want not found", err)
	}
	if _, err := f.svc.ManifestPDF(ctx, "site-2", m.ID); kindOf(err) != "not found" {
		t.Errorf("another site's manifest PDF: %v, want not found", err)
	}
	pdf := must[[]byte](t)(f.svc.ManifestPDF(ctx, site, m.ID))
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("Manifest "+m.ID)) {
		t.Errorf("manifest PDF of %d bytes lacks its header or title", len(pdf))
	}
}

func fieldsOf(err error) []string {
	var out []string
	for _, v := range deliverykit.ViolationsOf(err) {
		out = append(out, v.Field)
	}
	return out
}

func TestManifestedParcelCannotBeCancelled(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("A", parcel("np-home"), parcel("np-home"))))
	must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	tn := numbers(sh)[1]
	for _, c := range []struct {
		name   string
		cancel func() error
	}{
		{"delivery", func() error {
			_, err := f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: tn})
			return err
		}},
		{"shipment", func() error {
			_, err := f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.cancel()
			if kindOf(err) != "conflict" || !cmp.Equal(fieldsOf(err), []string{"tracking_number"}) {
				t.Fatalf("cancel: %s %v (%v), want conflict naming tracking_number", kindOf(err), fieldsOf(err), err)
			}
		})
	}
	got := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID}))
	if diff := cmp.Diff([]shipment.DeliveryState{shipment.DeliveryBooked, shipment.DeliveryBooked}, states(got)); diff != "" {
		t.Errorf("states after the refusals (-want +got):\n%s", diff)
	}
}

// Concurrent closes never share a parcel: every parcel is in exactly one
// manifest, and the closes that found nothing left are Conflicts.
// It runs on memory, which serializes transactions, and on bolt, which
// commits concurrent ones together.
func TestConcurrentManifestsShareNoParcel(t *testing.T) {
	for _, c := range []struct {
		name  string
		store func(t *testing.T) storage.Store
	}{
		{"memory", func(*testing.T) storage.Store { return memory.New() }},
		{"bolt", func(t *testing.T) storage.Store {
			s, err := bolt.Open(filepath.Join(t.TempDir(), "manifest.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	} {
		t.Run(c.name, func(t *testing.T) { concurrentManifests(t, newFixtureOn(t, c.store(t))) })
	}
}

func concurrentManifests(t *testing.T, f *fixture) {
	var want []string
	for i := range 6 {
		sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request(fmt.Sprint("S", i))))
		want = append(want, numbers(sh)...)
	}
	const closes = 8
	var wg sync.WaitGroup
	ms := make([]*shipment.Manifest, closes)
	errs := make([]error, closes)
	for i := range closes {
		wg.Go(func() {
			ms[i], errs[i] = f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"})
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for i := range closes {
		if errs[i] != nil {
			if kindOf(errs[i]) != "conflict" {
				t.Errorf("close %d: %v", i, errs[i])
			}
			continue
		}
		for _, p := range ms[i].Parcels {
			seen[p.TrackingNumber]++
		}
	}
	for _, tn := range want {
		if seen[tn] != 1 {
			t.Errorf("%s is in %d manifests, want 1", tn, seen[tn])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d parcels manifested, want %d", len(seen), len(want))
	}
}

func TestManifestRequestIsChecked(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		req  shipment.CreateManifestRequest
		want []string
	}{
		{shipment.CreateManifestRequest{PickupDate: "2026-11-20"}, []string{"carrier"}},
		{shipment.CreateManifestRequest{Carrier: "north"}, []string{"pickup_date"}},
		{shipment.CreateManifestRequest{Carrier: "north", PickupDate: "20.11.2026"}, []string{"pickup_date"}},
		{shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-12"}, []string{"pickup_date"}},
		{shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-12-21"}, []string{"pickup_date"}},
	} {
		_, err := f.svc.CreateManifest(ctx, site, c.req)
		if kindOf(err) != "invalid argument" || !cmp.Equal(fieldsOf(err), c.want) {
			t.Errorf("%+v: %s %v, want invalid argument naming %v", c.req, kindOf(err), fieldsOf(err), c.want)
		}
	}
}

// A manifest goes Options.Retention after it was made, with the sweep
// that deletes the shipments.
func TestManifestRetention(t *testing.T) {
	f := newFixtureWith(t, func(o *shipment.Options) { o.Retention = 10 * 24 * time.Hour })
	must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("A")))
	m := must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	for _, c := range []struct {
		after time.Duration
		want  string
	}{{9 * 24 * time.Hour, "ok"}, {10*24*time.Hour + time.Second, "not found"}} {
		if _, err := f.svc.Sweep(ctx, t0.Add(c.after), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.GetManifest(ctx, site, m.ID); kindOf(err) != c.want {
			t.Errorf("%v after: %s, want %s", c.after, kindOf(err), c.want)
		}
	}
}
