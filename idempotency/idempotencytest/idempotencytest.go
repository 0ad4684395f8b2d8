// Package idempotencytest is the idempotency keeper's suite for a storage
// backend: replay, a reused key, a key in flight, expiry and the sites'
// scopes, with the effects counted in the store.
package idempotencytest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/google/go-cmp/cmp"
)

// NewStores returns two stores on one fresh database: two servers' stores
// for a backend shared by servers, the same store twice otherwise.
type NewStores func(t *testing.T) (storage.Store, storage.Store)

// Run runs the suite.
func Run(t *testing.T, newStores NewStores) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, NewStores)
	}{
		{"Replay", testReplay},
		{"Statuses", testStatuses},
		{"Mismatch", testMismatch},
		{"InFlight", testInFlight},
		{"InFlightElsewhere", testInFlightElsewhere},
		{"Expiry", testExpiry},
		{"TenantScope", testTenantScope},
		{"NestedFailure", testNestedFailure},
		{"RunError", testRunError},
		{"LazyUnit", testLazyUnit},
		{"NoWrite", testNoWrite},
		{"LargeAnswer", testLargeAnswer},
		{"StoredMeanwhile", testStoredMeanwhile},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStores) })
	}
}

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// server is one process: a keeper and the store its "area" writes to.
type server struct {
	k     *idempotency.Keeper
	store storage.Store // the area's store, wrapped
}

func newServer(s storage.Store, clock deliverykit.Clock) server {
	k := idempotency.New(idempotency.Options{Clock: clock})
	k.Open(s)
	return server{k: k, store: k.Store(s)}
}

// effect is an area's write: a record in "effects" per call, numbered by
// a sequence, as a create does.
func (s server) effect(ctx context.Context, name string) (string, error) {
	var id string
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		n, err := tx.NextSequence("effects")
		if err != nil {
			return err
		}
		id = name + "-" + strconv.FormatUint(n, 10)
		_, err = tx.Put("effects", id, []byte(`{}`), storage.MustNotExist())
		return err
	})
	return id, err
}

// create is a call whose answer names the effect it made.
func (s server) create(name string) func(context.Context) (idempotency.Answer, error) {
	return func(ctx context.Context) (idempotency.Answer, error) {
		id, err := s.effect(ctx, name)
		if err != nil {
			return idempotency.Answer{}, err
		}
		return idempotency.Answer{Status: http.StatusCreated, Header: map[string][]string{"Location": {"/things/" + id}},
			Body: []byte(`{"id":"` + id + `"}`)}, nil
	}
}

// Effects lists the keys of the "effects" collection, where the suite's
// calls (and a package's own tests of the unit) record what they did.
func Effects(t *testing.T, s storage.Store) []string {
	t.Helper()
	var keys []string
	err := s.View(t.Context(), func(tx storage.Tx) error {
		for r, err := range tx.Scan("effects", storage.Range{}) {
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
	return keys
}

func req(site, body string) idempotency.Request {
	return idempotency.Request{Site: site, Operation: "POST /things", Body: []byte(body)}
}

type result struct {
	Answer   idempotency.Answer
	Replayed bool
	Err      string
}

func do(t *testing.T, s server, key string, r idempotency.Request, run func(context.Context) (idempotency.Answer, error)) result {
	t.Helper()
	a, replayed, err := s.k.Do(t.Context(), key, r, run)
	res := result{Answer: a, Replayed: replayed}
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

func created(id string, replayed bool) result {
	return result{Answer: idempotency.Answer{Status: http.StatusCreated, Header: map[string][]string{"Location": {"/things/" + id}},
		Body: []byte(`{"id":"` + id + `"}`)}, Replayed: replayed}
}

func testReplay(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	got := []result{
		do(t, s, "k1", req("site-1", `{"a":1,"b":[1,2]}`), s.create("x")),
		// The same request, its JSON members in another order and spaced.
		do(t, s, "k1", req("site-1", "{ \"b\": [1, 2],\n \"a\": 1 }"), s.create("x")),
		do(t, s, "k2", req("site-1", `{"a":1,"b":[1,2]}`), s.create("x")),
	}
	want := []result{created("x-1", false), created("x-1", true), created("x-2", false)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x-1", "x-2"}, Effects(t, a)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// testStatuses: 2xx and 4xx answers are kept with their effect; 5xx, 409
// and 429 answers roll the call back and a retry runs again.
func testStatuses(t *testing.T, newStores NewStores) {
	for _, tc := range []struct {
		status int
		stored bool
	}{{200, true}, {201, true}, {204, true}, {400, true}, {404, true}, {422, true}, {409, false}, {429, false}, {500, false}, {503, false}} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			a, _ := newStores(t)
			s := newServer(a, deliverykit.NewManualClock(start))
			run := func(ctx context.Context) (idempotency.Answer, error) {
				id, err := s.effect(ctx, "x")
				return idempotency.Answer{Status: tc.status, Body: []byte(id)}, err
			}
			first := do(t, s, "k", req("site-1", `{}`), run)
			second := do(t, s, "k", req("site-1", `{}`), run)
			want := result{Answer: idempotency.Answer{Status: tc.status, Body: []byte("x-1")}}
			if diff := cmp.Diff(want, first); diff != "" {
				t.Errorf("first (-want +got):\n%s", diff)
			}
			wantEffects := []string{"x-1"}
			want.Replayed = true
			if !tc.stored {
				// Rolled back: the effect and its sequence value are
				// gone, so the retry runs and makes x-1 again, and is
				// rolled back too.
				wantEffects, want.Replayed = nil, false
			}
			if diff := cmp.Diff(want, second); diff != "" {
				t.Errorf("second (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantEffects, Effects(t, a)); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
		})
	}
}

func testMismatch(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	do(t, s, "k", req("site-1", `{"a":1}`), s.create("x"))
	reused := do(t, s, "k", req("site-1", `{"a":2}`), s.create("x"))
	if reused.Err != idempotency.ErrKeyReused.Error() {
		t.Errorf("another body: %+v, want %v", reused, idempotency.ErrKeyReused)
	}
	// Another operation is another scope: the key is free there.
	other := do(t, s, "k", idempotency.Request{Site: "site-1", Operation: "PATCH /things", Body: []byte(`{"a":1}`)}, s.create("x"))
	if diff := cmp.Diff(created("x-2", false), other); diff != "" {
		t.Errorf("another operation (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x-1", "x-2"}, Effects(t, a)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// testInFlight: a second call while the first runs in this process is
// ErrInFlight; once the first is done, it is the replay.
func testInFlight(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan result)
	go func() {
		done <- do(t, s, "k", req("site-1", `{}`), func(ctx context.Context) (idempotency.Answer, error) {
			close(entered)
			<-release
			return s.create("x")(ctx)
		})
	}()
	<-entered
	during := do(t, s, "k", req("site-1", `{}`), s.create("x"))
	close(release)
	first := <-done
	after := do(t, s, "k", req("site-1", `{}`), s.create("x"))
	want := []result{created("x-1", false), {Err: idempotency.ErrInFlight.Error()}, created("x-1", true)}
	if diff := cmp.Diff(want, []result{first, during, after}); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if deliverykit.KindOf(idempotency.ErrInFlight) != deliverykit.KindConflict {
		t.Errorf("ErrInFlight is %v, want a conflict", deliverykit.KindOf(idempotency.ErrInFlight))
	}
}

// testInFlightElsewhere: two servers on one store get the same key at
// once: one effect, and the other answer is the replay or ErrInFlight.
func testInFlightElsewhere(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	clock := deliverykit.NewManualClock(start)
	s1, s2 := newServer(a, clock), newServer(b, clock)
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan result)
	go func() {
		done <- do(t, s1, "k", req("site-1", `{}`), func(ctx context.Context) (idempotency.Answer, error) {
			close(entered)
			<-release
			return s1.create("x")(ctx)
		})
	}()
	<-entered
	other := make(chan result)
	go func() { other <- do(t, s2, "k", req("site-1", `{}`), s2.create("x")) }()
	close(release)
	first, second := <-done, <-other
	if first.Err != "" || second.Err != "" && second.Err != idempotency.ErrInFlight.Error() {
		t.Fatalf("first %+v, second %+v", first, second)
	}
	if second.Err == "" && !cmp.Equal(second, result{Answer: first.Answer, Replayed: true}) {
		// The second server's unit may also have won: then the first
		// is the replay of it.
		if !first.Replayed || !cmp.Equal(first.Answer, second.Answer) {
			t.Errorf("first %+v, second %+v: want one answer and its replay", first, second)
		}
	}
	if n := len(Effects(t, a)); n != 1 {
		t.Errorf("%d effects, want 1", n)
	}
	if again := do(t, s2, "k", req("site-1", `{}`), s2.create("x")); !again.Replayed {
		t.Errorf("after both: %+v, want the replay", again)
	}
}

// testExpiry: past the retention a key is free again and the sweep
// deletes its answer; within it the answer stays.
func testExpiry(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	clock := deliverykit.NewManualClock(start)
	s := newServer(a, clock)
	do(t, s, "k", req("site-1", `{}`), s.create("x"))
	do(t, s, "old", req("site-1", `{}`), s.create("x"))
	clock.Advance(idempotency.DefaultRetention - time.Second)
	if n, err := s.k.Sweep(t.Context(), clock.Now(), 0); err != nil || n != 0 {
		t.Fatalf("sweep within the retention: %d, %v", n, err)
	}
	if r := do(t, s, "k", req("site-1", `{}`), s.create("x")); !r.Replayed {
		t.Errorf("within the retention: %+v, want the replay", r)
	}
	clock.Advance(time.Second)
	// Not swept yet: the key is free all the same.
	if r := do(t, s, "k", req("site-1", `{}`), s.create("x")); r.Replayed || r.Err != "" {
		t.Errorf("past the retention: %+v, want a new run", r)
	}
	// The renewed key is kept; the other one goes.
	if n, err := s.k.Sweep(t.Context(), clock.Now(), 0); err != nil || n != 1 {
		t.Errorf("sweep: %d, %v; want 1", n, err)
	}
	if r := do(t, s, "k", req("site-1", `{}`), s.create("x")); !r.Replayed {
		t.Errorf("renewed key: %+v, want the replay", r)
	}
	if n, err := s.k.Sweep(t.Context(), clock.Now().Add(idempotency.DefaultRetention), 0); err != nil || n != 1 {
		t.Errorf("last sweep: %d, %v; want 1", n, err)
	}
	if diff := cmp.Diff([]string{"x-1", "x-2", "x-3"}, Effects(t, a)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

func testTenantScope(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	got := []result{
		do(t, s, "k", req("site-1", `{}`), s.create("x")),
		do(t, s, "k", req("site-2", `{}`), s.create("x")),
		do(t, s, "k", req("site-1", `{}`), s.create("x")),
		do(t, s, "k", req("site-2", `{}`), s.create("x")),
		// A different request under site-2's key does not touch site-1's.
		do(t, s, "k", req("site-2", `{"other":true}`), s.create("x")),
	}
	want := []result{created("x-1", false), created("x-2", false), created("x-1", true), created("x-2", true),
		{Err: idempotency.ErrKeyReused.Error()}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// testNestedFailure: a nested Update that fails leaves no write of its
// own while the call's earlier writes stay, as without a key.
func testNestedFailure(t *testing.T, newStores NewStores) {
	refused := deliverykit.E(deliverykit.KindFailedPrecondition, "refused")
	for _, tc := range []struct {
		name        string
		writeFirst  bool // the failing update writes before it fails
		wantReplay  bool
		wantEffects []string
	}{
		{"refusal before writing", false, true, []string{"kept"}},
		{"refusal after writing", true, false, []string{"kept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := newStores(t)
			s := newServer(a, deliverykit.NewManualClock(start))
			alone := 0
			run := func(ctx context.Context) (idempotency.Answer, error) {
				if !idempotency.InUnit(ctx) {
					alone++
				}
				err := s.store.Update(ctx, func(tx storage.Tx) error {
					_, err := tx.Put("effects", "kept", []byte(`{}`), storage.AnyVersion)
					return err
				})
				if err != nil {
					return idempotency.Answer{}, err
				}
				err = s.store.Update(ctx, func(tx storage.Tx) error {
					if tc.writeFirst {
						if _, err := tx.Put("effects", "dropped", []byte(`{}`), storage.AnyVersion); err != nil {
							return err
						}
					}
					return refused
				})
				if !errors.Is(err, refused) {
					return idempotency.Answer{}, fmt.Errorf("nested update: %v", err)
				}
				// A View sees the call's own writes and cannot write.
				err = s.store.View(ctx, func(tx storage.Tx) error {
					if _, err := tx.Get("effects", "kept"); err != nil {
						return err
					}
					if _, err := tx.Put("effects", "view", nil, storage.AnyVersion); !errors.Is(err, storage.ErrReadOnly) {
						return fmt.Errorf("put in a view: %v", err)
					}
					return nil
				})
				return idempotency.Answer{Status: http.StatusConflict + 3, Body: []byte("refused")}, err
			}
			first := do(t, s, "k", req("site-1", `{}`), run)
			second := do(t, s, "k", req("site-1", `{}`), run)
			if first.Err != "" || second.Err != "" {
				t.Fatalf("errors: %q, %q", first.Err, second.Err)
			}
			if second.Replayed != tc.wantReplay {
				t.Errorf("second replayed %v, want %v", second.Replayed, tc.wantReplay)
			}
			if diff := cmp.Diff(tc.wantEffects, Effects(t, a)); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
			// Refused before writing: the unit holds. After writing: the
			// unit rolls back and the call runs alone, on both calls, as
			// its answer is not kept (it wrote "kept").
			wantAlone := map[bool]int{false: 0, true: 2}[tc.writeFirst]
			if alone != wantAlone {
				t.Errorf("ran alone %d times, want %d", alone, wantAlone)
			}
		})
	}
}

// testRunError: a call that fails leaves nothing, and a retry runs.
func testRunError(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	boom := errors.New("boom")
	r := do(t, s, "k", req("site-1", `{}`), func(ctx context.Context) (idempotency.Answer, error) {
		if _, err := s.effect(ctx, "x"); err != nil {
			return idempotency.Answer{}, err
		}
		return idempotency.Answer{}, boom
	})
	if r.Err != "boom" {
		t.Fatalf("first: %+v, want boom", r)
	}
	if got := Effects(t, a); len(got) != 0 {
		t.Fatalf("effects after a failed call: %v", got)
	}
	if r := do(t, s, "k", req("site-1", `{}`), s.create("x")); r.Replayed || r.Err != "" {
		t.Errorf("retry: %+v, want a run", r)
	}
}

// testLazyUnit: the unit's transaction opens at the call's first write.
// Before it, the call reads committed state and another writer is not
// kept waiting (on a store with one writer it would wait for the whole
// call); after it, the call's Views see its own writes, also from inside
// one of its Updates.
func testLazyUnit(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	put := func(ctx context.Context, st storage.Store, key string) error {
		return st.Update(ctx, func(tx storage.Tx) error {
			_, err := tx.Put("effects", key, []byte(`{}`), storage.AnyVersion)
			return err
		})
	}
	has := func(tx storage.Tx, key string) (bool, error) {
		_, err := tx.Get("effects", key)
		if errors.Is(err, storage.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	if err := put(t.Context(), a, "before"); err != nil {
		t.Fatal(err)
	}
	read, proceed := make(chan struct{}), make(chan struct{})
	var seen []string
	note := func(what string, ok bool, err error) error {
		seen = append(seen, fmt.Sprintf("%s %v", what, ok))
		return err
	}
	run := func(ctx context.Context) (idempotency.Answer, error) {
		err := s.store.View(ctx, func(tx storage.Tx) error {
			ok, err := has(tx, "before")
			return note("before, read first", ok, err)
		})
		if err != nil {
			return idempotency.Answer{}, err
		}
		close(read)
		<-proceed
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			if _, err := tx.Put("effects", "x", []byte(`{}`), storage.MustNotExist()); err != nil {
				return err
			}
			// A View from inside the Update runs on its transaction.
			return s.store.View(ctx, func(tx storage.Tx) error {
				ok, err := has(tx, "x")
				return note("own write, nested view", ok, err)
			})
		})
		if err != nil {
			return idempotency.Answer{}, err
		}
		err = s.store.View(ctx, func(tx storage.Tx) error {
			ok, err := has(tx, "during")
			if err == nil {
				err = note("during, after the first write", ok, nil)
			}
			ok, err2 := has(tx, "x")
			return errors.Join(err, note("own write, view", ok, err2))
		})
		return idempotency.Answer{Status: http.StatusCreated, Body: []byte("x")}, err
	}
	done := make(chan result)
	go func() { done <- do(t, s, "k", req("site-1", `{}`), run) }()
	<-read
	// The call has read and not written: its unit holds no writer. (On a
	// store with one writer, a unit opened before would make this wait
	// for the call, which waits for this.)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	err := put(ctx, a, "during")
	cancel()
	close(proceed)
	first := <-done
	if err != nil {
		t.Fatalf("a write while the keyed call had only read: %v", err)
	}
	want := []string{"before, read first true", "own write, nested view true", "during, after the first write true", "own write, view true"}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	wantAnswer := result{Answer: idempotency.Answer{Status: http.StatusCreated, Body: []byte("x")}}
	if diff := cmp.Diff(wantAnswer, first); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	again := do(t, s, "k", req("site-1", `{}`), run)
	wantAnswer.Replayed = true
	if diff := cmp.Diff(wantAnswer, again); diff != "" {
		t.Errorf("repeat (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"before", "during", "x"}, Effects(t, a)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// testNoWrite: a call that only reads has its answer kept all the same
// (in a transaction of its own), and a repeat does not run it.
func testNoWrite(t *testing.T, newStores NewStores) {
	a, _ := newStores(t)
	s := newServer(a, deliverykit.NewManualClock(start))
	runs := 0
	run := func(ctx context.Context) (idempotency.Answer, error) {
		runs++
		err := s.store.View(ctx, func(tx storage.Tx) error {
			_, err := tx.Get("effects", "nothing")
			return err
		})
		if !errors.Is(err, storage.ErrNotFound) {
			return idempotency.Answer{}, fmt.Errorf("get: %v", err)
		}
		return idempotency.Answer{Status: http.StatusNotFound, Body: []byte("no such thing")}, nil
	}
	got := []result{do(t, s, "k", req("site-1", `{}`), run), do(t, s, "k", req("site-1", `{}`), run)}
	want := []result{{Answer: idempotency.Answer{Status: http.StatusNotFound, Body: []byte("no such thing")}},
		{Answer: idempotency.Answer{Status: http.StatusNotFound, Body: []byte("no such thing")}, Replayed: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if runs != 1 {
		t.Errorf("ran %d times, want 1", runs)
	}
}

// testLargeAnswer: an answer of several KiB (a session with its
// options; the keeper stores such a body apart from its key's record) is
// replayed byte for byte, from a call that wrote and from one that did
// not; a key renewed after the retention replays its new answer; and
// once swept, nothing of either answer is left in the store.
func testLargeAnswer(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	clock := deliverykit.NewManualClock(start)
	s, other := newServer(a, clock), newServer(b, clock)
	large := func(name string, write bool) func(context.Context) (idempotency.Answer, error) {
		return func(ctx context.Context) (idempotency.Answer, error) {
			id := name
			if write {
				var err error
				if id, err = s.effect(ctx, name); err != nil {
					return idempotency.Answer{}, err
				}
			}
			// Every byte value, and a newline, which ends a stored head.
			body := fmt.Appendf(nil, "{\"id\":%q}\n", id)
			for i := range 5000 {
				body = append(body, byte(i*7))
			}
			return idempotency.Answer{Status: http.StatusCreated, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: body}, nil
		}
	}
	first := do(t, s, "k", req("site-1", `{}`), large("x", true))
	noWrite := do(t, s, "read", req("site-1", `{}`), large("y", false))
	if first.Err != "" || noWrite.Err != "" {
		t.Fatalf("first calls: %+v, %+v", first, noWrite)
	}
	for name, want := range map[string]result{"k": first, "read": noWrite} {
		want.Replayed = true
		// On a shared backend, from the other server.
		if got := do(t, other, name, req("site-1", `{}`), large("z", true)); !cmp.Equal(want, got) {
			t.Errorf("replay of %q: got %d bytes %q…, want %d bytes %q…", name, len(got.Answer.Body), head(got.Answer.Body), len(want.Answer.Body), head(want.Answer.Body))
		}
	}
	clock.Advance(idempotency.DefaultRetention)
	renewed := do(t, s, "k", req("site-1", `{}`), large("x", true))
	if renewed.Replayed || !strings.HasPrefix(string(renewed.Answer.Body), `{"id":"x-2"}`) {
		t.Errorf("renewed key: %+v, want a new run", head(renewed.Answer.Body))
	}
	want := renewed
	want.Replayed = true
	if got := do(t, s, "k", req("site-1", `{}`), large("x", true)); !cmp.Equal(want, got) {
		t.Errorf("replay of the renewed key: got %q…", head(got.Answer.Body))
	}
	if n, err := s.k.Sweep(t.Context(), clock.Now().Add(idempotency.DefaultRetention), 0); err != nil || n != 2 {
		t.Errorf("sweep: %d, %v; want 2", n, err)
	}
	for _, coll := range []string{"idempotency.keys", "idempotency.expiry"} {
		err := a.View(t.Context(), func(tx storage.Tx) error {
			for r, err := range tx.Scan(coll, storage.Range{}) {
				if err != nil {
					return err
				}
				t.Errorf("left after the sweep in %s: %q", coll, r.Key)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func head(b []byte) []byte { return b[:min(len(b), 16)] }

// testStoredMeanwhile: another server stores an answer for the key after
// this server looked and found none, before this call writes. The call's
// write is then not kept, and its answer is the other server's, replayed.
//
// On a store one process owns (storage.Owner), the "servers" are two
// keepers in that process, which share the keys in flight: the other's
// call is refused (ErrInFlight) instead, and this call's answer is kept.
func testStoredMeanwhile(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	clock := deliverykit.NewManualClock(start)
	s1, s2 := newServer(a, clock), newServer(b, clock)
	looked, stored := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan result)
	go func() {
		done <- do(t, s1, "k", req("site-1", `{}`), func(ctx context.Context) (idempotency.Answer, error) {
			once.Do(func() { close(looked); <-stored })
			return s1.create("x")(ctx)
		})
	}()
	<-looked
	other := do(t, s2, "k", req("site-1", `{}`), s2.create("y"))
	close(stored)
	first := <-done
	if _, owned := a.(storage.Owner); owned {
		if diff := cmp.Diff(result{Err: idempotency.ErrInFlight.Error()}, other); diff != "" {
			t.Errorf("the other keeper's call (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(created("x-1", false), first); diff != "" {
			t.Errorf("the call that looked first (-want +got):\n%s", diff)
		}
		if again := do(t, s2, "k", req("site-1", `{}`), s2.create("y")); !cmp.Equal(again, created("x-1", true)) {
			t.Errorf("the other keeper's call again: %+v; want the replay of x-1", again)
		}
		return
	}
	if diff := cmp.Diff(created("y-1", false), other); diff != "" {
		t.Errorf("the other server's call (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(created("y-1", true), first); diff != "" {
		t.Errorf("the call that looked first (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"y-1"}, Effects(t, a)); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}
