package outbox_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestAppliedMarksGoWithTheEvent: the consumers' Applied marks of an event
// are deleted with it, when it is delivered to every consumer and when it
// is swept dead; until then they are kept.
func TestAppliedMarksGoWithTheEvent(t *testing.T) {
	start := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	store := memory.New()
	clock := deliverykit.NewManualClock(start)
	d := outbox.New(store, outbox.Options{Clock: clock, Jitter: func() float64 { return 0 },
		Logger: slog.New(slog.DiscardHandler), DeadRetention: 24 * time.Hour})
	marking := func(name string) outbox.Handler {
		return func(ctx context.Context, e event.Event) error {
			return store.Update(ctx, func(tx storage.Tx) error {
				_, err := outbox.Applied(tx, name, e.ID)
				return err
			})
		}
	}
	d.Handle(event.TypeParcelChanged, "a", marking("a"))
	d.Handle(event.TypeParcelChanged, "b", marking("b"))
	// c refuses the order event for good (its transaction, with its
	// mark, rolls back): the event dies with d's mark only.
	d.Handle(event.TypeOrderCompleted, "c", func(context.Context, event.Event) error {
		return deliverykit.E(deliverykit.KindInvalidArgument, "cannot apply")
	})
	d.Handle(event.TypeOrderCompleted, "d", marking("d"))
	err := store.Update(t.Context(), func(tx storage.Tx) error {
		for _, ev := range []struct {
			id      string
			payload event.Payload
		}{{"evt_delivered", event.ParcelChanged{TrackingNumber: "TN1"}}, {"evt_dead", event.OrderCompleted{TosID: "tos_1"}}} {
			e, err := event.New(ev.id, "site1", "subject", start, ev.payload)
			if err != nil {
				return err
			}
			if err := outbox.Add(tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Dispatch(t.Context()); err != nil {
		t.Fatal(err)
	}
	marks := func() []string {
		t.Helper()
		var keys []string
		err := store.View(t.Context(), func(tx storage.Tx) error {
			keys = keys[:0]
			for rec, err := range tx.Scan("outbox.applied", storage.Range{}) {
				if err != nil {
					return err
				}
				keys = append(keys, rec.Key)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	// The delivered event's marks are gone; the dead one's stay while it
	// can be retried.
	if diff := cmp.Diff([]string{storage.Key("d", "evt_dead")}, marks()); diff != "" {
		t.Errorf("marks after delivery (-want +got):\n%s", diff)
	}
	if n, err := d.Sweep(t.Context(), start.Add(25*time.Hour), 0); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want the dead event", n, err)
	}
	if got := marks(); len(got) != 0 {
		t.Errorf("marks after the dead event was swept: %q", got)
	}
}
