package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
)

func Example() {
	dir, err := os.MkdirTemp("", "deliverykit-bolt-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "deliverykit.db")
	ctx := context.Background()

	store, err := bolt.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	err = store.Update(ctx, func(tx storage.Tx) error {
		n, err := tx.NextSequence("example.orders")
		if err != nil {
			return err
		}
		_, err = tx.Put("example.orders", storage.Uint64Key(n), []byte(`{"status":"new"}`), storage.MustNotExist())
		return err
	})
	if err != nil {
		log.Fatal(err)
	}

	// Another Open of the same file fails while the store is open.
	if _, err := bolt.Open(path, &bolt.Options{Timeout: 50 * time.Millisecond}); err != nil {
		fmt.Println("second open fails:", errors.Unwrap(err))
	}
	if err := store.Close(); err != nil {
		log.Fatal(err)
	}

	// The data survives closing and reopening the file.
	store, err = bolt.Open(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	err = store.View(ctx, func(tx storage.Tx) error {
		rec, err := tx.Get("example.orders", storage.Uint64Key(1))
		if err != nil {
			return err
		}
		fmt.Printf("%s version %d\n", rec.Value, rec.Version)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// second open fails: timeout
	// {"status":"new"} version 1
}
