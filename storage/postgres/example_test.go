package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/postgres"
)

// Two servers open the same database and schema; what one commits, the
// other reads. The example needs a server (DELIVERYKIT_POSTGRES_DSN), so it
// is compiled but not run by go test; the tests of this package run the
// same steps against a real server.
func Example() {
	ctx := context.Background()
	dsn := os.Getenv("DELIVERYKIT_POSTGRES_DSN") // e.g. "host=db.internal dbname=deliverykit pool_max_conns=16"

	first, err := postgres.Open(ctx, dsn, &postgres.Options{Schema: "deliverykit"})
	if err != nil {
		log.Fatal(err)
	}
	defer first.Close()
	second, err := postgres.Open(ctx, dsn, &postgres.Options{Schema: "deliverykit"})
	if err != nil {
		log.Fatal(err)
	}
	defer second.Close()

	// The function may run more than once (on a serialization failure),
	// so it only reads and writes through tx.
	var key string
	err = first.Update(ctx, func(tx storage.Tx) error {
		n, err := tx.NextSequence("example.orders")
		if err != nil {
			return err
		}
		key = storage.Uint64Key(n)
		_, err = tx.Put("example.orders", key, []byte(`{"status":"new"}`), storage.MustNotExist())
		return err
	})
	if err != nil {
		log.Fatal(err)
	}

	err = second.View(ctx, func(tx storage.Tx) error {
		rec, err := tx.Get("example.orders", key)
		if err != nil {
			return err
		}
		fmt.Printf("%s\n", rec.Value)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
