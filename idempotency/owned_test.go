package idempotency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestOwnedIndexLoad(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 123456000, time.UTC)
	a, b := recordKey("site-a", "POST /x", "k1"), recordKey("site-b", "POST /x", "k1")
	store := memory.New()
	err := store.Update(ctx, func(tx storage.Tx) error {
		for _, e := range []struct {
			rk    string
			at    time.Time
			value string
		}{
			{a, t0, "{}"},                                  // an answer kept whole under its digest
			{b, t0.Add(time.Second), `{"id":"s1"}`},        // a body kept apart
			{b, t0.Add(time.Hour), "\x01{\"hash\":\"h\"}"}, // the same key, answered again after it expired
		} {
			if _, err := tx.Put(expiry.Name, entryKey(e.rk, e.at), []byte(e.value), storage.AnyVersion); err != nil {
				return err
			}
		}
		// Another class in the same index is not an answer.
		_, err := tx.Put(expiry.Name, expiry.Key(retention.Entry{Class: "other", At: t0}, "x"), []byte("{}"), storage.AnyVersion)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ix := newOwnedIndex()
	if err := ix.load(ctx, store); err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for _, rk := range []string{a, b, "site-c/none"} {
		if at, ok := ix.get(rk); ok {
			got[rk] = at
		}
	}
	want := map[string]time.Time{a: t0, b: t0.Add(time.Hour)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("index after load (-want +got):\n%s", diff)
	}

	// A second load reads nothing: the index is kept up to date instead.
	if err := store.Update(ctx, func(tx storage.Tx) error {
		_, err := tx.Put(expiry.Name, entryKey("site-c/late", t0), []byte("{}"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := ix.load(ctx, store); err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.get("site-c/late"); ok {
		t.Error("a second load read the store again")
	}
}

func TestOwnedIndexLoadFails(t *testing.T) {
	ctx := context.Background()
	store := memory.New()
	store.Close()
	ix := newOwnedIndex()
	if err := ix.load(ctx, store); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("load on a closed store = %v; want ErrClosed", err)
	}
	if ix.loaded {
		t.Error("a failed load counts as done")
	}
}

func TestOwnedIndexAddRemove(t *testing.T) {
	ix := loadedIndex()
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	ix.add("k", t0)
	ix.add("k", t0.Add(time.Minute)) // replaced after it expired
	ix.remove("k", t0)               // the sweep of the old answer commits late
	if at, ok := ix.get("k"); !ok || !at.Equal(t0.Add(time.Minute)) {
		t.Fatalf("after the old answer's sweep: get = %v, %v; want the new answer's time", at, ok)
	}
	ix.remove("k", t0.Add(time.Minute))
	if _, ok := ix.get("k"); ok {
		t.Error("a swept answer is still found")
	}
}

func TestOwnedIndexConcurrent(t *testing.T) {
	ix := loadedIndex()
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				rk := strings.Repeat("k", g+1)
				at := t0.Add(time.Duration(i) * time.Second)
				ix.add(rk, at)
				ix.get(rk)
				ix.remove(rk, at)
			}
		})
	}
	wg.Wait()
	if n := len(ix.at); n != 0 {
		t.Errorf("%d answers left; want none", n)
	}
}

// loadedIndex is an empty index, as loaded from an empty store.
func loadedIndex() *ownedIndex {
	ix := newOwnedIndex()
	ix.loaded, ix.at = true, map[ownedID]int64{}
	return &ix
}

func TestOwnedEncoding(t *testing.T) {
	body := []byte(`{"id":"s1","note":"` + strings.Repeat("x", 2*inlineBody) + `"}`)
	rec := newRecord("h", Answer{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}, "Location": {"/s/1"}}, Body: body},
		time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	if !rec.Apart {
		t.Fatal("the test's body should be long enough to be kept apart")
	}
	v := encodeOwned([]byte("left over"), rec)
	if !bytes.HasPrefix(v, []byte("left over\x01")) {
		t.Fatalf("encodeOwned wrote over what the buffer held: %.12q", v)
	}
	got, owned, err := decodeOwned(v[len("left over"):])
	if err != nil || !owned {
		t.Fatalf("decodeOwned = %v, %v", owned, err)
	}
	if diff := cmp.Diff(rec.answer(), got.answer()); diff != "" {
		t.Errorf("answer after a round trip (-want +got):\n%s", diff)
	}
	if got.Hash != rec.Hash || !got.At.Equal(rec.At) {
		t.Errorf("head after a round trip: %+v; want %+v", got, rec)
	}
	for _, old := range []string{"{}", `{"id":"s1"}`, ""} {
		if _, owned, err := decodeOwned([]byte(old)); owned || err != nil {
			t.Errorf("decodeOwned(%q) = %v, %v; want an entry of the layout with a head under the digest", old, owned, err)
		}
	}
}

// ownedRun is a call that writes nothing and answers body, counting its
// runs.
func ownedRun(ran *int, status int, body []byte) func(context.Context) (Answer, error) {
	return func(context.Context) (Answer, error) {
		*ran++
		return Answer{Status: status, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: body}, nil
	}
}

// collection lists coll's records: key → value.
func collection(t *testing.T, store storage.Store, coll string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := store.View(t.Context(), func(tx storage.Tx) error {
		for r, err := range tx.Scan(coll, storage.Range{}) {
			if err != nil {
				return err
			}
			out[r.Key] = string(r.Value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOwnedLayout: on a store one process owns, an answer is one record,
// its expiry entry, which a restarted process finds again; a second
// keeper on the store finds what the first stored, and the sweep deletes
// the answer and the index forgets it.
func TestOwnedLayout(t *testing.T) {
	const retention = time.Hour
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	small, large := []byte(`{"id":"s1"}`), []byte(`{"note":"`+strings.Repeat("x", 3*inlineBody)+`"}`)
	req := func(body string) Request { return Request{Site: "s", Operation: "POST /x", Body: []byte(body)} }
	path := filepath.Join(t.TempDir(), "dk.db")
	open := func() (storage.Store, *Keeper, *deliverykit.ManualClock) {
		store, err := bolt.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		clock := deliverykit.NewManualClock(t0)
		k := New(Options{Retention: retention, Clock: clock})
		k.Open(store)
		if k.own == nil {
			t.Fatal("a keeper on a bolt store does not take it for one process's own")
		}
		return store, k, clock
	}
	store, k, _ := open()
	ran := 0
	for _, c := range []struct {
		key  string
		body []byte
	}{{"small", small}, {"large", large}} {
		if _, replayed, err := k.Do(t.Context(), c.key, req(`{}`), ownedRun(&ran, 201, c.body)); err != nil || replayed {
			t.Fatalf("Do(%s) = replayed %v, %v", c.key, replayed, err)
		}
	}
	if got := collection(t, store, collKeys); len(got) != 0 {
		t.Errorf("records under digests on an owned store: %q", got)
	}
	entries := collection(t, store, expiry.Name)
	if len(entries) != 2 {
		t.Errorf("expiry entries: %d; want one per answer", len(entries))
	}
	for key, v := range entries {
		if v == "" || v[0] != ownedMark {
			t.Errorf("entry %s = %.20q; want an answer whole", key, v)
		}
	}
	// Another keeper on the same store: the same answers, the same keys
	// in flight.
	other := New(Options{Retention: retention, Clock: k.clock})
	other.Open(store)
	if a, replayed, err := other.Do(t.Context(), "large", req(`{}`), ownedRun(&ran, 201, nil)); err != nil || !replayed || !bytes.Equal(a.Body, large) {
		t.Errorf("the other keeper's Do = replayed %v, %d bytes, %v; want the replay", replayed, len(a.Body), err)
	}
	if other.keys != k.keys {
		t.Error("two keepers on one owned store hold their keys apart")
	}
	store.Close()

	// A restart: the index is built again from the file.
	store, k, clock := open()
	for _, c := range []struct {
		key  string
		body []byte
	}{{"small", small}, {"large", large}} {
		a, replayed, err := k.Do(t.Context(), c.key, req(` { } `), ownedRun(&ran, 201, nil))
		want := Answer{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: c.body}
		if err != nil || !replayed {
			t.Fatalf("after a restart, Do(%s) = replayed %v, %v; want the replay", c.key, replayed, err)
		}
		if diff := cmp.Diff(want, a); diff != "" {
			t.Errorf("after a restart, %s's answer (-want +got):\n%s", c.key, diff)
		}
	}
	if _, _, err := k.Do(t.Context(), "small", req(`{"other":1}`), ownedRun(&ran, 201, nil)); !errors.Is(err, ErrKeyReused) {
		t.Errorf("another request under a stored key: %v; want ErrKeyReused", err)
	}
	if ran != 2 {
		t.Errorf("the calls ran %d times; want 2 (the first of each key)", ran)
	}

	// Past the retention: the sweep deletes both, and the keys are free.
	clock.Advance(retention)
	if n, err := k.Sweep(t.Context(), clock.Now(), 0); err != nil || n != 2 {
		t.Fatalf("Sweep = %d, %v; want 2", n, err)
	}
	if got := collection(t, store, expiry.Name); len(got) != 0 {
		t.Errorf("left after the sweep: %q", got)
	}
	if _, ok := k.own.get(recordKey("s", "POST /x", "small")); ok {
		t.Error("the index still has a swept answer")
	}
	if _, replayed, err := k.Do(t.Context(), "small", req(`{"other":1}`), ownedRun(&ran, 201, small)); err != nil || replayed || ran != 3 {
		t.Errorf("after the sweep: replayed %v, %v, ran %d times; want a new run", replayed, err, ran)
	}
}

// TestOwnedReadsEarlierLayout: answers stored with their head under the
// digest, as a keeper that did not take the store for its own stored
// them, are replayed by one that does, replaced once expired, and swept.
func TestOwnedReadsEarlierLayout(t *testing.T) {
	const retention = time.Hour
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	store := memory.New()
	clock := deliverykit.NewManualClock(t0)
	earlier := New(Options{Retention: retention, Clock: clock})
	earlier.store = store // as Open did before stores were owned
	small, large := []byte(`{"id":"s1"}`), []byte(`{"note":"`+strings.Repeat("x", 3*inlineBody)+`"}`)
	// A document whose first byte is the mark of an answer kept whole.
	binary := append([]byte{ownedMark}, bytes.Repeat([]byte{0xff, '\n'}, inlineBody)...)
	req := Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)}
	ran := 0
	for _, c := range []struct {
		key  string
		body []byte
	}{{"small", small}, {"large", large}, {"binary", binary}, {"renewed", small}} {
		if _, _, err := earlier.Do(t.Context(), c.key, req, ownedRun(&ran, 201, c.body)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(collection(t, store, collKeys)); n != 4 {
		t.Fatalf("the earlier layout stored %d heads; want 4", n)
	}

	k := New(Options{Retention: retention, Clock: clock})
	k.Open(store)
	clock.Advance(retention / 2)
	for _, c := range []struct {
		key  string
		body []byte
	}{{"small", small}, {"large", large}, {"binary", binary}} {
		a, replayed, err := k.Do(t.Context(), c.key, req, ownedRun(&ran, 201, nil))
		if err != nil || !replayed || !bytes.Equal(a.Body, c.body) {
			t.Errorf("Do(%s) = replayed %v, %.10q (%d bytes), %v; want the earlier answer", c.key, replayed, a.Body, len(a.Body), err)
		}
	}
	// "renewed" expires and is answered again: its head goes.
	clock.Advance(retention / 2)
	if _, replayed, err := k.Do(t.Context(), "renewed", req, ownedRun(&ran, 201, large)); err != nil || replayed {
		t.Fatalf("an expired key: replayed %v, %v; want a new run", replayed, err)
	}
	heads := collection(t, store, collKeys)
	if _, ok := heads[recordKey("s", "POST /x", "renewed")]; ok || len(heads) != 3 {
		t.Errorf("heads after the renewal: %d, the renewed key's kept %v; want the other 3", len(heads), ok)
	}
	if a, replayed, err := k.Do(t.Context(), "renewed", req, ownedRun(&ran, 201, nil)); err != nil || !replayed || !bytes.Equal(a.Body, large) {
		t.Errorf("the renewed key: replayed %v, %d bytes, %v; want the new answer", replayed, len(a.Body), err)
	}
	if n, err := k.Sweep(t.Context(), clock.Now(), 0); err != nil || n != 3 {
		t.Fatalf("Sweep = %d, %v; want the 3 earlier answers", n, err)
	}
	if heads := collection(t, store, collKeys); len(heads) != 0 {
		t.Errorf("heads after the sweep: %q", heads)
	}
	for _, key := range []string{"small", "large", "binary"} {
		if _, ok := k.own.get(recordKey("s", "POST /x", key)); ok {
			t.Errorf("the index still has %s's swept answer", key)
		}
	}
	if n := len(collection(t, store, expiry.Name)); n != 1 {
		t.Errorf("%d expiry entries after the sweep; want the renewed answer's", n)
	}
	if ran != 5 {
		t.Errorf("the calls ran %d times; want 5", ran)
	}
}

// TestOwnedConcurrent: keepers on one owned store, calls under a few keys
// from many goroutines, the sweep running beside them: one effect per
// key, every success the same answer; then, past the retention, exactly
// one new effect per key, which the later calls replay.
func TestOwnedConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stores func(*testing.T) (storage.Store, storage.Store)
	}{{"memory", teststore.Memory}, {"bolt", teststore.Bolt}} {
		t.Run(tc.name, func(t *testing.T) {
			const (
				retention = time.Hour
				keys      = 8
				workers   = 6
				calls     = 40
			)
			store, _ := tc.stores(t)
			// Every reading a millisecond on: two answers are never
			// stamped alike, so nothing but the keys held keeps two
			// keepers from storing one each.
			clock := &tickingClock{now: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)}
			keepers := make([]*Keeper, 2)
			for i := range keepers {
				keepers[i] = New(Options{Retention: retention, Clock: clock})
				keepers[i].Open(store)
			}
			var mu sync.Mutex
			answers := map[string]map[string]bool{}
			round := func(phase int) {
				var wg sync.WaitGroup
				stop := make(chan struct{})
				wg.Go(func() { // the sweep, all along
					for {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := keepers[0].Sweep(t.Context(), clock.Now(), 0); err != nil {
							t.Error(err)
							return
						}
					}
				})
				var callers sync.WaitGroup
				for w := range workers {
					callers.Go(func() {
						k := keepers[w%len(keepers)]
						for c := range calls {
							key := "key-" + strconv.Itoa((w+c)%keys)
							a, _, err := k.Do(t.Context(), key, Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)}, func(ctx context.Context) (Answer, error) {
								var id string
								err := k.Store(store).Update(ctx, func(tx storage.Tx) error {
									n, err := tx.NextSequence("effects")
									if err != nil {
										return err
									}
									id = fmt.Sprintf("%s-%d-%d", key, phase, n)
									_, err = tx.Put("effects", id, []byte("{}"), storage.MustNotExist())
									return err
								})
								return Answer{Status: 201, Body: []byte(`{"id":"` + id + `"}`)}, err
							})
							switch {
							case errors.Is(err, ErrInFlight):
							case err != nil:
								t.Errorf("Do(%s): %v", key, err)
							default:
								mu.Lock()
								if answers[key] == nil {
									answers[key] = map[string]bool{}
								}
								answers[key][fmt.Sprint(phase, string(a.Body))] = true
								mu.Unlock()
							}
						}
					})
				}
				callers.Wait()
				close(stop)
				wg.Wait()
			}
			round(1)
			clock.advance(retention)
			round(2)
			effects := map[string][]string{} // key → the effects committed
			for id := range collection(t, store, "effects") {
				key := id[:strings.Index(id, "-")+2]
				effects[key] = append(effects[key], id)
			}
			for i := range keys {
				key := "key-" + strconv.Itoa(i)
				if n := len(effects[key]); n != 2 {
					t.Errorf("%s: %d effects %v; want one before the retention ran out and one after", key, n, effects[key])
				}
				if n := len(answers[key]); n != 2 {
					t.Errorf("%s: %d distinct answers %v; want one per phase", key, n, answers[key])
				}
			}
		})
	}
}

// tickingClock moves a millisecond on at every reading.
type tickingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *tickingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func (c *tickingClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
