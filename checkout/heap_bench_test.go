package checkout

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// heapSessions is how many active sessions BenchmarkSessionHeap stores:
// the heap target of BENCHMARKS.md ("Targets") is measured over 100k.
const heapSessions = 100_000

// BenchmarkSessionHeap reports the live heap per stored active checkout
// session in the memory store (BENCHMARKS.md, "Targets": ≤ 8 KiB), measured
// after a full GC over heapSessions sessions, each with its own cart:
//
//	go test -run '^$' -bench SessionHeap -benchtime 1x ./checkout
//
// It counts everything a session keeps alive: its record, its widget token
// record, and the store's tree nodes and items for both.
func BenchmarkSessionHeap(b *testing.B) {
	engines, err := NewEngines(config.Demo().Catalogs(), options.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		store := memory.New()
		svc, err := New(store, Options{Engines: engines, IDs: deliverykit.RandomIDs{}})
		if err != nil {
			b.Fatal(err)
		}
		before := liveHeap()
		req := createRequest()
		for i := range heapSessions {
			req.Cart.CartID = fmt.Sprintf("cart-%d", i)
			if _, err := svc.Create(ctx, "demo-site", req); err != nil {
				b.Fatal(err)
			}
		}
		after := liveHeap()
		b.ReportMetric(float64(after-before)/heapSessions, "heapB/session")
		runtime.KeepAlive(svc)
		store.Close()
	}
}

func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
