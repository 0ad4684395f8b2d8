package bolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/storage"
)

// Concurrent Updates are committed together, yet each one's result is its
// own: the failing ones return their own error and leave nothing behind,
// a panicking one panics in its own goroutine, and every other write is
// committed (and, with fsync on, durable when Update returns).
func TestGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 64
	errFail := errors.New("refused")
	type outcome struct {
		err      error
		panicked any
	}
	got := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			defer func() { got[i].panicked = recover() }()
			got[i].err = s.Update(ctx, func(tx storage.Tx) error {
				if _, err := tx.Put("c", fmt.Sprintf("k%03d", i), []byte{byte(i)}, storage.Condition{}); err != nil {
					return err
				}
				switch i % 16 {
				case 5:
					return errFail
				case 11:
					panic("fn panicked")
				}
				return nil
			})
		})
	}
	wg.Wait()
	var wantKeys []string
	for i := range n {
		want := outcome{}
		switch i % 16 {
		case 5:
			want.err = errFail
		case 11:
			want.panicked = "fn panicked"
		default:
			wantKeys = append(wantKeys, fmt.Sprintf("k%03d", i))
		}
		if got[i].err != want.err || got[i].panicked != want.panicked {
			t.Errorf("Update %d = %v, panic %v; want %v, panic %v", i, got[i].err, got[i].panicked, want.err, want.panicked)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened: exactly the successful writes, each with its own version.
	s, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var keys []string
	versions := map[uint64]bool{}
	if err := s.View(ctx, func(tx storage.Tx) error {
		for rec, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				return err
			}
			keys = append(keys, rec.Key)
			versions[rec.Version] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("stored keys (-want +got):\n%s", diff)
	}
	if len(versions) != len(keys) {
		t.Errorf("%d versions for %d records: versions repeat", len(versions), len(keys))
	}
}

// A later Update sees the writes of one committed in the same batch before
// it, as if that one had committed first: counters stay exact.
func TestGroupCommitSerializable(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := s.Update(ctx, func(tx storage.Tx) error {
				var v byte
				rec, err := tx.Get("c", "counter")
				switch {
				case err == nil:
					v = rec.Value[0]
				case !errors.Is(err, storage.ErrNotFound):
					return err
				}
				_, err = tx.Put("c", "counter", []byte{v + 1}, storage.Condition{})
				return err
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := s.View(ctx, func(tx storage.Tx) error {
		rec, err := tx.Get("c", "counter")
		if err != nil {
			return err
		}
		if rec.Value[0] != n {
			t.Errorf("counter = %d; want %d", rec.Value[0], n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
