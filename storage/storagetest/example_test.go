package storagetest_test

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// A producer tested on Retrying sees its transaction run twice; only the
// second run is kept, so a counter kept outside the transaction would be
// wrong, and one kept in it is right.
func ExampleRetrying() {
	store := storagetest.Retrying(memory.New())
	counter := storage.Collection[int]{Name: "example.counter"}
	runs := 0
	err := store.Update(context.Background(), func(tx storage.Tx) error {
		runs++
		n := 0
		if it, err := counter.Get(tx, "n"); err == nil {
			n = it.Value
		}
		_, err := counter.Put(tx, "n", n+1, storage.AnyVersion)
		return err
	})
	if err != nil {
		panic(err)
	}
	var stored int
	_ = store.View(context.Background(), func(tx storage.Tx) error {
		it, err := counter.Get(tx, "n")
		stored = it.Value
		return err
	})
	fmt.Println("runs:", runs, "stored:", stored)
	// Output: runs: 2 stored: 1
}
