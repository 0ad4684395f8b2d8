package outbox_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A producer writes its event in the transaction of its own change; a
// consumer registered with the dispatcher applies it once that commits.
func Example() {
	ctx := context.Background()
	d := outbox.New(memory.New(), outbox.Options{})
	d.Handle(event.TypeOrderCompleted, "tracking", func(ctx context.Context, e event.Event) error {
		o, err := event.Decode[event.OrderCompleted](e)
		if err != nil {
			return err
		}
		fmt.Println("tracking order", o.TosID, "for", e.Site)
		return nil
	})
	store := d.Store() // delivers what a committed Update added
	err := store.Update(ctx, func(tx storage.Tx) error {
		// … the producer's own writes go here …
		ev, err := event.New("", "demo-site", "tos_1", time.Now(), event.OrderCompleted{TosID: "tos_1"})
		if err != nil {
			return err
		}
		return outbox.Add(tx, ev)
	})
	if err != nil {
		panic(err)
	}
	pending, _ := outbox.Pending(ctx, store, 10)
	fmt.Println(len(pending), "pending")
	// Output:
	// tracking order tos_1 for demo-site
	// 0 pending
}
