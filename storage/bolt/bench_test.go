package bolt

// The benchmarks of this file put the bolt Store next to raw bbolt doing the
// same work, so the cost of the storage layer shows as a ratio:
//
//	go test -run '^$' -bench . -benchmem ./storage/bolt
//
// Both use the same bbolt options (boltOptions(nil)) and real fsync: the
// commit is most of the cost of a write, and leaving it out would inflate the
// ratio with a cost no deployment sees. Raw bbolt copies what it reads out
// of the transaction, as any user of bbolt must to use it afterwards.

import (
	"bytes"
	"path/filepath"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

func BenchmarkBolt(b *testing.B) {
	storagetest.Benchmark(b, func(b *testing.B) storage.Store {
		s, err := Open(filepath.Join(b.TempDir(), "bench.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

var rawBucket = []byte(storagetest.BenchCollection)

var (
	sinkKey   string
	sinkValue []byte
)

func BenchmarkRawBbolt(b *testing.B) {
	b.Run("Put", func(b *testing.B) {
		db := openRaw(b)
		val := storagetest.BenchValue(storagetest.BenchValueSize)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			key := []byte(storage.Uint64Key(uint64(i % storagetest.BenchPutKeys)))
			if err := db.Update(func(tx *bbolt.Tx) error {
				return tx.Bucket(rawBucket).Put(key, val)
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get", func(b *testing.B) {
		db := openRaw(b)
		loadRaw(b, db, storagetest.BenchReadKeys, storagetest.BenchValueSize)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			key := []byte(storage.Uint64Key(uint64(i % storagetest.BenchReadKeys)))
			if err := db.View(func(tx *bbolt.Tx) error {
				v := bytes.Clone(tx.Bucket(rawBucket).Get(key))
				if len(v) != storagetest.BenchValueSize {
					b.Fatalf("value of %d bytes", len(v))
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("CAS", func(b *testing.B) {
		// bbolt has no versions: the nearest raw equivalent is a Get and
		// a Put of the same key in one read-write transaction.
		db := openRaw(b)
		loadRaw(b, db, storagetest.BenchReadKeys, storagetest.BenchValueSize)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			key := []byte(storage.Uint64Key(uint64(i % storagetest.BenchReadKeys)))
			if err := db.Update(func(tx *bbolt.Tx) error {
				bk := tx.Bucket(rawBucket)
				return bk.Put(key, bytes.Clone(bk.Get(key)))
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Scan", func(b *testing.B) {
		db := openRaw(b)
		loadRaw(b, db, storagetest.BenchScanKeys, storagetest.BenchScanValueSize)
		after := []byte(storagetest.BenchScanAfter)
		b.ReportAllocs()
		for b.Loop() {
			if err := db.View(func(tx *bbolt.Tx) error {
				c := tx.Bucket(rawBucket).Cursor()
				k, v := c.Seek(after)
				if bytes.Equal(k, after) {
					k, v = c.Next()
				}
				n := 0
				for ; k != nil && n < storagetest.BenchScanPage; k, v = c.Next() {
					// Materialize what a Record holds; the sinks keep the
					// compiler from dropping the copies.
					sinkKey, sinkValue = string(k), bytes.Clone(v)
					n++
				}
				if n != storagetest.BenchScanPage {
					b.Fatalf("scanned %d records; want %d", n, storagetest.BenchScanPage)
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// openRaw opens a bbolt file with the options Open uses, with the benchmark
// bucket created.
func openRaw(b *testing.B) *bbolt.DB {
	b.Helper()
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, boltOptions(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := db.Close(); err != nil {
			b.Error(err)
		}
	})
	if err := db.Update(func(tx *bbolt.Tx) error {
		_, err := tx.CreateBucket(rawBucket)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	return db
}

// loadRaw is storagetest's load for raw bbolt: n records of size bytes,
// storagetest.BenchLoadBatch per transaction.
func loadRaw(b *testing.B, db *bbolt.DB, n, size int) {
	b.Helper()
	val := storagetest.BenchValue(size)
	for start := 0; start < n; start += storagetest.BenchLoadBatch {
		if err := db.Update(func(tx *bbolt.Tx) error {
			bk := tx.Bucket(rawBucket)
			for i := start; i < min(start+storagetest.BenchLoadBatch, n); i++ {
				if err := bk.Put([]byte(storage.Uint64Key(uint64(i))), val); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
