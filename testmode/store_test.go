package testmode

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// A test site's view of the store is a store: it passes the conformance
// suite on memory and on bolt, with another site's records beside it.
func TestSiteStoreConforms(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) storage.Store{
		"memory": func(*testing.T) storage.Store { return memory.New() },
		"bolt": func(t *testing.T) storage.Store {
			s, _ := teststore.Bolt(t)
			return s
		},
		// A store that reads one record in one statement
		// (storage.Getter): the site's Get passes the read on to it.
		"memory, a Getter": func(*testing.T) storage.Store { return storagetest.Getting(memory.New()) },
	} {
		t.Run(name, func(t *testing.T) {
			storagetest.Run(t, func(t *testing.T) storage.Store {
				base := open(t)
				neighbour := newSiteStore(base, "test_b", &sync.Map{})
				// The neighbour's records sort before and after the
				// site's, in the suite's collections.
				if err := neighbour.Update(t.Context(), func(tx storage.Tx) error {
					for _, c := range []string{"c", "coll", "items", "a"} {
						for _, k := range []string{"", "a", "k", "zz"} {
							if _, err := tx.Put(c, k+"-neighbour", []byte("x"), storage.AnyVersion); err != nil {
								return err
							}
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return newSiteStore(base, "test_a", &sync.Map{})
			})
		})
	}
}

// The collections a site writes to are noted once they commit, and never
// for a write that rolled back.
func TestSiteStoreNotesCollections(t *testing.T) {
	base := memory.New()
	s := newSiteStore(base, "test_a", &sync.Map{})
	ctx := context.Background()
	_ = s.Update(ctx, func(tx storage.Tx) error {
		_, _ = tx.Put("lost", "k", []byte("v"), storage.AnyVersion)
		return storage.ErrConflict
	})
	if err := s.Update(ctx, func(tx storage.Tx) error {
		_, err := tx.Put("kept", "k", []byte("v"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = base.View(ctx, func(tx storage.Tx) error {
		for it, err := range collections.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			got = append(got, it.Key)
		}
		return nil
	})
	if diff := cmp.Diff([]string{"kept"}, got); diff != "" {
		t.Errorf("noted collections (-want +got):\n%s", diff)
	}
	if _, ok := s.seen.Load("lost"); ok {
		t.Error("a rolled-back collection is remembered as noted")
	}
}

// storage.Get on a site reads the site's record through the deployment
// store's own Get (one statement on PostgreSQL), under the site's
// collection and key, and never another site's.
func TestSiteStoreGet(t *testing.T) {
	base := storagetest.Getting(memory.New())
	a := newSiteStore(base, "test_a", &sync.Map{})
	b := newSiteStore(base, "test_b", &sync.Map{})
	ctx := t.Context()
	if err := a.Update(ctx, func(tx storage.Tx) error {
		_, err := tx.Put("c", "k", []byte("a's"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rec, err := storage.Get(ctx, a, "c", "k")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(storage.Record{Key: "k", Value: []byte("a's"), Version: rec.Version}, rec); diff != "" {
		t.Errorf("storage.Get on the site (-want +got):\n%s", diff)
	}
	coll, key := base.Last()
	if diff := cmp.Diff([2]string{"test.c", "test_a/k"}, [2]string{coll, key}); diff != "" || base.Gets() != 1 {
		t.Errorf("the deployment store's Get: %d calls, the last (-want +got):\n%s", base.Gets(), diff)
	}
	if _, err := storage.Get(ctx, b, "c", "k"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("storage.Get on another site = %v; want ErrNotFound", err)
	}
}
