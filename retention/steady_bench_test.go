package retention_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/retentiontest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

var (
	steadySessions = flag.Int("steady.sessions", 1_000_000, "checkout sessions BenchmarkSteadyState creates over its simulated month")
	steadyKeep     = flag.Int("steady.keep", 2, "days BenchmarkSteadyState keeps a session after it expired")
)

// BenchmarkSteadyState simulates a month of a shop at a constant rate of
// checkout session creates (-steady.sessions over 30 days, evenly spaced on
// a manual clock), each session expiring after the default day and kept
// -steady.keep more days (retention.Policy.ActiveSessions; 2: about a
// tenth of the sessions are alive at any time once three days have
// passed). The sweeper runs every simulated hour. At the end of each day
// it reports the live heap after a GC and, on bolt, the file's size and
// the bytes in use (bolt.Store.InUse; the file is allocated ahead, 256 MiB
// at first); and at the end the records a sweep touched per session it
// deleted. The store must stop growing: day 30 within 1.2× of day 10.
//
//	go test ./retention -run '^$' -bench SteadyState -benchtime 1x -v
func BenchmarkSteadyState(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		for range b.N {
			steady(b, memory.New(), nil)
		}
	})
	b.Run("bolt", func(b *testing.B) {
		path := filepath.Join(b.TempDir(), "steady.db")
		for range b.N {
			os.Remove(path)
			// NoSync: the file's size is what is measured, not fsync.
			s, err := bolt.Open(path, &bolt.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			steady(b, s, s)
		}
	})
}

func steady(b *testing.B, store storage.Store, bs *bolt.Store) {
	defer store.Close()
	ctx := context.Background()
	const days = 30
	perDay := *steadySessions / days
	step := 24 * time.Hour / time.Duration(perDay)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	policy := retention.Policy{ActiveSessions: time.Duration(*steadyKeep) * 24 * time.Hour}
	svc, err := checkout.New(store, checkout.Options{Engines: engines, Clock: clock, IDs: deliverykit.RandomIDs{Clock: clock}, Retention: policy})
	if err != nil {
		b.Fatal(err)
	}
	// The sweeper's service counts what its sweeps touch.
	counting := &retentiontest.Counting{Store: store}
	sweeper, err := checkout.New(counting, checkout.Options{Engines: engines, Clock: clock, Retention: policy})
	if err != nil {
		b.Fatal(err)
	}
	req := checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart:          &checkout.Cart{CartID: "cart-1", TotalValue: 45000, Items: []checkout.CartItem{{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 45000}}},
		SearchAddress: &checkout.SearchAddress{PostalCode: "118 26"}}
	var (
		table   strings.Builder
		heap    [days + 1]float64
		file    [days + 1]float64
		inUse   [days + 1]float64
		deleted int
	)
	fmt.Fprintf(&table, "%-4s %10s %10s %12s %12s %12s\n", "day", "created", "deleted", "live heap", "file", "in use")
	nextSweep := start.Add(time.Hour)
	created := 0
	b.ResetTimer()
	for day := 1; day <= days; day++ {
		for range perDay {
			if _, err := svc.Create(ctx, "demo-site", req); err != nil {
				b.Fatal(err)
			}
			created++
			clock.Advance(step)
			if now := clock.Now(); !now.Before(nextSweep) {
				n, err := sweeper.Sweep(ctx, now, 0)
				if err != nil {
					b.Fatal(err)
				}
				deleted += n
				nextSweep = nextSweep.Add(time.Hour)
			}
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap[day] = float64(ms.HeapAlloc) / (1 << 20)
		if bs != nil {
			st, err := os.Stat(bs.Path())
			if err != nil {
				b.Fatal(err)
			}
			n, err := bs.InUse(ctx)
			if err != nil {
				b.Fatal(err)
			}
			file[day], inUse[day] = float64(st.Size())/(1<<20), float64(n)/(1<<20)
		}
		fmt.Fprintf(&table, "%-4d %10d %10d %8.1f MiB %8.1f MiB %8.1f MiB\n", day, created, deleted, heap[day], file[day], inUse[day])
		b.StartTimer()
	}
	b.StopTimer()
	b.Logf("%d sessions a day, swept hourly:\n%s", perDay, table.String())
	b.ReportMetric(heap[10], "heap-day10-MiB")
	b.ReportMetric(heap[30], "heap-day30-MiB")
	if bs != nil {
		b.ReportMetric(file[10], "file-day10-MiB")
		b.ReportMetric(file[30], "file-day30-MiB")
		b.ReportMetric(inUse[10], "inuse-day10-MiB")
		b.ReportMetric(inUse[30], "inuse-day30-MiB")
	}
	if deleted > 0 {
		b.ReportMetric(float64(counting.Touched.Load())/float64(deleted), "touched/deleted")
	}
	b.ReportMetric(float64(created-deleted), "live-sessions")
	if heap[30] > 1.2*heap[10] || file[30] > 1.2*file[10] || inUse[30] > 1.2*inUse[10] {
		b.Errorf("no plateau: live heap day 10 %.1f MiB, day 30 %.1f MiB; file day 10 %.1f MiB, day 30 %.1f MiB; in use day 10 %.1f MiB, day 30 %.1f MiB",
			heap[10], heap[30], file[10], file[30], inUse[10], inUse[30])
	}
}
