package outbox_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook"
)

// BenchmarkOutboxWrite is what the outbox costs a producer's write, on the
// memory store and on bolt (a file, fsync per commit): an Update that
// stores a record the size of a completed checkout session alone ("record"),
// the same Update adding an order.completed event ("record+event"), and
// that Update through Dispatcher.Store() with one consumer that does
// nothing, so that the event is also claimed, delivered and settled before
// Update returns, as producers in wiring do ("record+event+deliver").
func BenchmarkOutboxWrite(b *testing.B) {
	example, err := webhook.Catalogue()[0].ExampleBody() // an order.completed
	if err != nil {
		b.Fatal(err)
	}
	var body struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(example, &body); err != nil {
		b.Fatal(err)
	}
	// The cause's record: a session of about the event's size.
	record := make([]byte, 0, 3*len(body.Data))
	for len(record) < cap(record)-len(body.Data) {
		record = append(record, body.Data...)
	}
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	stores := []struct {
		name string
		open func(b *testing.B) storage.Store
	}{
		{"memory", func(*testing.B) storage.Store { return memory.New() }},
		{"bolt", func(b *testing.B) storage.Store {
			s, err := bolt.Open(filepath.Join(b.TempDir(), "dk.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
	}
	modes := []struct {
		name           string
		event, deliver bool
	}{{"record", false, false}, {"record+event", true, false}, {"record+event+deliver", true, true}}
	for _, st := range stores {
		for _, m := range modes {
			b.Run(st.name+"/"+m.name, func(b *testing.B) {
				store := st.open(b)
				if m.deliver {
					d := outbox.New(store, outbox.Options{})
					d.Handle(event.TypeOrderCompleted, "bench", func(context.Context, event.Event) error { return nil })
					store = d.Store()
				}
				ctx := b.Context()
				b.ReportAllocs()
				b.SetBytes(int64(len(record)))
				var n uint64
				for b.Loop() {
					n++
					key := storage.Uint64Key(n)
					err := store.Update(ctx, func(tx storage.Tx) error {
						if _, err := tx.Put("bench.sessions", storage.Key("s1", key), record, storage.MustNotExist()); err != nil {
							return err
						}
						if !m.event {
							return nil
						}
						return outbox.Add(tx, event.Event{Type: event.TypeOrderCompleted, Site: "s1", Subject: "tos_" + key, Time: at, Payload: body.Data})
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
