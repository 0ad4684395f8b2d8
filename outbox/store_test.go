package outbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// afterCommit runs hook after each committed Update of the store it wraps.
type afterCommit struct {
	storage.Store
	hook func()
}

func (s *afterCommit) Update(ctx context.Context, fn func(storage.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	if err == nil && s.hook != nil {
		s.hook()
	}
	return err
}

// TestDispatchLeavesHeldEvents: between a producer's commit and the
// delivery that follows it in the producer's goroutine, the dispatcher's
// loop does not take the new events, so the events of one cause go out in
// the order they were written, by their producer.
func TestDispatchLeavesHeldEvents(t *testing.T) {
	store := &afterCommit{Store: memory.New()}
	d := outbox.New(store, outbox.Options{})
	var got []string
	d.Handle(event.TypeParcelChanged, "a", func(_ context.Context, e event.Event) error {
		got = append(got, e.Subject)
		return nil
	})
	var taken []int
	store.hook = func() {
		n, err := d.Dispatch(t.Context())
		if err != nil {
			t.Error(err)
		}
		taken = append(taken, n)
	}
	err := d.Store().Update(t.Context(), func(tx storage.Tx) error {
		for _, subject := range []string{"first", "second"} {
			ev, err := event.New("", "s", subject, time.Now(), event.ParcelChanged{})
			if err != nil {
				return err
			}
			if err := outbox.Add(tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0}, taken[:1]); diff != "" {
		t.Errorf("events the loop took between commit and delivery (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"first", "second"}, got); diff != "" {
		t.Errorf("delivered (-want +got):\n%s", diff)
	}
}

// TestStoreGet: storage.Get on the delivering store reads through the
// wrapped store's own Get (one statement on PostgreSQL): a read adds no
// event, so the wrapper has nothing to do for it.
func TestStoreGet(t *testing.T) {
	base := storagetest.Getting(memory.New())
	d := outbox.New(base, outbox.Options{})
	s := d.Store()
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", "k", []byte("v"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rec, err := storage.Get(t.Context(), s, "c", "k")
	if err != nil || string(rec.Value) != "v" {
		t.Errorf("storage.Get = %+v, %v; want the value %q", rec, err, "v")
	}
	if _, err := storage.Get(t.Context(), s, "c", "missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("storage.Get of a missing key = %v; want ErrNotFound", err)
	}
	if n := base.Gets(); n != 2 {
		t.Errorf("the wrapped store's Get ran %d times; want 2", n)
	}
}

// TestHeld: a transaction the delivering store holds for its caller
// (storage.Beginner) delivers the events added through it once Commit has
// committed them, and none after Rollback, whose events are not left held
// (the dispatcher's loop delivers nothing of them either: they were never
// stored). On a store that cannot hold one, Begin says so.
func TestHeld(t *testing.T) {
	d := outbox.New(memory.New(), outbox.Options{})
	var got []string
	d.Handle(event.TypeParcelChanged, "a", func(_ context.Context, e event.Event) error {
		got = append(got, e.Subject)
		return nil
	})
	add := func(h storage.Held, subject string) {
		t.Helper()
		ev, err := event.New("", "s", subject, time.Now(), event.ParcelChanged{})
		if err != nil {
			t.Fatal(err)
		}
		if err := outbox.Add(h, ev); err != nil {
			t.Fatal(err)
		}
	}
	for _, commit := range []bool{false, true} {
		h, err := storage.Begin(t.Context(), d.Store())
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			add(h, "kept 1")
			add(h, "kept 2")
			if err := h.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			add(h, "dropped")
			h.Rollback()
		}
	}
	if diff := cmp.Diff([]string{"kept 1", "kept 2"}, got); diff != "" {
		t.Errorf("delivered (-want +got):\n%s", diff)
	}
	if n, err := d.Dispatch(t.Context()); err != nil || n != 0 {
		t.Errorf("Dispatch after the commits = %d, %v; want nothing left", n, err)
	}

	cannot := outbox.New(&afterCommit{Store: memory.New()}, outbox.Options{})
	if _, err := storage.Begin(t.Context(), cannot.Store()); !errors.Is(err, storage.ErrNotHeld) {
		t.Errorf("Begin on a store that cannot hold a transaction = %v; want ErrNotHeld", err)
	}
}

// TestStoreShared: the delivering store passes the wrapped store's shared
// values on (storage.Owner), and reports a wrapped store that has none.
func TestStoreShared(t *testing.T) {
	type key struct{}
	base := memory.New()
	want, _ := storage.Shared(base, key{}, func() any { return new(int) })
	got, ok := storage.Shared(outbox.New(base, outbox.Options{}).Store(), key{}, func() any { return new(int) })
	if !ok || got != want {
		t.Errorf("Shared through the delivering store = %v, %v; want the memory store's %v", got, ok, want)
	}
	if _, ok := storage.Shared(outbox.New(storagetest.Getting(base), outbox.Options{}).Store(), key{}, func() any { return new(int) }); ok {
		t.Error("Shared through a wrapped store that is no Owner reports one")
	}
}
