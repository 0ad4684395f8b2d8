package idempotency

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
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
	var ix ownedIndex
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
	var ix ownedIndex
	if err := ix.load(ctx, store); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("load on a closed store = %v; want ErrClosed", err)
	}
	if ix.loaded {
		t.Error("a failed load counts as done")
	}
}

func TestOwnedIndexAddRemove(t *testing.T) {
	ix := ownedIndex{loaded: true, at: map[string]int64{}}
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
	ix := ownedIndex{loaded: true, at: map[string]int64{}}
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

func TestOwnedEncoding(t *testing.T) {
	body := []byte(`{"id":"s1","note":"` + strings.Repeat("x", 2*inlineBody) + `"}`)
	rec := newRecord("h", Answer{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}, "Location": {"/s/1"}}, Body: body},
		time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	if !rec.Apart {
		t.Fatal("the test's body should be long enough to be kept apart")
	}
	v, err := encodeOwned(rec)
	if err != nil {
		t.Fatal(err)
	}
	got, owned, err := decodeOwned(v)
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
