package postgres

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

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
		{"a create, its index and a token: the index Put goes with the token's", true, func(tx storage.Tx) error {
			if err := put(tx, "records", storage.MustNotExist()); err != nil {
				return err
			}
			if err := put(tx, "index", storage.AnyVersion); err != nil {
				return err
			}
			return put(tx, "tokens", storage.MustNotExist())
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
