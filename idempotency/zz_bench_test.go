package idempotency_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"testing"

	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func BenchmarkZZ(b *testing.B) {
	val := make([]byte, 1000)
	body := make([]byte, 4500)
	for i := range body {
		body[i] = 'a'
	}
	reqBody := []byte(`{"a":1,"b":"xyz","c":[1,2,3]}`)
	for _, mode := range []string{"plain", "keyed", "inline"} {
		b.Run(mode, func(b *testing.B) {
			mem := memory.New()
			k := idempotency.New(idempotency.Options{})
			k.Open(mem)
			store := k.Store(mem)
			n := 0
			put := func(tx storage.Tx) error {
				n++
				_, err := tx.Put("recs", "k"+strconv.Itoa(n), val, storage.MustNotExist())
				return err
			}
			call := func(ctx context.Context) (idempotency.Answer, error) {
				err := store.Update(ctx, put)
				return idempotency.Answer{Status: 200, Body: body}, err
			}
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				switch mode {
				case "keyed":
					if _, _, err := k.Do(ctx, "key-"+strconv.Itoa(i), idempotency.Request{Site: "s", Operation: "POST /x", Body: reqBody}, call); err != nil {
						b.Fatal(err)
					}
				case "plain":
					if _, err := call(ctx); err != nil {
						b.Fatal(err)
					}
				case "inline":
					key := "key-" + strconv.Itoa(i)
					h := idempotency.Hash("POST /x", reqBody)
					sum := sha256.Sum256([]byte("POST /x\x00" + key))
					rk := "s/" + hex.EncodeToString(sum[:])
					if _, err := storage.Get(ctx, mem, "idem", rk); err == nil {
						b.Fatal("found")
					}
					head := []byte(`{"status":200,"hash":"` + h + `","at":"2026-11-27T00:00:00Z","apart":true}`)
					if err := mem.Update(ctx, func(tx storage.Tx) error {
						if err := put(tx); err != nil {
							return err
						}
						if _, err := tx.Put("idem", rk, head, storage.FreshKey()); err != nil {
							return err
						}
						_, err := tx.Put("exp", "idem/2026-11-27T00:00:00.000000000Z/"+rk, body, storage.AnyVersion)
						return err
					}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
