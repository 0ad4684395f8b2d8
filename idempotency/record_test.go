package idempotency

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRecordRoundTrip: a stored answer reads back as it was written,
// whatever its headers and body hold.
func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for _, r := range []record{
		{Hash: "abc", Status: 201, At: at, body: []byte(`{"id":"x"}`)},
		{Hash: "abc", Status: 204, At: at.In(time.FixedZone("CET", 3600))},
		{Hash: "h", Status: 400, At: at, body: []byte("line 1\nline 2\n"), Header: map[string][]string{
			"Content-Type": {"application/json"}, "Location": {"/v1/x?a=1&b=<2>"}, "X-Odd": {"quote \" back \\ tab \t nl \n", "é 日本"},
			"X-Empty": {}, "X-Nil": nil,
		}},
	} {
		b, err := r.encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("decoding %q: %v", b, err)
		}
		if diff := cmp.Diff(r, got, cmp.AllowUnexported(record{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", b, diff)
		}
	}
}

// TestRecordApart: a record whose body is stored apart keeps only its head.
func TestRecordApart(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := newRecord("h", Answer{Status: 201, Body: make([]byte, inlineBody+1)}, at)
	if !r.Apart {
		t.Fatalf("a body of %d bytes is not apart", inlineBody+1)
	}
	b, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.body = nil
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(record{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("decoded %q (-want +got):\n%s", b, diff)
	}
	if small := newRecord("h", Answer{Status: 201, Body: make([]byte, inlineBody)}, at); small.Apart {
		t.Errorf("a body of %d bytes is apart", inlineBody)
	}
}

// TestLargeInlineRecordOfEarlierBuild: an answer stored by an earlier
// build, with its large body in its record, is still replayed.
func TestLargeInlineRecordOfEarlierBuild(t *testing.T) {
	store := memory.New()
	clock := deliverykit.NewManualClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	k := New(Options{Clock: clock})
	k.Open(store)
	body := bytes.Repeat([]byte("{}\n"), 1000)
	req := Request{Site: "s", Operation: "POST /things", Body: []byte(`{}`)}
	old := record{Hash: Hash(req.Operation, req.Body), Status: 201, At: clock.Now(), body: body}
	b, err := old.encode()
	if err != nil {
		t.Fatal(err)
	}
	// As that build stored it: the record under its digest, and an empty
	// entry in the expiry index.
	err = store.Update(t.Context(), func(tx storage.Tx) error {
		rk := recordKey("s", req.Operation, "k")
		if _, err := tx.Put(collKeys, rk, b, storage.MustNotExist()); err != nil {
			return err
		}
		return expiry.Add(tx, rk, old.entry())
	})
	if err != nil {
		t.Fatal(err)
	}
	a, replayed, err := k.Do(t.Context(), "k", req, func(context.Context) (Answer, error) {
		t.Error("the call ran")
		return Answer{}, nil
	})
	if err != nil || !replayed || !bytes.Equal(a.Body, body) {
		t.Errorf("Do: replayed %v, %d bytes, %v; want the stored %d bytes", replayed, len(a.Body), err, len(body))
	}
}

// beforeGet reads one record at a time (storage.Getter), as PostgreSQL
// does, and runs before ahead of each read.
type beforeGet struct {
	storage.Store
	before func(coll string)
	gets   int
}

func (s *beforeGet) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	s.gets++
	if s.before != nil {
		s.before(coll)
	}
	var rec storage.Record
	err := s.View(ctx, func(tx storage.Tx) (err error) {
		rec, err = tx.Get(coll, key)
		return err
	})
	return rec, err
}

// TestStoredBodyApart: the look for a stored answer reads a body stored
// apart with a second storage.Get; when the answer was swept or replaced
// between the two reads, it reads both again together, and finds nothing
// or the new answer whole, never a head without its body.
func TestStoredBodyApart(t *testing.T) {
	const retention = time.Hour
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	big := func(c byte) []byte { return bytes.Repeat([]byte{c}, inlineBody+1) }
	req := Request{Site: "s", Operation: "POST /x", Body: []byte(`{}`)}
	rk, hash := recordKey(req.Site, req.Operation, "k"), Hash(req.Operation, req.Body)
	for _, tc := range []struct {
		name string
		// between runs between the head's read and the body's.
		between      func(t *testing.T, k *Keeper, clock *deliverykit.ManualClock)
		wantReplayed bool
		wantBody     []byte
		wantRan      bool
	}{
		{"body read after the head", nil, true, big('a'), false},
		{"swept in between", func(t *testing.T, k *Keeper, clock *deliverykit.ManualClock) {
			if n, err := k.Sweep(t.Context(), t0.Add(2*retention), 10); err != nil || n != 1 {
				t.Fatalf("Sweep = %d, %v; want 1 answer swept", n, err)
			}
		}, false, big('r'), true},
		{"replaced in between", func(t *testing.T, k *Keeper, clock *deliverykit.ManualClock) {
			clock.Set(t0.Add(2 * retention))
			if _, _, err := k.keep(t.Context(), rk, hash, Answer{Status: 201, Body: big('b')}); err != nil {
				t.Fatal(err)
			}
		}, true, big('b'), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := deliverykit.NewManualClock(t0)
			store := &beforeGet{Store: memory.New()}
			k := New(Options{Retention: retention, Clock: clock})
			k.Open(store)
			ran := false
			run := func(body []byte) func(context.Context) (Answer, error) {
				return func(context.Context) (Answer, error) { ran = true; return Answer{Status: 201, Body: body}, nil }
			}
			if _, _, err := k.Do(t.Context(), "k", req, run(big('a'))); err != nil {
				t.Fatal(err)
			}
			clock.Set(t0.Add(retention / 2))
			once := tc.between
			store.before = func(coll string) {
				if coll == expiry.Name && once != nil {
					f := once
					once = nil
					f(t, k, clock)
				}
			}
			store.gets, ran = 0, false
			a, replayed, err := k.Do(t.Context(), "k", req, run(big('r')))
			if err != nil {
				t.Fatal(err)
			}
			if replayed != tc.wantReplayed || ran != tc.wantRan || !bytes.Equal(a.Body, tc.wantBody) {
				t.Errorf("Do = replayed %v, ran %v, body %.8q… (%d bytes); want replayed %v, ran %v, body %.8q…",
					replayed, ran, a.Body, len(a.Body), tc.wantReplayed, tc.wantRan, tc.wantBody)
			}
			if tc.between == nil && store.gets != 2 {
				t.Errorf("the replay read with %d storage.Gets; want 2 (the head, the body)", store.gets)
			}
		})
	}
}
