package promise_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/storage"
)

// storedBytes is the size of every stored record of coll.
func storedBytes(t testing.TB, st storage.Store, coll string) (records, bytes int) {
	t.Helper()
	err := st.View(context.Background(), func(tx storage.Tx) error {
		for rec, err := range tx.Scan(coll, storage.Range{}) {
			if err != nil {
				return err
			}
			records++
			bytes += len(rec.Key) + len(rec.Value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return records, bytes
}

// TestSketchSize: a key's record stays the same size however many parcels
// it learned from, and is bounded by MaxBins whatever their lead times.
func TestSketchSize(t *testing.T) {
	var sizes []int
	for _, n := range []int{100, 1000, 3000} {
		f := newFixture(t)
		for i := range n {
			// Lead times spread from a day to two weeks of business hours.
			f.deliver(t, parcel{tos: fmt.Sprintf("o%05d", i), product: "north-parcel-home", postal: "111 57",
				earliest: at(1, 0), latest: at(2, 23), handover: at(0, 14), delivered: at(1+i%14, 8+i%9)})
		}
		keys, b := storedBytes(t, f.store, "promise.sketches")
		if keys != 3 {
			t.Fatalf("%d sketch records, want 3 (zone, country, product)", keys)
		}
		sizes = append(sizes, b/keys)
		t.Logf("%d parcels: %d bytes per key (key and record)", n, b/keys)
	}
	if sizes[2] > sizes[1]+16 {
		t.Errorf("bytes per key grew with the parcels: %v", sizes)
	}
	// The bound: MaxBins bins of a sign, a few bytes each, plus the
	// record's fields.
	if max := 2*promise.MaxBins*6 + 200; sizes[2] > max {
		t.Errorf("%d bytes per key, more than %d", sizes[2], max)
	}
}

// TestSweep: a pending order goes after PendingRetention, a day's
// tallies after ReportRetention; sketches stay.
func TestSweep(t *testing.T) {
	f := newFixture(t)
	f.deliver(t, parcel{tos: "done", product: "north-parcel-home", postal: "111 57", earliest: at(1, 0), latest: at(2, 23), handover: at(0, 14), delivered: at(2, 10)})
	f.deliver(t, parcel{tos: "waiting", product: "north-parcel-home", postal: "111 57", earliest: at(1, 0), latest: at(2, 23), handover: at(0, 14)})
	count := func() [3]int {
		var n [3]int
		for i, c := range []string{"promise.orders", "promise.tallies", "promise.sketches"} {
			n[i], _ = storedBytes(t, f.store, c)
		}
		return n
	}
	ctx := context.Background()
	for _, tt := range []struct {
		at   time.Time
		want [3]int // orders, tallies, sketches
	}{
		{at(89, 0), [3]int{2, 1, 3}},
		{at(91, 0), [3]int{0, 1, 3}},
		{at(2, 0).Add(promise.DefaultReportRetention - time.Hour), [3]int{0, 1, 3}},
		{at(3, 0).Add(promise.DefaultReportRetention), [3]int{0, 0, 3}},
	} {
		if _, err := f.svc.Sweep(ctx, tt.at, 0); err != nil {
			t.Fatal(err)
		}
		if got := count(); got != tt.want {
			t.Errorf("after a sweep at %s: %v records (orders, tallies, sketches), want %v", tt.at, got, tt.want)
		}
	}
}

// BenchmarkCompute: one options computation on the demo catalog for a
// Stockholm cart, with configured promises and with every product's
// promise learned from 1,000 parcels (read from the Service's cache).
func BenchmarkCompute(b *testing.B) {
	req := options.Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 45000,
		Items: []options.Item{{Quantity: 2, Weight: 400}}, Address: catalog.Address{Country: "SE", PostalCode: "111 57"}}
	for _, mode := range []catalog.PromiseMode{catalog.PromiseConfigured, catalog.PromiseLearned} {
		b.Run(string(mode), func(b *testing.B) {
			f := newFixture(b)
			for i := range 1000 {
				f.deliver(b, parcel{tos: fmt.Sprintf("o%05d", i), product: "north-parcel-home", postal: "111 57",
					earliest: at(1, 0), latest: at(2, 23), handover: at(0, 14), delivered: at(2+i%2, 8+i%9)})
			}
			s, _ := config.Demo().Site(site)
			s.Catalog.Promise = mode
			e, err := options.New(s.Catalog, options.Options{Clock: f.clock, LeadTimes: f.svc, Site: site})
			if err != nil {
				b.Fatal(err)
			}
			f.clock.Set(at(4, 0))
			ctx := context.Background()
			res, err := e.Compute(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if _, o, _ := res.Option("home/north-parcel-home"); mode == catalog.PromiseLearned && o.PromiseSource != options.SourceLearned {
				out, _ := json.Marshal(o)
				b.Fatalf("the learned product's option: %s", out)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Compute(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
