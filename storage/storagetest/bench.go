package storagetest

import (
	"context"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
)

// The workload of Benchmark. They are exported so that a backend can run
// the same workload on its underlying engine and report the overhead of its
// storage layer as a ratio (storage/bolt does this for raw bbolt).
const (
	// BenchValueSize is the value size of the Put, Get and CAS benchmarks.
	BenchValueSize = 2 << 10
	// BenchPutKeys is how many distinct keys the Put benchmark cycles
	// through, so that memory use stays bounded however long it runs.
	BenchPutKeys = 10_000
	// BenchReadKeys is how many records Get and CAS cycle through.
	BenchReadKeys = 1_000
	// BenchScanKeys is the size of the collection the Scan benchmark pages
	// through; BenchScanPage is its page size and BenchScanValueSize the
	// size of each value.
	BenchScanKeys      = 100_000
	BenchScanPage      = 100
	BenchScanValueSize = 256
	// BenchLoadBatch is how many records one Update writes while loading.
	BenchLoadBatch = 1_000
)

// BenchCollection is the collection every benchmark uses.
const BenchCollection = "bench"

// BenchValue returns a deterministic value of n bytes.
func BenchValue(n int) []byte {
	v := make([]byte, n)
	for i := range v {
		v[i] = byte('a' + i%26)
	}
	return v
}

// BenchScanAfter is the After key of the Scan benchmark: a page from the
// middle of the collection, so neither end of the key space is favoured.
var BenchScanAfter = storage.Uint64Key(BenchScanKeys / 2)

// Benchmark runs the standard benchmarks against stores returned by open,
// which must return a new, empty store; Benchmark closes it. Each
// sub-benchmark loads its data before timing starts:
//
//   - Put: one Update storing a BenchValueSize value.
//   - Get: one View reading a BenchValueSize value.
//   - CAS: one Update that Gets a record and Puts it back with VersionIs.
//   - Scan: one View reading BenchScanPage records after BenchScanAfter
//     from a collection of BenchScanKeys.
func Benchmark(b *testing.B, open func(b *testing.B) storage.Store) {
	b.Run("Put", func(b *testing.B) {
		s := openBench(b, open)
		val := BenchValue(BenchValueSize)
		ctx := context.Background()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			key := storage.Uint64Key(uint64(i % BenchPutKeys))
			if err := s.Update(ctx, func(tx storage.Tx) error {
				_, err := tx.Put(BenchCollection, key, val, storage.AnyVersion)
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		s := openBench(b, open)
		load(b, s, BenchReadKeys, BenchValueSize)
		ctx := context.Background()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			key := storage.Uint64Key(uint64(i % BenchReadKeys))
			if err := s.View(ctx, func(tx storage.Tx) error {
				rec, err := tx.Get(BenchCollection, key)
				if err == nil && len(rec.Value) != BenchValueSize {
					b.Fatalf("value of %d bytes", len(rec.Value))
				}
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CAS", func(b *testing.B) {
		s := openBench(b, open)
		load(b, s, BenchReadKeys, BenchValueSize)
		ctx := context.Background()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			key := storage.Uint64Key(uint64(i % BenchReadKeys))
			if err := s.Update(ctx, func(tx storage.Tx) error {
				rec, err := tx.Get(BenchCollection, key)
				if err != nil {
					return err
				}
				_, err = tx.Put(BenchCollection, key, rec.Value, storage.VersionIs(rec.Version))
				return err
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Scan", func(b *testing.B) {
		s := openBench(b, open)
		load(b, s, BenchScanKeys, BenchScanValueSize)
		ctx := context.Background()
		r := storage.Range{After: BenchScanAfter, Limit: BenchScanPage}
		b.ReportAllocs()
		for b.Loop() {
			if err := s.View(ctx, func(tx storage.Tx) error {
				n := 0
				for _, err := range tx.Scan(BenchCollection, r) {
					if err != nil {
						return err
					}
					n++
				}
				if n != BenchScanPage {
					b.Fatalf("scanned %d records; want %d", n, BenchScanPage)
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func openBench(b *testing.B, open func(b *testing.B) storage.Store) storage.Store {
	b.Helper()
	s := open(b)
	b.Cleanup(func() {
		if err := s.Close(); err != nil {
			b.Errorf("Close: %v", err)
		}
	})
	return s
}

// load stores n records with keys Uint64Key(0..n-1) and values of size
// bytes, BenchLoadBatch per Update.
func load(b *testing.B, s storage.Store, n, size int) {
	b.Helper()
	val := BenchValue(size)
	for start := 0; start < n; start += BenchLoadBatch {
		if err := s.Update(context.Background(), func(tx storage.Tx) error {
			for i := start; i < min(start+BenchLoadBatch, n); i++ {
				if _, err := tx.Put(BenchCollection, storage.Uint64Key(uint64(i)), val, storage.AnyVersion); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
