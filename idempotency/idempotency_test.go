package idempotency_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/idempotency/idempotencytest"
	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestMemory(t *testing.T) {
	idempotencytest.Run(t, teststore.Memory)
}

func TestBolt(t *testing.T) {
	idempotencytest.Run(t, teststore.Bolt)
}

// conflictingStore fails its first n Updates with a conflict after
// running their function, as a serializable store refuses a commit.
type conflictingStore struct {
	storage.Store
	n int
}

func (s *conflictingStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if s.n > 0 {
			s.n--
			return storage.ErrConflict
		}
		return nil
	})
	return err
}

// TestStoreConflicts: a unit whose commit the store refuses runs again
// (nothing of it was kept), up to a bound past which the caller is told
// to retry; a conflict the call itself answers is its answer, run once.
func TestStoreConflicts(t *testing.T) {
	tests := []struct {
		name      string
		conflicts int
		callErr   error
		wantRuns  int
		wantErr   error
	}{
		{name: "one refused commit", conflicts: 1, wantRuns: 2},
		{name: "three refused commits", conflicts: 3, wantRuns: 4},
		{name: "refused past the bound", conflicts: 10, wantRuns: 4, wantErr: idempotency.ErrInFlight},
		{name: "the call's own conflict", callErr: deliverykit.E(deliverykit.KindConflict, "etag"), wantRuns: 1, wantErr: deliverykit.ErrConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &conflictingStore{Store: memory.New(), n: tt.conflicts}
			k := idempotency.New(idempotency.Options{})
			k.Open(st)
			runs := 0
			a, replayed, err := k.Do(t.Context(), "key-1", idempotency.Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)},
				func(context.Context) (idempotency.Answer, error) {
					runs++
					return idempotency.Answer{Status: 201, Body: []byte(`{"id":1}`)}, tt.callErr
				})
			if runs != tt.wantRuns || !errors.Is(err, tt.wantErr) || replayed {
				t.Fatalf("runs %d (want %d), err %v (want %v), replayed %v", runs, tt.wantRuns, err, tt.wantErr, replayed)
			}
			if tt.wantErr == nil && a.Status != 201 {
				t.Errorf("answer %+v", a)
			}
		})
	}
}
