package bolt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
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

// A function run in steps (UpdateSteps) lets the other Updates of its
// batch run while its caller works between two steps, and the batch
// commits once its last step ran; when another Update of the batch fails
// meanwhile, the stepped function runs again from its first step.
func TestStepsShareTheBatch(t *testing.T) {
	errFail := errors.New("refused")
	for _, tc := range []struct {
		name       string
		plainErr   error // what the plain Update of the batch returns
		wantFirsts int   // runs of the stepped function's first step
	}{
		{"the plain update runs between the steps", nil, 1},
		{"the plain update fails between the steps", errFail, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "store.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := t.Context()
			pendingAtLeast := func(n int) {
				for {
					s.mu.Lock()
					l := len(s.pending)
					s.mu.Unlock()
					if l >= n {
						return
					}
					runtime.Gosched()
				}
			}
			// A first batch holds the writer while the next one fills.
			held, release := make(chan struct{}), make(chan struct{})
			blocker := make(chan error, 1)
			go func() {
				blocker <- s.Update(ctx, func(storage.Tx) error { close(held); <-release; return nil })
			}()
			<-held

			next := make(chan struct{}, 1)
			firsts := 0
			var sawPlain bool
			stepped := make(chan error, 1)
			go func() {
				stepped <- s.UpdateSteps(ctx, func(tx storage.Tx) (storage.Step, error) {
					firsts++
					if _, err := tx.Put("c", "stepped-1", []byte("x"), storage.MustNotExist()); err != nil {
						return storage.Step{}, err
					}
					return storage.Step{
						Ready: func() bool { return len(next) > 0 },
						Next: func() (storage.Step, error) {
							<-next
							_, err := tx.Get("c", "plain")
							sawPlain = err == nil
							_, err = tx.Put("c", "stepped-2", []byte("x"), storage.MustNotExist())
							return storage.Step{}, err
						},
					}, nil
				})
			}()
			pendingAtLeast(1)
			plainRan := make(chan bool, 2)
			plain := make(chan error, 1)
			go func() {
				plain <- s.Update(ctx, func(tx storage.Tx) error {
					_, err := tx.Get("c", "stepped-1")
					plainRan <- err == nil
					if tc.plainErr != nil {
						return tc.plainErr
					}
					_, err = tx.Put("c", "plain", []byte("x"), storage.MustNotExist())
					return err
				})
			}()
			pendingAtLeast(2)
			close(release)
			if err := <-blocker; err != nil {
				t.Fatal(err)
			}
			if !<-plainRan {
				t.Error("the plain update did not see the stepped function's first step")
			}
			if tc.plainErr == nil {
				select {
				case err := <-plain:
					t.Fatalf("the plain update returned (%v) before the stepped function's last step", err)
				default:
				}
			}
			next <- struct{}{}
			if err := <-stepped; err != nil {
				t.Fatalf("UpdateSteps = %v", err)
			}
			if err := <-plain; !errors.Is(err, tc.plainErr) {
				t.Fatalf("plain Update = %v; want %v", err, tc.plainErr)
			}
			if firsts != tc.wantFirsts {
				t.Errorf("first step ran %d times; want %d", firsts, tc.wantFirsts)
			}
			if want := tc.plainErr == nil; sawPlain != want {
				t.Errorf("last step saw the plain update's write: %v; want %v", sawPlain, want)
			}
			got := map[string]bool{}
			if err := s.View(ctx, func(tx storage.Tx) error {
				for r, err := range tx.Scan("c", storage.Range{}) {
					if err != nil {
						return err
					}
					got[r.Key] = true
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{"stepped-1": true, "stepped-2": true}
			if tc.plainErr == nil {
				want["plain"] = true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("committed (-want +got):\n%s", diff)
			}
		})
	}
}

// A call that the finishing leader hands the next batch to yields before
// it takes the batch; a call that finds no leader leads at once.
func TestHandedOverLeaderYields(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var yields atomic.Int32
	s.yield = func() { yields.Add(1) }
	put := func(key string) func(storage.Tx) error {
		return func(tx storage.Tx) error {
			_, err := tx.Put("c", key, []byte("v"), storage.AnyVersion)
			return err
		}
	}
	if err := s.Update(t.Context(), put("alone")); err != nil {
		t.Fatal(err)
	}
	if n := yields.Load(); n != 0 {
		t.Fatalf("a lone Update yielded %d times; want 0", n)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.Update(t.Context(), func(tx storage.Tx) error {
			close(entered)
			<-release
			return put("first")(tx)
		})
	}()
	<-entered
	second := make(chan error, 1)
	go func() { second <- s.Update(t.Context(), put("second")) }()
	// The second waits for the batch after the first's.
	for {
		s.mu.Lock()
		n := len(s.pending)
		s.mu.Unlock()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	close(release)
	if err := errors.Join(<-first, <-second); err != nil {
		t.Fatal(err)
	}
	if n := yields.Load(); n != 1 {
		t.Errorf("the handed-over leader yielded %d times; want 1", n)
	}
}
