package idempotency

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkDo is the keeper's own cost, without HTTP: a call that writes
// one record of 1 KB and answers 4.5 KB (the size of a session.create
// answer), run
//
//   - "call": alone, without a key;
//   - "keyed": through Do with a key of its own;
//   - "floor": without the keeper, doing by hand what a keyed call must
//     do whatever the implementation: the request's digest, the key's
//     digest, the look for a stored answer, and the call's write with the
//     answer's head and body (in its entry) in the same Update, in the
//     keeper's own layout.
//
// keyed − floor is what the unit itself costs (its goroutine, the steps,
// the in-flight set); floor − call is the least a key can cost on that
// store. The stores grow during the run, as a server's do.
func BenchmarkDo(b *testing.B) {
	val := make([]byte, 1000)
	answer := make([]byte, 4500)
	for i := range answer {
		answer[i] = 'a'
	}
	body := []byte(`{"purchase_country":"SE","purchase_currency":"SEK","cart":{"total_value":45000,"items":[{"sku":"tent-2p","quantity":1,"price":45000}]}}`)
	const op = "POST /v1/siw/session.create"
	stores := []struct {
		name string
		open func(*testing.B) storage.Store
	}{
		{"memory", func(*testing.B) storage.Store { return memory.New() }},
		{"bolt", func(b *testing.B) storage.Store {
			s, err := bolt.Open(b.TempDir()+"/bench.db", nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		for _, mode := range []string{"call", "keyed", "floor"} {
			b.Run(st.name+"/"+mode, func(b *testing.B) {
				store := st.open(b)
				defer store.Close()
				k := New(Options{})
				k.Open(store)
				areas := k.Store(store)
				n := 0
				write := func(tx storage.Tx) error {
					n++
					_, err := tx.Put("records", "r"+strconv.Itoa(n), val, storage.MustNotExist())
					return err
				}
				call := func(ctx context.Context) (Answer, error) {
					return Answer{Status: 201, Body: answer}, areas.Update(ctx, write)
				}
				ctx := context.Background()
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					key := "bench-" + strconv.Itoa(i)
					var err error
					switch mode {
					case "call":
						_, err = call(ctx)
					case "keyed":
						_, _, err = k.Do(ctx, key, Request{Site: "s", Operation: op, Body: body}, call)
					case "floor":
						err = floor(ctx, k, store, key, op, body, write, answer)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// floor stores a keyed call's effect and answer as Do does, without a
// unit: see BenchmarkDo.
func floor(ctx context.Context, k *Keeper, store storage.Store, key, op string, body []byte, write func(storage.Tx) error, answer []byte) error {
	rk := recordKey("s", op, key)
	rec := newRecord(Hash(op, body), Answer{Status: 201, Body: answer}, k.clock.Now())
	if _, err := storage.Get(ctx, store, collKeys, rk); err == nil {
		return errReplay
	}
	return store.Update(ctx, func(tx storage.Tx) error {
		if err := write(tx); err != nil {
			return err
		}
		return k.put(tx, rk, rec, record{})
	})
}

// BenchmarkHash is the digest every keyed call computes before anything
// else: the body of bench/http's session.create, canonicalised.
func BenchmarkHash(b *testing.B) {
	body := []byte(`{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
  "cart": {"cart_id": "order-1001", "total_value": 45000,
           "items": [{"sku": "tent-2p", "name": "Tent", "quantity": 1, "price": 45000}]},
  "search_address": {"postal_code": "111 57", "country": "SE"}}`)
	b.ReportAllocs()
	for b.Loop() {
		Hash("POST /v1/siw/session.create", body)
	}
}

// BenchmarkOwnedIndexLoad is the first keyed call's scan after a start on
// an owned store: the index built from a day of answers' expiry keys. It
// reports the index's memory per answer.
func BenchmarkOwnedIndexLoad(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			store := memory.New()
			t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
			value := encodeOwned(nil, newRecord("h", Answer{Status: 201, Body: bytes.Repeat([]byte("x"), 64)}, t0))
			for i := 0; i < n; i += 1000 {
				err := store.Update(b.Context(), func(tx storage.Tx) error {
					for j := i; j < min(i+1000, n); j++ {
						rk := recordKey("site-"+strconv.Itoa(j%50), "POST /v1/siw/session.create", "key-"+strconv.Itoa(j))
						if _, err := tx.Put(expiry.Name, entryKey(rk, t0.Add(time.Duration(j)*time.Second)), value, storage.AnyVersion); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			var keep *ownedIndex
			for b.Loop() {
				ix := newOwnedIndex()
				if err := ix.load(b.Context(), store); err != nil {
					b.Fatal(err)
				}
				keep = &ix
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/answer")
			// What the last index holds: the heap with it, then without.
			var with, without runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&with)
			runtime.KeepAlive(keep)
			keep = nil
			runtime.GC()
			runtime.ReadMemStats(&without)
			b.ReportMetric(float64(int64(with.HeapAlloc)-int64(without.HeapAlloc))/float64(n), "index-B/answer")
		})
	}
}
