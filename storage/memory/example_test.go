package memory_test

import (
	"context"
	"fmt"
	"log"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

type Parcel struct {
	Tracking string `json:"tracking"`
	Status   string `json:"status"`
}

func Example() {
	ctx := context.Background()
	store := memory.New()
	defer store.Close()

	parcels := storage.Collection[Parcel]{Name: "example.parcels"}

	// Create two parcels of tenant site-1 in one transaction.
	err := store.Update(ctx, func(tx storage.Tx) error {
		for _, tr := range []string{"TR-2", "TR-1"} {
			key := storage.Key("site-1", tr)
			if _, err := parcels.Put(tx, key, Parcel{Tracking: tr, Status: "created"}, storage.MustNotExist()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	// Compare-and-set: change TR-1 only if nobody changed it meanwhile.
	err = store.Update(ctx, func(tx storage.Tx) error {
		it, err := parcels.Get(tx, storage.Key("site-1", "TR-1"))
		if err != nil {
			return err
		}
		it.Value.Status = "shipped"
		_, err = parcels.Put(tx, it.Key, it.Value, storage.VersionIs(it.Version))
		return err
	})
	if err != nil {
		log.Fatal(err)
	}

	// List the tenant's parcels in key order.
	err = store.View(ctx, func(tx storage.Tx) error {
		for it, err := range parcels.Scan(tx, storage.Range{Prefix: storage.KeyPrefix("site-1")}) {
			if err != nil {
				return err
			}
			fmt.Println(it.Value.Tracking, it.Value.Status)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// TR-1 shipped
	// TR-2 created
}
