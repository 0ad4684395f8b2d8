package storagetest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
)

// testUpdateSteps checks a function run in steps (storage.UpdateSteps):
// on a storage.Stepper the store's own interleaving, on any other store
// the steps run one after the other in one Update. Either way the steps
// commit together or not at all, each sees the writes before it, and a
// failure of a later step rolls back the earlier ones.
func testUpdateSteps(t *testing.T, s storage.Store) {
	before := put(t, s, "c", "k", "committed")
	tests := []struct {
		name    string
		last    func(tx storage.Tx) error // the second step
		cancel  bool                      // the context ends between the steps
		wantErr error                     // nil: both steps committed
	}{
		{name: "both steps commit", last: func(tx storage.Tx) error {
			r, err := tx.Get("c", "k")
			if err != nil {
				return err
			}
			if string(r.Value) != "first" {
				return errors.New("the second step did not see the first's write: " + string(r.Value))
			}
			_, err = tx.Put("c", "k2", []byte("second"), storage.MustNotExist())
			return err
		}},
		{name: "a failing second step rolls the first back", last: func(storage.Tx) error { return errBoom }, wantErr: errBoom},
		{name: "a context ended between the steps rolls back", cancel: true, last: func(storage.Tx) error { return nil }, wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			err := storage.UpdateSteps(ctx, s, func(tx storage.Tx) (storage.Step, error) {
				if _, err := tx.Put("c", "k", []byte("first"), storage.AnyVersion); err != nil {
					return storage.Step{}, err
				}
				return storage.Step{Next: func() (storage.Step, error) {
					if tc.cancel {
						cancel()
					}
					return storage.Step{}, tc.last(tx)
				}}, nil
			})
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("UpdateSteps = %v; want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				if got := mustGet(t, s, "c", "k"); string(got.Value) != string(before.Value) || got.Version != before.Version {
					t.Errorf("after a failed UpdateSteps the record is %q v%d; want %q v%d", got.Value, got.Version, before.Value, before.Version)
				}
				wantMissing(t, s, "c", "k2")
				return
			}
			if got := mustGet(t, s, "c", "k2"); string(got.Value) != "second" {
				t.Errorf("k2 = %q; want second", got.Value)
			}
			del(t, s, "c", "k2")
			before = put(t, s, "c", "k", "committed")
		})
	}
}

// testUpdateStepsConcurrent runs functions in two steps, each waiting for
// another goroutine before its second, beside plain Updates, all adding
// one to a counter read and written in one step: no increment is lost,
// so each step ran whole, whatever ran between two of them.
// untilCommitted calls update again while it gives up on conflicts, as
// a caller would: eight writers of one counter on PostgreSQL can exhaust
// an Update's own attempts on a busy machine, and every increment must
// still commit once.
func untilCommitted(update func() error) error {
	var err error
	for range 100 {
		if err = update(); !errors.Is(err, storage.ErrConflict) {
			return err
		}
	}
	return err
}

func testUpdateStepsConcurrent(t *testing.T, s storage.Store) {
	const workers, each = 4, 10
	incr := func(tx storage.Tx) error {
		n := 0
		r, err := tx.Get("c", "n")
		switch {
		case err == nil:
			if n, err = strconv.Atoi(string(r.Value)); err != nil {
				return err
			}
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
		_, err = tx.Put("c", "n", []byte(strconv.Itoa(n+1)), storage.AnyVersion)
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				go1 := make(chan struct{}, 1)
				key := strconv.Itoa(w) + "-" + strconv.Itoa(i)
				errs <- untilCommitted(func() error {
					return storage.UpdateSteps(t.Context(), s, func(tx storage.Tx) (storage.Step, error) {
						if _, err := tx.Put("steps", key, []byte("1"), storage.MustNotExist()); err != nil {
							return storage.Step{}, err
						}
						go func() { go1 <- struct{}{} }()
						return storage.Step{
							Ready: func() bool { return len(go1) > 0 },
							Next: func() (storage.Step, error) {
								<-go1
								return storage.Step{}, incr(tx)
							},
						}, nil
					})
				})
			}
		})
		wg.Go(func() {
			for range each {
				errs <- untilCommitted(func() error { return s.Update(t.Context(), incr) })
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := string(mustGet(t, s, "c", "n").Value), strconv.Itoa(2*workers*each); got != want {
		t.Errorf("counter = %s; want %s", got, want)
	}
	var keys int
	view(t, s, func(tx storage.Tx) error {
		for _, err := range tx.Scan("steps", storage.Range{}) {
			if err != nil {
				return err
			}
			keys++
		}
		return nil
	})
	if keys != workers*each {
		t.Errorf("%d first steps committed; want %d", keys, workers*each)
	}
}
