package storage_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

type keyA struct{}
type keyB struct{}

// TestShared: a store one process owns gives every caller the value made
// once per key; a wrapper that passes Shared on gives the same; a store
// that is no Owner reports so.
func TestShared(t *testing.T) {
	s := memory.New()
	var made atomic.Int32
	mk := func() any { made.Add(1); return new(int) }
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() {
			v, ok := storage.Shared(s, keyA{}, mk)
			if !ok {
				t.Error("a memory store is not its process's own")
			}
			got[i] = v
		})
	}
	wg.Wait()
	if made.Load() != 1 {
		t.Errorf("made %d values for one key; want 1", made.Load())
	}
	for _, v := range got {
		if v != got[0] {
			t.Fatal("two callers got different values for one key")
		}
	}
	if b, _ := storage.Shared(s, keyB{}, mk); b == got[0] {
		t.Error("two keys share a value")
	}
	if other, _ := storage.Shared(memory.New(), keyA{}, mk); other == got[0] {
		t.Error("two stores share a value")
	}
	// A wrapper that embeds storage.Store is no Owner by accident.
	type wrapper struct{ storage.Store }
	if v, ok := storage.Shared(wrapper{s}, keyA{}, mk); ok || v != nil {
		t.Errorf("Shared through a wrapper that does not pass it on = %v, %v; want nothing", v, ok)
	}
}
