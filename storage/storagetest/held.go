package storagetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// A transaction held by its caller (storage.Beginner) reads its own
// writes, which no View sees before Commit and none after Rollback; it
// holds the writer meanwhile, so another Begin or Update waits within its
// context; a done context refuses the Commit; an ended one refuses every
// method. A store that cannot hold one says so with ErrNotHeld.
func testHeld(t *testing.T, s storage.Store) {
	ctx := t.Context()
	if _, ok := s.(storage.Beginner); !ok {
		if _, err := storage.Begin(ctx, s); !errors.Is(err, storage.ErrNotHeld) {
			t.Fatalf("storage.Begin on a store that is no Beginner = %v; want ErrNotHeld", err)
		}
		return
	}
	begin := func(ctx context.Context) storage.Held {
		t.Helper()
		h, err := storage.Begin(ctx, s)
		if err != nil {
			t.Fatalf("Begin: %v", err)
		}
		return h
	}

	// Committed: seen by the transaction at once, by others after.
	h := begin(ctx)
	if _, err := h.Put("c", "k", []byte("v1"), storage.MustNotExist()); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if rec, err := h.Get("c", "k"); err != nil || string(rec.Value) != "v1" {
		t.Errorf("Get of its own write = %q, %v; want v1", rec.Value, err)
	}
	if _, err := get(t, s, "c", "k"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("a View before Commit: %v; want not found", err)
	}
	// The writer is held: another transaction waits, within its context.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	err := s.Update(short, func(tx storage.Tx) error { return nil })
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Update while a transaction is held = %v; want it to wait until its deadline", err)
	}
	if err := h.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if rec := mustGet(t, s, "c", "k"); string(rec.Value) != "v1" {
		t.Errorf("after Commit = %q; want v1", rec.Value)
	}
	// Ended: every method refuses, a second end does nothing.
	h.Rollback()
	if _, err := h.Put("c", "late", []byte("x"), storage.AnyVersion); err == nil {
		t.Error("Put after Commit succeeded")
	}
	if _, err := h.Get("c", "k"); err == nil {
		t.Error("Get after Commit succeeded")
	}
	if err := h.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}

	// Rolled back: nothing of it stays, and the writer is free again.
	h = begin(ctx)
	if _, err := h.Put("c", "k", []byte("v2"), storage.AnyVersion); err != nil {
		t.Fatalf("Put: %v", err)
	}
	if err := h.Delete("c", "k", storage.AnyVersion); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	h.Rollback()
	if rec := mustGet(t, s, "c", "k"); string(rec.Value) != "v1" {
		t.Errorf("after Rollback = %q; want v1", rec.Value)
	}
	put(t, s, "c", "after", "x")

	// A done context: Begin refuses it; Commit with it commits nothing.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := storage.Begin(cancelled, s); !errors.Is(err, context.Canceled) {
		t.Errorf("Begin with a cancelled context = %v; want context.Canceled", err)
	}
	live, stop := context.WithCancel(ctx)
	h = begin(live)
	if _, err := h.Put("c", "k", []byte("v3"), storage.AnyVersion); err != nil {
		t.Fatalf("Put: %v", err)
	}
	stop()
	if err := h.Commit(); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit after the context ended = %v; want context.Canceled", err)
	}
	if rec := mustGet(t, s, "c", "k"); string(rec.Value) != "v1" {
		t.Errorf("after a refused Commit = %q; want v1", rec.Value)
	}
	put(t, s, "c", "after", "y")

	// Close waits for the held transaction, then Begin reports the store
	// closed.
	h = begin(ctx)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	h.Rollback()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := storage.Begin(ctx, s); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Begin after Close = %v; want ErrClosed", err)
	}
}
