package outbox

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestOrderLegacyRecords: events written before the subject index existed
// have no entry in it; they are still delivered, in the order written, and
// the events written after them are not held up by them.
func TestOrderLegacyRecords(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	store := memory.New()
	d := New(store, Options{Clock: deliverykit.NewManualClock(at), Logger: slog.New(slog.DiscardHandler)})
	var got []string
	d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		got = append(got, e.ID)
		return nil
	})
	err := store.Update(t.Context(), func(tx storage.Tx) error {
		for seq, id := range []string{"evt_1", "evt_2", "evt_3"} {
			ev, err := event.New(id, "site1", "TN1", at, event.ParcelChanged{TrackingNumber: "TN1"})
			if err != nil {
				return err
			}
			if err := Add(tx, ev); err != nil {
				return err
			}
			// evt_1 and evt_2 as an older release wrote them: due, with
			// no entry in the subject index.
			if id != "evt_3" {
				err := subjects.Delete(tx, storage.Key("site1", "TN1", storage.Uint64Key(uint64(seq+1))), storage.AnyVersion)
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	store.View(t.Context(), func(tx storage.Tx) error {
		for it, err := range subjects.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			entries = append(entries, it.Key)
		}
		return nil
	})
	if diff := cmp.Diff([]string{storage.Key("site1", "TN1", storage.Uint64Key(3))}, entries); diff != "" {
		t.Fatalf("subject index before delivery (-want +got):\n%s", diff)
	}
	if n, err := d.Dispatch(t.Context()); err != nil || n != 3 {
		t.Errorf("Dispatch = %d, %v; want 3", n, err)
	}
	if diff := cmp.Diff([]string{"evt_1", "evt_2", "evt_3"}, got); diff != "" {
		t.Errorf("delivered (-want +got):\n%s", diff)
	}
}
