package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
)

// roundTrips counts what the store sends: every query and every batch is
// one round trip once its statements are prepared.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// openCounted opens a store on one connection whose round trips are
// counted.
func openCounted(t *testing.T) (*Store, *roundTrips) {
	t.Helper()
	schema := pgtest.Schema(t)
	cfg, err := pgxpool.ParseConfig(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	rt := &roundTrips{}
	cfg.ConnConfig.Tracer = rt
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := migrate(t.Context(), pool, schema); err != nil {
		t.Fatal(err)
	}
	return &Store{pool: pool, schema: schema, q: newQueries(pgx.Identifier{schema}.Sanitize()), maxAttempts: DefaultMaxAttempts}, rt
}

// TestRoundTrips: the BEGIN travels with the first statement, writes
// whose answer is not needed travel with the next statement or the
// COMMIT, and a transaction that sends nothing costs nothing. Each case
// runs twice and counts the second run, when every statement is prepared.
func TestRoundTrips(t *testing.T) {
	s, rt := openCounted(t)
	var n int
	key := func() string { n++; return string(rune('a'+n%26)) + "-" + string(rune('0'+n/26)) }
	put := func(tx storage.Tx, coll string, cond storage.Condition) error {
		_, err := tx.Put(coll, key(), []byte("v"), cond)
		return err
	}
	tests := []struct {
		name   string
		update bool
		fn     func(tx storage.Tx) error
		want   int64
	}{
		{"empty Update", true, func(storage.Tx) error { return nil }, 0},
		{"empty View", false, func(storage.Tx) error { return nil }, 0},
		{"View, one Get: BEGIN with it, ROLLBACK", false, func(tx storage.Tx) error {
			_, err := tx.Get("c", "missing")
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			return err
		}, 2},
		{"a create and its index: the index Put waits for the COMMIT", true, func(tx storage.Tx) error {
			if err := put(tx, "records", storage.MustNotExist()); err != nil {
				return err
			}
			return put(tx, "index", storage.AnyVersion)
		}, 2},
		// The shape of session.create: the session, its expiry index
		// entry, its widget token (FreshKey). The token's condition is
		// checked by its INSERT, which travels with the COMMIT.
		{"session.create: the index and the token Puts go with the COMMIT", true, func(tx storage.Tx) error {
			if err := put(tx, "records", storage.MustNotExist()); err != nil {
				return err
			}
			if err := put(tx, "index", storage.AnyVersion); err != nil {
				return err
			}
			return put(tx, "tokens", storage.FreshKey())
		}, 2},
		// A create whose keys are all made for it (the session, its
		// index entry, its token: checkout's and delivery's creates)
		// takes spare versions, left by the cases before: nothing
		// waits before the COMMIT.
		{"a create of FreshKey Puts: BEGIN, the INSERTs and the COMMIT at once", true, func(tx storage.Tx) error {
			for _, coll := range []string{"records", "index", "tokens"} {
				if err := put(tx, coll, storage.FreshKey()); err != nil {
					return err
				}
			}
			return nil
		}, 1},
		{"a MustNotExist after the first Put waits for its answer", true, func(tx storage.Tx) error {
			if err := put(tx, "records", storage.MustNotExist()); err != nil {
				return err
			}
			if err := put(tx, "index", storage.AnyVersion); err != nil {
				return err
			}
			return put(tx, "tokens", storage.MustNotExist())
		}, 3},
		{"a VersionIs Put is one statement", true, func(tx storage.Tx) error {
			k := key()
			rec, err := tx.Put("c", k, []byte("v"), storage.MustNotExist())
			if err != nil {
				return err
			}
			_, err = tx.Put("c", k, []byte("w"), storage.VersionIs(rec.Version))
			return err
		}, 3},
		{"a VersionIs Delete is one statement", true, func(tx storage.Tx) error {
			k := key()
			rec, err := tx.Put("c", k, []byte("v"), storage.MustNotExist())
			if err != nil {
				return err
			}
			return tx.Delete("c", k, storage.VersionIs(rec.Version))
		}, 3},
		{"a Delete alone: BEGIN, DELETE and COMMIT at once", true, func(tx storage.Tx) error {
			return tx.Delete("c", "missing", storage.AnyVersion)
		}, 1},
		{"twelve unconditional Puts: drawn ahead in eights", true, func(tx storage.Tx) error {
			for range 12 {
				if err := put(tx, "many", storage.AnyVersion); err != nil {
					return err
				}
			}
			return nil
		}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got int64
			for range 2 {
				before := rt.n.Load()
				var err error
				if tc.update {
					err = s.Update(t.Context(), tc.fn)
				} else {
					err = s.View(t.Context(), tc.fn)
				}
				if err != nil {
					t.Fatal(err)
				}
				got = rt.n.Load() - before
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("round trips (-want +got):\n%s", diff)
			}
		})
	}
	// A rolled-back Update with a write still waiting, and one whose
	// Put met its condition's conflict.
	errStop := errors.New("stop")
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		if err := put(tx, "records", storage.MustNotExist()); err != nil {
			return err
		}
		if err := put(tx, "index", storage.AnyVersion); err != nil {
			return err
		}
		return errStop
	}); !errors.Is(err, errStop) {
		t.Errorf("Update = %v; want %v", err, errStop)
	}
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", "dup", []byte("v"), storage.AnyVersion)
		if err != nil {
			return err
		}
		_, err = tx.Put("c", "dup", []byte("v"), storage.MustNotExist())
		return err
	}); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("Update = %v; want a conflict", err)
	}
	// Every transaction gave its connection back in a state to reuse:
	// the pool never had to open another.
	if n := s.pool.Stat().NewConnsCount(); n != 1 {
		t.Errorf("the pool opened %d connections; want 1", n)
	}
}

// TestVersionsGrowAcrossDeferredPuts: one key written again and again in
// one transaction, conditionally and not, with versions drawn ahead and
// drawn by the statement, only ever gets a larger version, and a Get in
// the same transaction sees every write.
func TestVersionsGrowAcrossDeferredPuts(t *testing.T) {
	s, _ := openCounted(t)
	var versions []uint64
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		rec, err := tx.Put("c", "k", []byte("0"), storage.MustNotExist())
		if err != nil {
			return err
		}
		versions = append(versions, rec.Version)
		for i := range 20 {
			cond := storage.AnyVersion
			if i%3 == 0 {
				cond = storage.VersionIs(rec.Version)
			}
			val := []byte{byte('a' + i)}
			if rec, err = tx.Put("c", "k", val, cond); err != nil {
				return err
			}
			val[0] = 'X' // the caller may reuse val once Put returns
			versions = append(versions, rec.Version)
			got, err := tx.Get("c", "k")
			if err != nil {
				return err
			}
			if string(got.Value) != string(rune('a'+i)) || got.Version != rec.Version {
				t.Errorf("Get after Put %d = %q v%d; want %q v%d", i, got.Value, got.Version, string(rune('a'+i)), rec.Version)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(versions); i++ {
		if versions[i] <= versions[i-1] {
			t.Errorf("versions do not grow: %v", versions)
			break
		}
	}
	err = s.View(t.Context(), func(tx storage.Tx) error {
		got, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		if want := versions[len(versions)-1]; string(got.Value) != "t" || got.Version != want {
			t.Errorf("committed record = %q v%d; want \"t\" v%d", got.Value, got.Version, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTakenKeyRunsAgainStrict: a FreshKey Put that did not wait and
// whose key is taken fails the attempt before its COMMIT; the function
// runs again, and there the Put reports the conflict, which the function
// may handle and go on. Nothing of the first attempt is committed.
func TestTakenKeyRunsAgainStrict(t *testing.T) {
	s, rt := openCounted(t)
	for i, name := range []string{"first", "second"} { // the second with every statement prepared
		if err := s.Update(t.Context(), func(tx storage.Tx) error {
			_, err := tx.Put("tokens", "taken-"+name, []byte("other"), storage.MustNotExist())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		type run struct{ Errs []string }
		var runs []run
		before := rt.n.Load()
		err := s.Update(t.Context(), func(tx storage.Tx) error {
			var r run
			note := func(err error) {
				switch {
				case err == nil:
					r.Errs = append(r.Errs, "ok")
				case errors.Is(err, storage.ErrConflict):
					r.Errs = append(r.Errs, "conflict")
				default:
					r.Errs = append(r.Errs, err.Error())
				}
			}
			defer func() { runs = append(runs, r) }()
			_, err := tx.Put("records", "new-"+name, []byte("session"), storage.MustNotExist())
			note(err)
			_, err = tx.Put("index", "new-"+name, []byte("i"), storage.AnyVersion)
			note(err)
			_, err = tx.Put("tokens", "taken-"+name, []byte("mine"), storage.FreshKey())
			note(err)
			if errors.Is(err, storage.ErrConflict) {
				// A token of its own, as a caller drawing a new one.
				_, err = tx.Put("tokens", "free-"+name, []byte("mine"), storage.MustNotExist())
				note(err)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		got := rt.n.Load() - before
		want := []run{
			{Errs: []string{"ok", "ok", "ok"}},             // the token's INSERT waits for the COMMIT
			{Errs: []string{"ok", "ok", "conflict", "ok"}}, // strict: the conflict is the function's
		}
		if diff := cmp.Diff(want, runs); diff != "" {
			t.Errorf("%s: runs (-want +got):\n%s", name, diff)
		}
		// BEGIN+insert+draw, index+token+COMMIT (fails), ROLLBACK;
		// BEGIN+insert+draw, index+token, token, COMMIT.
		if i == 1 && got != 7 {
			t.Errorf("round trips = %d; want 7", got)
		}
		err = s.View(t.Context(), func(tx storage.Tx) error {
			for _, c := range []struct{ coll, key, want string }{
				{"records", "new-" + name, "session"},
				{"index", "new-" + name, "i"},
				{"tokens", "taken-" + name, "other"},
				{"tokens", "free-" + name, "mine"},
			} {
				rec, err := tx.Get(c.coll, c.key)
				if err != nil {
					return fmt.Errorf("%s %s: %w", c.coll, c.key, err)
				}
				if string(rec.Value) != c.want {
					t.Errorf("%s %s = %q; want %q", c.coll, c.key, rec.Value, c.want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := s.pool.Stat().NewConnsCount(); n != 1 {
		t.Errorf("the pool opened %d connections; want 1", n)
	}
}

// TestTakenKeyBeforeScan: a FreshKey Put that did not wait fails the
// next statement that goes with it, here a Scan; the function sees an
// error whatever it makes of it, and its second run sees the conflict.
func TestTakenKeyBeforeScan(t *testing.T) {
	s, _ := openCounted(t)
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", "taken", []byte("x"), storage.MustNotExist())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var putErrs, scanErrs []error
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		if _, err := tx.Put("c", "first", []byte("x"), storage.AnyVersion); err != nil {
			return err
		}
		_, err := tx.Put("c", "taken", []byte("y"), storage.FreshKey())
		putErrs = append(putErrs, err)
		for _, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				scanErrs = append(scanErrs, err)
			}
		}
		return nil // ignores both: the first run must not commit anyway
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(putErrs) != 2 || putErrs[0] != nil || !errors.Is(putErrs[1], storage.ErrConflict) {
		t.Errorf("Put errors per run = %v; want nil, then a conflict", putErrs)
	}
	if len(scanErrs) != 1 || !errors.Is(scanErrs[0], storage.ErrConflict) {
		t.Errorf("Scan errors = %v; want one conflict, in the first run", scanErrs)
	}
	if err := s.View(t.Context(), func(tx storage.Tx) error {
		rec, err := tx.Get("c", "taken")
		if err == nil && string(rec.Value) != "x" {
			t.Errorf("taken = %q; want the first value, \"x\"", rec.Value)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestGetRoundTrips: storage.Get reads one record in one statement, one
// round trip, where a View with one Get costs two (TestRoundTrips), and
// leaves its connection in a state to reuse.
func TestGetRoundTrips(t *testing.T) {
	s, rt := openCounted(t)
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", "k", []byte("v"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"k", "missing"} {
		var got int64
		for range 2 { // the second, with the statement prepared
			before := rt.n.Load()
			if _, err := storage.Get(t.Context(), s, "c", key); err != nil && !errors.Is(err, storage.ErrNotFound) {
				t.Fatal(err)
			}
			got = rt.n.Load() - before
		}
		if got != 1 {
			t.Errorf("round trips of storage.Get of %q: %d, want 1", key, got)
		}
	}
	if n := s.pool.Stat().NewConnsCount(); n != 1 {
		t.Errorf("the pool opened %d connections; want 1", n)
	}
}

// TestKeyedRoundTrips: a keyed create (package idempotency) costs the
// look for a stored answer (storage.Get: one SELECT on its own) and the
// create's own round trips, the key not looked up again in the
// transaction: the answer's record (checked at commit) and expiry entry
// travel with the COMMIT. A
// repeat of the call finds the answer in that one look, and its body,
// when stored apart, in one more.
func TestKeyedRoundTrips(t *testing.T) {
	s, rt := openCounted(t)
	k := idempotency.New(idempotency.Options{})
	k.Open(s)
	area := k.Store(s)
	var n int
	create := func(ctx context.Context) (idempotency.Answer, error) {
		n++
		id := fmt.Sprintf("r-%d", n)
		err := area.Update(ctx, func(tx storage.Tx) error {
			if _, err := tx.Put("records", id, []byte("v"), storage.MustNotExist()); err != nil {
				return err
			}
			_, err := tx.Put("index", id, []byte("v"), storage.AnyVersion)
			return err
		})
		return idempotency.Answer{Status: 201, Body: []byte(`{"id":"` + id + `"}`)}, err
	}
	req := idempotency.Request{Site: "s", Operation: "POST /records", Body: []byte(`{}`)}
	var got int64
	for i := range 2 { // the second, with every statement prepared
		before := rt.n.Load()
		if _, replayed, err := k.Do(t.Context(), fmt.Sprint("key-", i), req, create); err != nil || replayed {
			t.Fatalf("Do: replayed %v, %v", replayed, err)
		}
		got = rt.n.Load() - before
	}
	// The look: SELECT, which finds no record. Update: BEGIN and the
	// record's INSERT (the look is not repeated: the answer's INSERT
	// checks the key), the COMMIT with the index, the answer and its
	// entry.
	if got != 3 {
		t.Errorf("round trips of a keyed create: %d, want 3", got)
	}
	// A create whose keys are all made for it (FreshKey, as checkout's
	// and delivery's are): the look, then one round trip for the rest,
	// the answer's INSERT and its entry's included.
	fresh := func(ctx context.Context) (idempotency.Answer, error) {
		n++
		id := fmt.Sprintf("r-%d", n)
		err := area.Update(ctx, func(tx storage.Tx) error {
			for _, coll := range []string{"records", "index"} {
				if _, err := tx.Put(coll, id, []byte("v"), storage.FreshKey()); err != nil {
					return err
				}
			}
			return nil
		})
		return idempotency.Answer{Status: 201, Body: bytes.Repeat([]byte("x"), 600)}, err
	}
	for i := range 2 {
		before := rt.n.Load()
		if _, replayed, err := k.Do(t.Context(), fmt.Sprint("fresh-", i), req, fresh); err != nil || replayed {
			t.Fatalf("Do: replayed %v, %v", replayed, err)
		}
		got = rt.n.Load() - before
	}
	if got != 2 {
		t.Errorf("round trips of a keyed create of fresh keys: %d, want 2", got)
	}
	before := rt.n.Load()
	if _, replayed, err := k.Do(t.Context(), "key-1", req, create); err != nil || !replayed {
		t.Fatalf("Do again: replayed %v, %v; want the stored answer", replayed, err)
	}
	if got := rt.n.Load() - before; got != 1 {
		t.Errorf("round trips of a repeated keyed create: %d, want 1", got)
	}
	// An answer of more than 512 bytes keeps its body apart, in its
	// expiry entry: the replay reads the head, then the body.
	big := func(context.Context) (idempotency.Answer, error) {
		return idempotency.Answer{Status: 201, Body: bytes.Repeat([]byte("x"), 600)}, nil
	}
	if _, _, err := k.Do(t.Context(), "key-big", req, big); err != nil {
		t.Fatal(err)
	}
	before = rt.n.Load()
	if a, replayed, err := k.Do(t.Context(), "key-big", req, big); err != nil || !replayed || len(a.Body) != 600 {
		t.Fatalf("Do again: replayed %v, %d bytes, %v; want the stored answer", replayed, len(a.Body), err)
	}
	if got := rt.n.Load() - before; got != 2 {
		t.Errorf("round trips of a repeated keyed call with a large answer: %d, want 2", got)
	}
}

// TestSpareVersions: versions a transaction drew and did not use go to
// FreshKey Puts of later ones, committed or rolled back, which then wait
// for nothing, and commits draw more before they run out; every version
// is still given once, a record's versions still grow, and a taken key is
// still refused.
func TestSpareVersions(t *testing.T) {
	s, rt := openCounted(t)
	seen := map[uint64]string{}
	note := func(rec storage.Record, err error) error {
		if err != nil {
			return err
		}
		if k, ok := seen[rec.Version]; ok {
			t.Errorf("version %d given to %q and %q", rec.Version, k, rec.Key)
		}
		seen[rec.Version] = rec.Key
		return nil
	}
	// An unconditional Put waits and draws; a rolled-back Update's
	// versions are spares as well.
	errStop := errors.New("stop")
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		if err := note(tx.Put("c", "drawn", []byte("v"), storage.AnyVersion)); err != nil {
			return err
		}
		return errStop
	}); !errors.Is(err, errStop) {
		t.Fatalf("Update = %v; want %v", err, errStop)
	}
	if len(s.spares.vs) == 0 {
		t.Fatal("no spare versions after a draw")
	}
	for i := range 2 * maxSpares {
		before := rt.n.Load()
		err := s.Update(t.Context(), func(tx storage.Tx) error {
			for _, coll := range []string{"records", "index"} {
				if err := note(tx.Put(coll, fmt.Sprintf("k%d", i), []byte("v"), storage.FreshKey())); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// The commits' round trips keep the spares filled: no create
		// waits for a draw of its own.
		if n := rt.n.Load() - before; n != 1 {
			t.Fatalf("create %d: %d round trips; want 1", i, n)
		}
	}
	if len(seen) != 1+4*maxSpares {
		t.Errorf("%d versions noted; want %d", len(seen), 1+4*maxSpares)
	}
	// Written again, a record's version grows past its spare one.
	var first, again storage.Record
	if err := s.Update(t.Context(), func(tx storage.Tx) (err error) {
		if first, err = tx.Put("c", "grows", []byte("1"), storage.FreshKey()); err != nil {
			return err
		}
		again, err = tx.Put("c", "grows", []byte("2"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if again.Version <= first.Version {
		t.Errorf("versions %d then %d; want growing", first.Version, again.Version)
	}
	// A taken key is refused, as without spares.
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("records", "k0", []byte("again"), storage.FreshKey())
		return err
	})
	if !errors.Is(err, storage.ErrConflict) {
		t.Errorf("FreshKey Put of a taken key = %v; want a conflict", err)
	}
}

// TestSparesBounded: spares keep at most maxSpares versions and hand
// each out once; a claim asks for the shortfall below half of them, once
// while it is being drawn.
func TestSparesBounded(t *testing.T) {
	var sp spares
	if n := sp.claim(); n != maxSpares {
		t.Fatalf("claim of empty spares = %d; want %d", n, maxSpares)
	}
	if n := sp.claim(); n != 0 {
		t.Fatalf("claim while the first is drawn = %d; want 0", n)
	}
	sp.give(nil, maxSpares) // the draw failed
	for i := range 3 * maxSpares {
		sp.give([]int64{int64(2 * i), int64(2*i + 1)}, 0)
	}
	if len(sp.vs) != maxSpares {
		t.Fatalf("%d spares kept; want %d", len(sp.vs), maxSpares)
	}
	if n := sp.claim(); n != 0 {
		t.Fatalf("claim of full spares = %d; want 0", n)
	}
	got := map[int64]bool{}
	for {
		v, ok := sp.take()
		if !ok {
			break
		}
		if got[v] {
			t.Fatalf("spare %d taken twice", v)
		}
		got[v] = true
		if left := maxSpares - len(got); left == maxSpares/2 {
			if n := sp.claim(); n != 0 {
				t.Fatalf("claim with half the spares kept = %d; want 0", n)
			}
		}
	}
	if len(got) != maxSpares {
		t.Errorf("took %d spares; want %d", len(got), maxSpares)
	}
	if n := sp.claim(); n != maxSpares {
		t.Errorf("claim after taking all = %d; want %d", n, maxSpares)
	}
}
