package storagetest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// errClass names the error of the contract err matches, so that two
// reads can be compared by what they reported rather than by its text.
func errClass(err error) string {
	for _, c := range []struct {
		name string
		err  error
	}{
		{"not found", storage.ErrNotFound},
		{"closed", storage.ErrClosed},
		{"invalid argument", deliverykit.ErrInvalidArgument},
		{"cancelled", context.Canceled},
		{"deadline exceeded", context.DeadlineExceeded},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return "none"
}

// getResult is a read's outcome, compared between storage.Get and a View.
type getResult struct {
	Rec storage.Record
	Err string
}

// viewGet reads key in a View of its own, as storage.Get does on a store
// that is not a storage.Getter.
func viewGet(ctx context.Context, s storage.Store, coll, key string) getResult {
	var rec storage.Record
	err := s.View(ctx, func(tx storage.Tx) (err error) {
		rec, err = tx.Get(coll, key)
		return err
	})
	if err != nil {
		rec = storage.Record{}
	}
	return getResult{rec, errClass(err)}
}

// storeGet reads key with storage.Get.
func storeGet(ctx context.Context, s storage.Store, coll, key string) getResult {
	rec, err := storage.Get(ctx, s, coll, key)
	return getResult{rec, errClass(err)}
}

// storage.Get, the read of one record in one statement where the store
// offers it (storage.Getter), reports what a View's Get reports: the
// record, a missing one, a refused name, a done context, a closed store;
// and the value it returns is the caller's.
func testStoreGet(t *testing.T, s storage.Store) {
	put(t, s, "c", "k", "first")
	v2 := put(t, s, "c", "k", "second")
	put(t, s, "c", "gone", "v")
	del(t, s, "c", "gone")
	ve := put(t, s, "c", "empty", "")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), deadlineInThePast)
	defer cancel2()
	live := t.Context()
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		coll, key string
		want      getResult
	}{
		{"found", live, "c", "k", getResult{storage.Record{Key: "k", Value: []byte("second"), Version: v2.Version}, "none"}},
		{"empty value", live, "c", "empty", getResult{storage.Record{Key: "empty", Version: ve.Version}, "none"}},
		{"missing key", live, "c", "never", getResult{Err: "not found"}},
		{"missing collection", live, "never-written", "k", getResult{Err: "not found"}},
		{"after delete", live, "c", "gone", getResult{Err: "not found"}},
		{"empty collection", live, "", "k", getResult{Err: "invalid argument"}},
		{"empty key", live, "c", "", getResult{Err: "invalid argument"}},
		{"cancelled context", cancelled, "c", "k", getResult{Err: "cancelled"}},
		{"deadline exceeded", expired, "c", "k", getResult{Err: "deadline exceeded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, viewGet(tc.ctx, s, tc.coll, tc.key), recordCmp); diff != "" {
				t.Errorf("View's Get (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, storeGet(tc.ctx, s, tc.coll, tc.key), recordCmp); diff != "" {
				t.Errorf("storage.Get (-want +got):\n%s", diff)
			}
		})
	}

	// The value returned is the caller's: changing it changes nothing
	// stored, and a later overwrite does not change it.
	got, err := storage.Get(t.Context(), s, "c", "k")
	if err != nil {
		t.Fatalf("storage.Get: %v", err)
	}
	got.Value[0] = 'X'
	if again := mustGet(t, s, "c", "k"); string(again.Value) != "second" {
		t.Errorf("stored value after changing the one storage.Get returned = %q; want %q", again.Value, "second")
	}
	put(t, s, "c", "k", "third")
	if string(got.Value) != "Xecond" {
		t.Errorf("value storage.Get returned changed to %q after an overwrite; want %q", got.Value, "Xecond")
	}
	// It reads what committed since.
	if r := storeGet(live, s, "c", "k"); string(r.Rec.Value) != "third" || r.Err != "none" {
		t.Errorf("storage.Get after an overwrite = %+v; want the value %q", r, "third")
	}

	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	want := getResult{Err: "closed"}
	if diff := cmp.Diff(want, viewGet(live, s, "c", "k"), recordCmp); diff != "" {
		t.Errorf("View's Get after Close (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, storeGet(live, s, "c", "k"), recordCmp); diff != "" {
		t.Errorf("storage.Get after Close (-want +got):\n%s", diff)
	}
}
