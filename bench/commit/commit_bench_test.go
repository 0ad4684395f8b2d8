package commit

import (
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"go.etcd.io/bbolt"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// parallelism × GOMAXPROCS writers: 32 on the 2-core reference machine.
const parallelism = 16

var ctx = context.Background()

func createRequest() checkout.CreateRequest {
	return checkout.CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.Cart{CartID: "order-1001", TotalValue: 45000, Items: []checkout.CartItem{
			{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 45000},
		}},
		SearchAddress: &checkout.SearchAddress{PostalCode: "111 57", Country: "SE"},
	}
}

func newCheckout(tb testing.TB, store storage.Store) *checkout.Service {
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	svc, err := checkout.New(store, checkout.Options{Engines: engines, IDs: deliverykit.RandomIDs{}})
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// recordSize is the size of the stored records of one created checkout
// session (the session and its widget token), so that the raw writes put
// as many bytes per operation as a create does.
func recordSize(tb testing.TB) int {
	store := memory.New()
	defer store.Close()
	if _, err := newCheckout(tb, store).Create(ctx, "demo-site", createRequest()); err != nil {
		tb.Fatal(err)
	}
	n := 0
	if err := store.View(ctx, func(tx storage.Tx) error {
		for _, coll := range []string{"checkout.sessions", "checkout.widget_tokens"} {
			for rec, err := range tx.Scan(coll, storage.Range{}) {
				if err != nil {
					return err
				}
				n += len(rec.Key) + len(rec.Value)
			}
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	if n == 0 {
		tb.Fatal("no checkout records found: collection names changed?")
	}
	return n
}

// rounds is how many times the three writers alternate in one run, so that
// a slow phase of a shared machine's disk hits all three alike.
const rounds = 3

func BenchmarkGroupCommit(b *testing.B) {
	size := recordSize(b)
	value := make([]byte, size)
	rand.Read(value)
	b.Logf("value size %d bytes, %d writers", size, parallelism*runtime.GOMAXPROCS(0))
	for round := 1; round <= rounds; round++ {
		b.Run(fmt.Sprintf("raw-bbolt-batch/round=%d", round), func(b *testing.B) { benchRawBatch(b, value) })
		b.Run(fmt.Sprintf("store-put/round=%d", round), func(b *testing.B) { benchStorePut(b, value) })
		b.Run(fmt.Sprintf("checkout-create/round=%d", round), func(b *testing.B) { benchCreate(b, size) })
	}
}

// benchRawBatch is bbolt's own batched write of value under new keys.
func benchRawBatch(b *testing.B, value []byte) {
	db, err := bbolt.Open(filepath.Join(b.TempDir(), "raw.db"), 0o600, &bbolt.Options{InitialMmapSize: 256 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	bucket := []byte("c")
	if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucketIfNotExists(bucket); return err }); err != nil {
		b.Fatal(err)
	}
	var seq atomic.Uint64
	b.SetParallelism(parallelism)
	b.SetBytes(int64(len(value)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := []byte(storage.Uint64Key(seq.Add(1)))
			if err := db.Batch(func(tx *bbolt.Tx) error { return tx.Bucket(bucket).Put(key, value) }); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchStorePut is the same write through storage/bolt's Update.
func benchStorePut(b *testing.B, value []byte) {
	s := openStore(b)
	var seq atomic.Uint64
	b.SetParallelism(parallelism)
	b.SetBytes(int64(len(value)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := storage.Uint64Key(seq.Add(1))
			if err := s.Update(ctx, func(tx storage.Tx) error {
				_, err := tx.Put("c", key, value, storage.MustNotExist())
				return err
			}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchCreate is checkout.Service.Create on storage/bolt.
func benchCreate(b *testing.B, size int) {
	svc := newCheckout(b, openStore(b))
	req := createRequest()
	b.SetParallelism(parallelism)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := svc.Create(ctx, "demo-site", req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func openStore(b *testing.B) *bolt.Store {
	s, err := bolt.Open(filepath.Join(b.TempDir(), "store.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// TestRecordSize keeps the benchmark honest: the raw writes must carry as
// many bytes as a checkout create stores.
func TestRecordSize(t *testing.T) {
	if n := recordSize(t); n < 200 {
		t.Errorf("record size %d bytes: too small for a session with options", n)
	}
}
