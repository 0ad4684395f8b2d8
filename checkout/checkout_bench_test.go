package checkout

import (
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func benchCreate(b *testing.B, store storage.Store) {
	engines, err := NewEngines(config.Demo().Catalogs(), options.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := New(store, Options{Engines: engines, IDs: deliverykit.RandomIDs{}})
	if err != nil {
		b.Fatal(err)
	}
	req := createRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Create(ctx, "demo-site", req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreate is session.create in process: validation, options
// computation, two records written, the view rendered.
func BenchmarkCreate(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchCreate(b, memory.New()) })
	b.Run("bolt", func(b *testing.B) {
		s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchCreate(b, s)
	})
}

// BenchmarkCheck is the validation of a create request by its tags, the
// first step of Create.
func BenchmarkCheck(b *testing.B) {
	req := createRequest()
	b.ReportAllocs()
	for b.Loop() {
		if err := check(&req); err != nil {
			b.Fatal(err)
		}
	}
}
