package tracking

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/recordtest"
	"github.com/deliverykit/deliverykit/storage"
)

// TestParcelsFromCachesIsFresh holds GET /parcels, which reads its records
// through the caches of decoded records, to the answer of a new Service
// on the same store (empty caches) after every kind of change of the
// order or the parcel: an answer from a stale record would differ.
func TestParcelsFromCachesIsFresh(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tos := f.setup(t)
	fresh := func(t *testing.T) *Service {
		t.Helper()
		svc, err := New(f.svc.store, f.svc.opts)
		if err != nil {
			t.Fatal(err)
		}
		return svc
	}
	// scanning reads with Scan where f.svc's memory store lists versions
	// (storage.VersionScanner): both ways to its caches are held.
	scanning, err := New(scanStore{f.svc.store}, f.svc.opts)
	if err != nil {
		t.Fatal(err)
	}
	q := ParcelsQuery{TrackingNumber: "TN1"}
	changes := []struct {
		name   string
		change func() error
	}{
		{"as created", func() error { return nil }},
		{"step", func() error {
			return f.svc.RecordEvent(ctx, "site-a", ev(StepSubmittedToCarrier, "", "2026-11-20T12:00:00Z"))
		}},
		{"alert with an estimate", func() error {
			return f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-20T13:00:00Z", Alert: AlertAwaitingSupplier,
				EstimatedTime: &DateTimeRange{Start: "2026-11-24T08:00:00Z", End: "2026-11-24T18:00:00Z"}})
		}},
		{"new estimate", func() error {
			return f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-21T09:00:00Z", Step: StepOnRoute,
				EstimatedTime: &DateTimeRange{Start: "2026-11-23T08:00:00Z", End: "2026-11-23T18:00:00Z"}})
		}},
		{"lines cancelled", func() error {
			return f.svc.CancelOrderLines(ctx, "site-a", CancelOrderLinesRequest{OrderID: tos, Lines: []CancelledLine{{SKU: "MUG", CancelledQuantity: 1}}})
		}},
		{"link rotated", func() error {
			_, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{SiteID: "site-a", Locale: "sv-SE", OrderID: tos, Rotate: true})
			return err
		}},
		{"past the promised delivery", func() error { f.clock.Advance(5 * 24 * time.Hour); return nil }},
		{"delivered", func() error {
			return f.svc.RecordEvent(ctx, "site-a", ev(StepDeliveredToPickupPoint, "", "2026-11-23T10:00:00Z"))
		}},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			if err := c.change(); err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second read is served from the caches
				want, err := fresh(t).Parcels(ctx, "site-a", q)
				if err != nil {
					t.Fatal(err)
				}
				for _, svc := range []*Service{f.svc, scanning} {
					got, err := svc.Parcels(ctx, "site-a", q)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("answer from the caches differs (-fresh +cached):\n%s", diff)
					}
				}
			}
		})
	}
	orders, _ := f.svc.orderCache.Bytes()
	parcels, _ := f.svc.parcelCache.Bytes()
	if scanned, _ := scanning.parcelCache.Bytes(); orders == 0 || parcels == 0 || scanned == 0 {
		t.Errorf("caches hold %d, %d and %d bytes: the reads did not use them", orders, parcels, scanned)
	}
}

// scanStore is a store whose transactions have no ScanVersions.
type scanStore struct{ storage.Store }

func (s scanStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(struct{ storage.Tx }{tx}) })
}

// TestParcelsShareNoMemoryWithCaches: nothing a caller of Parcels can
// modify (a pointed-to value, a slice's or a map's contents) is memory of
// a cached record, which every later read shares. The order and parcel
// set every pointer the answer can carry.
func TestParcelsShareNoMemoryWithCaches(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.setup(t)
	for _, e := range []Event{
		ev(StepSubmittedToCarrier, "", "2026-11-20T12:00:00Z"),
		{TrackingNumber: "TN1", Time: "2026-11-20T13:00:00Z", Alert: AlertAwaitingSupplier,
			EstimatedTime: &DateTimeRange{Start: "2026-11-24T08:00:00Z", End: "2026-11-24T18:00:00Z"}},
		{TrackingNumber: "TN1", Time: "2026-11-21T09:00:00Z", Step: StepOnRoute, Alert: AlertOutForDelivery,
			EstimatedTime: &DateTimeRange{Start: "2026-11-23T08:00:00Z", End: "2026-11-23T18:00:00Z"}},
	} {
		if err := f.svc.RecordEvent(ctx, "site-a", e); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Advance(5 * 24 * time.Hour) // delay alerts too
	var answers []*GetTrackingParcelsResponse
	for range 2 {
		a, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, a)
	}
	cached := map[uintptr]string{}
	for k, v := range f.svc.orderCache.All() {
		recordtest.MemoryOf(reflect.ValueOf(v).Elem(), "order "+k, cached)
	}
	for k, v := range f.svc.parcelCache.All() {
		recordtest.MemoryOf(reflect.ValueOf(v).Elem(), "parcel "+k, cached)
	}
	if len(cached) == 0 {
		t.Fatal("the caches hold nothing")
	}
	for i, a := range answers {
		got := map[uintptr]string{}
		recordtest.MemoryOf(reflect.ValueOf(a).Elem(), "answer", got)
		for p, path := range got {
			if in, ok := cached[p]; ok {
				t.Errorf("read %d: %s is memory of the cached %s", i+1, path, in)
			}
		}
	}
	if a := answers[1].Parcels[0]; a.Destination == nil || a.EstimatedDeliveryTime == nil || len(a.Alerts) < 2 || a.CurrentProgress == nil {
		t.Errorf("the answer lacks what the test checks: %+v", a)
	}
}
