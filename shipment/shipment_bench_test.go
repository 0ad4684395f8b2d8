package shipment_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkCreateAndBook measures the whole create → book → pickup call
// in process with the demo carrier keeping its bookings in the same store:
// per shipment two carrier writes (book, pickup), one shipment commit and
// the outbox events written in that commit.
func BenchmarkCreateAndBook(b *testing.B) {
	for _, backend := range []struct {
		name string
		open func(b *testing.B) storage.Store
	}{
		{"memory", func(*testing.B) storage.Store { return memory.New() }},
		{"bolt", func(b *testing.B) storage.Store {
			s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	} {
		b.Run(backend.name, func(b *testing.B) {
			store := backend.open(b)
			defer store.Close()
			demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
			if err != nil {
				b.Fatal(err)
			}
			svc, err := shipment.New(store, shipment.Options{
				Products: testProducts, DefaultCarrier: demo, TrackingLink: func(token string) string { return "https://track.test/" + token },
				Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				req := request(fmt.Sprintf("EXT-%d", i))
				req.PickupWindow = pickupWindow()
				if _, err := svc.CreateAndBook(ctx, site, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLabelPDF measures rendering one label on request.
func BenchmarkLabelPDF(b *testing.B) {
	f := newFixture(b)
	sh := must[*shipment.Shipment](b)(f.svc.CreateAndBook(ctx, site, request("")))
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := f.svc.Label(ctx, site, tn, shipment.LabelPDF); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateManifestScan measures what a close costs on a site's
// history: a close among 10,000 manifested shipments that finds nothing
// left, and a close of 50 new parcels among them. A close reads the
// carrier's pending parcels (pending.go), not the site's shipments, so
// neither grows with the history.
func BenchmarkCreateManifestScan(b *testing.B) {
	f := newFixtureWith(b, nil)
	for i := range 10_000 {
		if _, err := f.svc.CreateAndBook(ctx, site, request(fmt.Sprintf("OLD-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	close := shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}
	// MaxManifestParcels at a time, until none is left.
	for {
		if _, err := f.svc.CreateManifest(ctx, site, close); err != nil {
			break
		}
	}
	b.Run("nothing-left", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.svc.CreateManifest(ctx, site, close); deliverykit.KindOf(err) != deliverykit.KindConflict {
				b.Fatal(err)
			}
		}
	})
	n := 0 // across the sub-benchmark's runs: every shipment is new
	b.Run("50-new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			for range 50 {
				n++
				if _, err := f.svc.CreateAndBook(ctx, site, request(fmt.Sprintf("NEW-%d", n))); err != nil {
					b.Fatal(err)
				}
			}
			b.StartTimer()
			if _, err := f.svc.CreateManifest(ctx, site, close); err != nil {
				b.Fatal(err)
			}
		}
	})
}
