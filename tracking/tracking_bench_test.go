package tracking

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/storage"
)

// benchMillion adds the 1,000,000-parcel size, which takes a while to
// build: go test -run '^$' -bench Lookup ./tracking -tracking.million
// (-bench.store bolt or postgres: on that store; package teststore).
var benchMillion = flag.Bool("tracking.million", false, "also benchmark lookups among 1,000,000 parcels")

func benchSizes() []int {
	sizes := []int{1_000, 10_000, 100_000}
	if *benchMillion {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// seed writes n orders with one parcel each straight into a new store of
// -bench.store's kind, in batches, the way CreateOrder and CreateParcel
// store them.
func seed(b *testing.B, n int) *Service {
	b.Helper()
	store := teststore.Open(b)
	svc, err := New(store, Options{Products: testProducts, Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		b.Fatal(err)
	}
	req := orderReq("")
	const batch = 10_000
	for start := 0; start < n; start += batch {
		err := store.Update(context.Background(), func(tx storage.Tx) error {
			for i := start; i < min(start+batch, n); i++ {
				tos, tn, tok := fmt.Sprintf("tos_%08d", i), fmt.Sprintf("TN%08d", i), fmt.Sprintf("tt_%08d", i)
				r := req
				r.ExternalID = fmt.Sprintf("ORD-%08d", i)
				o := orderRecord{TosID: tos, Token: tok, Request: r, CreatedAt: t0, Parcels: []parcelRef{{tn, "fastpost"}}}
				if _, err := orders.Put(tx, storage.Key("site-a", tos), o, storage.AnyVersion); err != nil {
					return err
				}
				if _, err := ordersByExtID.Put(tx, storage.Key("site-a", r.ExternalID), idRecord{TosID: tos}, storage.AnyVersion); err != nil {
					return err
				}
				if _, err := tokens.Put(tx, tok, tokenRecord{Site: "site-a", TosID: tos}, storage.AnyVersion); err != nil {
					return err
				}
				p := parcelRecord{TosID: tos, CarrierID: "fastpost", Request: parcelReq(tos, tn), CreatedAt: t0,
					Progress: []ProgressItem{{Step: StepOnRoute, Time: "2026-11-20T10:00:00Z"}}}
				if _, err := parcels.Put(tx, parcelKey("site-a", tn, "fastpost"), p, storage.AnyVersion); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return svc
}

// BenchmarkLookupByTrackingNumber measures GET /parcels?tracking_number=
// (index range read plus the order read and the view) as the number of
// parcels grows; the time per lookup should stay flat.
func BenchmarkLookupByTrackingNumber(b *testing.B) {
	for _, n := range benchSizes() {
		svc := seed(b, n)
		b.Run(fmt.Sprintf("parcels=%d", n), func(b *testing.B) {
			ctx := context.Background()
			i := 0
			for b.Loop() {
				if _, err := svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: fmt.Sprintf("TN%08d", i%n)}); err != nil {
					b.Fatal(err)
				}
				i += 7919
			}
		})
	}
}

// BenchmarkLookupByToken measures the customer page's read by token.
func BenchmarkLookupByToken(b *testing.B) {
	for _, n := range benchSizes() {
		svc := seed(b, n)
		b.Run(fmt.Sprintf("parcels=%d", n), func(b *testing.B) {
			ctx := context.Background()
			i := 0
			for b.Loop() {
				if _, err := svc.OrderByToken(ctx, fmt.Sprintf("tt_%08d", i%n), "en"); err != nil {
					b.Fatal(err)
				}
				i += 7919
			}
		})
	}
}

// BenchmarkRecordEvent measures a carrier event on one of 100,000 parcels.
func BenchmarkRecordEvent(b *testing.B) {
	const n = 100_000
	svc := seed(b, n)
	ctx := context.Background()
	at := t0
	i := 0
	for b.Loop() {
		at = at.Add(time.Second)
		ev := Event{TrackingNumber: fmt.Sprintf("TN%08d", i%n), Time: at.Format(time.RFC3339), Step: StepOnRoute}
		if err := svc.RecordEvent(ctx, "site-a", ev); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}

// BenchmarkSweep measures sweeping one order (with its parcel, token and
// index entries) among 100,000 stored ones, a transaction to read the due
// entry and one to delete: what a sweep costs per deleted order. Run it
// with -benchtime=20000x or fewer: it runs out of orders at 100,000.
func BenchmarkSweep(b *testing.B) {
	const n = 100_000
	svc := seed(b, n)
	svc.opts.Retention.Tracking = 24 * time.Hour
	ctx := context.Background()
	// The seeded orders have no index entries: the first sweep builds
	// them (nothing is due yet).
	if _, err := svc.Sweep(ctx, t0, 0); err != nil {
		b.Fatal(err)
	}
	now := t0.Add(48 * time.Hour)
	for b.Loop() {
		if got, err := svc.Sweep(ctx, now, 1); err != nil || got != 1 {
			b.Fatalf("Sweep = %d, %v; want 1 (run with -benchtime=20000x)", got, err)
		}
	}
}
