package idempotency_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/idempotency/idempotencytest"
	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
	"github.com/google/go-cmp/cmp"
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

// rerunningStore runs the function of its first n Updates twice, the
// first run rolled back, as bolt runs a batch again when another member
// failed and PostgreSQL retries a serialization failure.
type rerunningStore struct {
	storage.Store
	n int
}

var errInjected = errors.New("another member of the batch failed")

func (s *rerunningStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	if s.n == 0 {
		return s.Store.Update(ctx, fn)
	}
	s.n--
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errInjected
	})
	if !errors.Is(err, errInjected) {
		return err
	}
	return s.Store.Update(ctx, fn)
}

// TestTransactionRunAgain: when the store runs the unit's transaction
// again, the call's operations of the first run were rolled back with it:
// the call runs again in the new transaction, and its second answer is
// the one kept with the one effect.
func TestTransactionRunAgain(t *testing.T) {
	mem := memory.New()
	st := &rerunningStore{Store: mem, n: 1}
	k := idempotency.New(idempotency.Options{})
	k.Open(st)
	area := k.Store(mem)
	runs := 0
	run := func(ctx context.Context) (idempotency.Answer, error) {
		runs++
		var n uint64
		err := area.Update(ctx, func(tx storage.Tx) (err error) {
			if n, err = tx.NextSequence("effects"); err != nil {
				return err
			}
			_, err = tx.Put("effects", strconv.FormatUint(n, 10), []byte(`{}`), storage.MustNotExist())
			return err
		})
		return idempotency.Answer{Status: 201, Body: []byte(fmt.Sprintf("run %d made %d", runs, n))}, err
	}
	req := idempotency.Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)}
	var got []string
	for range 2 {
		a, replayed, err := k.Do(t.Context(), "key-1", req, run)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s, replayed %v", a.Body, replayed))
	}
	want := []string{"run 2 made 1, replayed false", "run 2 made 1, replayed true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1"}, idempotencytest.Effects(t, mem)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// TestPanicInUnit: a call that panics after its first write rolls its
// unit back and the panic goes on up; the store's writer is free again.
func TestPanicInUnit(t *testing.T) {
	mem := memory.New()
	k := idempotency.New(idempotency.Options{})
	k.Open(mem)
	area := k.Store(mem)
	put := func(ctx context.Context, key string) error {
		return area.Update(ctx, func(tx storage.Tx) error {
			_, err := tx.Put("effects", key, []byte(`{}`), storage.AnyVersion)
			return err
		})
	}
	for _, tc := range []struct{ name, where string }{{"in the call", "call"}, {"in a nested update", "nested"}} {
		t.Run(tc.name, func(t *testing.T) {
			var recovered any
			func() {
				defer func() { recovered = recover() }()
				k.Do(t.Context(), "key-"+tc.where, idempotency.Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)},
					func(ctx context.Context) (idempotency.Answer, error) {
						if err := put(ctx, "dropped"); err != nil {
							return idempotency.Answer{}, err
						}
						if tc.where == "nested" {
							area.Update(ctx, func(storage.Tx) error { panic("boom") })
						}
						panic("boom")
					})
			}()
			if recovered != "boom" {
				t.Fatalf("recovered %v, want boom", recovered)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if err := put(ctx, "after"); err != nil {
				t.Fatalf("a write after the panic: %v", err)
			}
			err := mem.View(ctx, func(tx storage.Tx) error {
				_, err := tx.Get("effects", "dropped")
				return err
			})
			if !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("the panicking call's write: %v, want it rolled back", err)
			}
		})
	}
}

// midwayStore rolls back the first transaction run in steps while the
// call is between two of them, as bolt does when another Update of the
// batch fails then, and runs it again. The call waits on gate after its
// first write, so that it is between two steps when the first returns;
// gate is closed once the transaction was rolled back.
type midwayStore struct {
	storage.Store
	n    int
	gate chan struct{}
}

func (s *midwayStore) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	if s.n == 0 {
		return storage.UpdateSteps(ctx, s.Store, first)
	}
	s.n--
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		st, err := first(tx)
		if err != nil {
			return err
		}
		if st.Next == nil {
			return errors.New("the unit ended in its first step")
		}
		return errInjected
	})
	close(s.gate)
	if !errors.Is(err, errInjected) {
		return err
	}
	return storage.UpdateSteps(ctx, s.Store, first)
}

// TestRolledBackBetweenSteps: when the store rolls the unit's transaction
// back while the call works between two writes, the call's later writes
// are refused, and at its end it runs again, whole, in the new
// transaction: one run's effects are kept, with its answer.
func TestRolledBackBetweenSteps(t *testing.T) {
	for _, writes := range []int{1, 2, 3} {
		t.Run(strconv.Itoa(writes)+" writes", func(t *testing.T) {
			mem := memory.New()
			k := idempotency.New(idempotency.Options{})
			gate := make(chan struct{})
			k.Open(&midwayStore{Store: mem, n: 1, gate: gate})
			area := k.Store(mem)
			runs := 0
			run := func(ctx context.Context) (idempotency.Answer, error) {
				runs++
				for w := range writes {
					if err := area.Update(ctx, func(tx storage.Tx) error {
						_, err := tx.Put("effects", fmt.Sprintf("run %d write %d", runs, w), []byte(`{}`), storage.MustNotExist())
						return err
					}); err != nil {
						return idempotency.Answer{Status: 503, Body: []byte(err.Error())}, nil
					}
					if w == 0 {
						<-gate
					}
				}
				return idempotency.Answer{Status: 201, Body: []byte(fmt.Sprintf("run %d", runs))}, nil
			}
			req := idempotency.Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)}
			var got []string
			for range 2 {
				a, replayed, err := k.Do(t.Context(), "key-1", req, run)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprintf("%d %s replayed=%v", a.Status, a.Body, replayed))
			}
			if diff := cmp.Diff([]string{"201 run 2 replayed=false", "201 run 2 replayed=true"}, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
			var want []string
			for w := range writes {
				want = append(want, fmt.Sprintf("run 2 write %d", w))
			}
			if diff := cmp.Diff(want, idempotencytest.Effects(t, mem)); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
		})
	}
}

// A store that reads one record in one statement (storage.Getter), as
// PostgreSQL does, serves the look for a stored answer and the calls'
// storage.Get: the suite holds on it too.
func TestMemoryGetter(t *testing.T) {
	idempotencytest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		s, _ := teststore.Memory(t)
		g := storagetest.Getting(s)
		return g, g
	})
}

// TestStoreGetInUnit: storage.Get through k.Store reads where a View
// would: from the store, in its own statement, without a unit and before
// the call's first write; on the unit's transaction once it is open,
// seeing the call's own writes, in the call and in a nested Update. Do's
// look for a stored answer is one Get of the store.
func TestStoreGetInUnit(t *testing.T) {
	base := storagetest.Getting(memory.New())
	k := idempotency.New(idempotency.Options{})
	k.Open(base)
	area := k.Store(base)
	type read struct {
		Value string
		Err   string
		Gets  int64 // the store's Gets so far
	}
	get := func(ctx context.Context) read {
		rec, err := storage.Get(ctx, area, "effects", "e")
		r := read{Value: string(rec.Value), Gets: base.Gets()}
		if err != nil {
			r.Err = err.Error()
		}
		return r
	}
	missing := storage.ErrNotFound.Error()
	var got []read
	got = append(got, get(t.Context()))
	_, _, err := k.Do(t.Context(), "key", idempotency.Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)},
		func(ctx context.Context) (idempotency.Answer, error) {
			got = append(got, get(ctx))
			if err := area.Update(ctx, func(tx storage.Tx) error {
				_, err := tx.Put("effects", "e", []byte("written"), storage.AnyVersion)
				return err
			}); err != nil {
				return idempotency.Answer{}, err
			}
			got = append(got, get(ctx))
			if err := area.Update(ctx, func(storage.Tx) error {
				got = append(got, get(ctx))
				return nil
			}); err != nil {
				return idempotency.Answer{}, err
			}
			return idempotency.Answer{Status: 201}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	want := []read{
		{Err: missing, Gets: 1},     // no unit: the store's Get
		{Err: missing, Gets: 3},     // after Do's look; the unit is not open: the store's Get
		{Value: "written", Gets: 3}, // the unit's transaction, with the call's write
		{Value: "written", Gets: 3}, // nested in an Update of the unit
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// stepping counts the functions run in steps (storage.Stepper) that reach
// the store it wraps, and whether it holds transactions (storage.Beginner)
// is the wrapped store's.
type stepping struct {
	storage.Store
	steps atomic.Int64
}

func (s *stepping) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	s.steps.Add(1)
	return storage.UpdateSteps(ctx, s.Store, first)
}

func (s *stepping) Begin(ctx context.Context) (storage.Held, error) {
	return storage.Begin(ctx, s.Store)
}

// TestStorePassesOnStepsAndHeld: a store wrapped by Keeper.Store passes
// functions run in steps and held transactions on to the store it wraps,
// outside a unit: a unit opened on such a store keeps them (bolt runs its
// batch's other Updates between the steps; memory holds the transaction
// for the call). Inside a unit, a function run in steps runs in the
// unit's transaction and commits with the answer, and a held transaction
// is refused (the call's Update takes part in the unit instead).
func TestStorePassesOnStepsAndHeld(t *testing.T) {
	ctx := t.Context()
	base := &stepping{Store: memory.New()}
	k := idempotency.New(idempotency.Options{})
	s := k.Store(base)
	k.Open(s)
	put := func(key string) func(storage.Tx) (storage.Step, error) {
		return func(tx storage.Tx) (storage.Step, error) {
			_, err := tx.Put("c", key, []byte("v"), storage.AnyVersion)
			return storage.Step{}, err
		}
	}
	if err := storage.UpdateSteps(ctx, s, put("outside")); err != nil {
		t.Fatal(err)
	}
	if n := base.steps.Load(); n != 1 {
		t.Errorf("functions in steps that reached the wrapped store: %d; want 1", n)
	}
	h, err := storage.Begin(ctx, s)
	if err != nil {
		t.Fatalf("Begin outside a unit: %v", err)
	}
	h.Rollback()

	var heldErr error
	_, _, err = k.Do(ctx, "key-1", idempotency.Request{Site: "s", Operation: "POST /x"}, func(ctx context.Context) (idempotency.Answer, error) {
		if err := storage.UpdateSteps(ctx, s, put("inside")); err != nil {
			return idempotency.Answer{}, err
		}
		_, heldErr = storage.Begin(ctx, s)
		return idempotency.Answer{Status: 201, Body: []byte("{}")}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(heldErr, storage.ErrNotHeld) {
		t.Errorf("Begin in a unit = %v; want ErrNotHeld", heldErr)
	}
	// The unit's own transaction was held (memory): the function in
	// steps ran in it, not as one more function in steps of the store.
	if n := base.steps.Load(); n != 1 {
		t.Errorf("functions in steps that reached the wrapped store after the keyed call: %d; want still 1", n)
	}
	if _, err := storage.Get(ctx, base, "c", "inside"); err != nil {
		t.Errorf("the keyed call's write: %v", err)
	}
}
