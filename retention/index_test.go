package retention

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestKey: the key built in one allocation is the composite key it
// documents, and parses back.
func TestKey(t *testing.T) {
	ix := Index{Name: "x.expiry"}
	for _, at := range []time.Time{time.Unix(0, 0), time.Date(2026, 11, 19, 9, 0, 0, 123456789, time.UTC), time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)} {
		e := Entry{Class: "active", At: at}
		key := ix.Key(e, storage.Key("site", "id"))
		want := storage.Key("active", storage.Uint64Key(micros(at)), "site", "id")
		if key != want {
			t.Errorf("Key(%v) = %q, want %q", at, key, want)
		}
		gotAt, rec, err := parseKey("active", key)
		if err != nil || rec != storage.Key("site", "id") || micros(gotAt) != micros(at) {
			t.Errorf("parseKey(%q) = %v, %q, %v", key, gotAt, rec, err)
		}
	}
}

// TestAdd: Add writes the entry Move writes for a new record, as a fresh
// key (a second Add of it is refused), and nothing for a zero entry.
func TestAdd(t *testing.T) {
	ix := Index{Name: "x.expiry"}
	store := memory.New()
	e := Entry{Class: "active", At: time.Date(2026, 11, 27, 7, 0, 0, 0, time.UTC)}
	rec := storage.Key("site", "id")
	put := func(fn func(tx storage.Tx) error) error { return store.Update(t.Context(), fn) }
	if err := put(func(tx storage.Tx) error { return ix.Add(tx, rec, e) }); err != nil {
		t.Fatal(err)
	}
	if err := put(func(tx storage.Tx) error { return ix.Add(tx, "other", Entry{}) }); err != nil {
		t.Fatal(err)
	}
	var keys []string
	err := store.View(t.Context(), func(tx storage.Tx) error {
		for r, err := range tx.Scan(ix.Name, storage.Range{}) {
			if err != nil {
				return err
			}
			keys = append(keys, r.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{ix.Key(e, rec)}, keys); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if err := put(func(tx storage.Tx) error { return ix.Add(tx, rec, e) }); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("Add of an entry that exists = %v; want a conflict", err)
	}
}
