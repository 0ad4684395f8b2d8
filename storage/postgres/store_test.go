package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/postgres"
)

// admin connects to the test database directly, for looking behind the
// store's back.
func admin(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// withParam adds a connection parameter to dsn, in URL or keyword/value
// form.
func withParam(dsn, key, value string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + url.QueryEscape(key) + "=" + url.QueryEscape(value)
	}
	return dsn + " " + key + "='" + value + "'"
}

func mustUpdate(t testing.TB, s storage.Store, fn func(storage.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func putString(t testing.TB, s storage.Store, coll, key, val string) {
	t.Helper()
	mustUpdate(t, s, func(tx storage.Tx) error {
		_, err := tx.Put(coll, key, []byte(val), storage.AnyVersion)
		return err
	})
}

func getString(t testing.TB, s storage.Store, coll, key string) string {
	t.Helper()
	var v string
	if err := s.View(context.Background(), func(tx storage.Tx) error {
		rec, err := tx.Get(coll, key)
		v = string(rec.Value)
		return err
	}); err != nil {
		t.Fatalf("Get(%q, %q): %v", coll, key, err)
	}
	return v
}

// TestUpdateRetriesSerializationFailure makes an Update lose a race it can
// only learn about from PostgreSQL: it reads k, another Update writes k
// and commits, then it writes k. PostgreSQL refuses that write (SQLSTATE
// 40001); Update runs the function again, whatever the function made of
// the error, until MaxAttempts runs out.
func TestUpdateRetriesSerializationFailure(t *testing.T) {
	tests := []struct {
		name         string
		maxAttempts  int
		ignoreErr    bool // fn returns nil after the failed Put
		wantErr      error
		wantAttempts int32
		wantValue    string
	}{
		{"retried", 0, false, nil, 2, "A"},
		{"retried although fn ignored the error", 0, true, nil, 2, "A"},
		{"attempts run out", 1, false, storage.ErrConflict, 1, "B"},
		{"attempts run out although fn ignored the error", 1, true, storage.ErrConflict, 1, "B"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openFresh(t, &postgres.Options{MaxAttempts: tc.maxAttempts})
			putString(t, s, "c", "k", "0")
			read := make(chan struct{})
			written := make(chan error)
			go func() {
				<-read
				written <- s.Update(context.Background(), func(tx storage.Tx) error {
					_, err := tx.Put("c", "k", []byte("B"), storage.AnyVersion)
					return err
				})
			}()
			var attempts atomic.Int32
			var putErrs []error
			err := s.Update(t.Context(), func(tx storage.Tx) error {
				n := attempts.Add(1)
				if _, err := tx.Get("c", "k"); err != nil {
					return err
				}
				if n == 1 {
					close(read)
					if err := <-written; err != nil {
						t.Errorf("concurrent Update: %v", err)
					}
				}
				_, err := tx.Put("c", "k", []byte("A"), storage.AnyVersion)
				putErrs = append(putErrs, err)
				if tc.ignoreErr {
					return nil
				}
				return err
			})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("Update = %v; want %v", err, tc.wantErr)
			}
			if got := attempts.Load(); got != tc.wantAttempts {
				t.Errorf("fn ran %d times; want %d", got, tc.wantAttempts)
			}
			if len(putErrs) == 0 || !errors.Is(putErrs[0], storage.ErrConflict) {
				t.Errorf("Put in the first attempt = %v; want a conflict", putErrs)
			}
			if got := getString(t, s, "c", "k"); got != tc.wantValue {
				t.Errorf("value = %q; want %q", got, tc.wantValue)
			}
		})
	}
}

// TestCompareAndSetAfterConcurrentChange: a compare-and-set with a version
// read earlier, in a transaction whose snapshot predates a concurrent
// change of the record, never overwrites or re-creates it: PostgreSQL
// refuses the write, the retry sees the change, and the caller gets
// ErrConflict.
func TestCompareAndSetAfterConcurrentChange(t *testing.T) {
	tests := []struct {
		name       string
		concurrent func(tx storage.Tx) error
		cas        func(tx storage.Tx, version uint64) error
		want       string // "" for missing
	}{
		{"put after a concurrent put",
			func(tx storage.Tx) error { _, err := tx.Put("c", "k", []byte("B"), storage.AnyVersion); return err },
			func(tx storage.Tx, v uint64) error {
				_, err := tx.Put("c", "k", []byte("A"), storage.VersionIs(v))
				return err
			},
			"B"},
		{"put after a concurrent delete",
			func(tx storage.Tx) error { return tx.Delete("c", "k", storage.AnyVersion) },
			func(tx storage.Tx, v uint64) error {
				_, err := tx.Put("c", "k", []byte("A"), storage.VersionIs(v))
				return err
			},
			""},
		{"delete after a concurrent put",
			func(tx storage.Tx) error { _, err := tx.Put("c", "k", []byte("B"), storage.AnyVersion); return err },
			func(tx storage.Tx, v uint64) error { return tx.Delete("c", "k", storage.VersionIs(v)) },
			"B"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openFresh(t, nil)
			putString(t, s, "c", "k", "0")
			var read storage.Record
			if err := s.View(t.Context(), func(tx storage.Tx) error {
				var err error
				read, err = tx.Get("c", "k")
				return err
			}); err != nil {
				t.Fatal(err)
			}
			var attempts atomic.Int32
			err := s.Update(t.Context(), func(tx storage.Tx) error {
				if _, err := tx.Get("other", "x"); !errors.Is(err, storage.ErrNotFound) {
					return err // takes the snapshot
				}
				if attempts.Add(1) == 1 {
					mustUpdate(t, s, tc.concurrent)
				}
				return tc.cas(tx, read.Version)
			})
			if !errors.Is(err, storage.ErrConflict) {
				t.Errorf("Update = %v; want ErrConflict", err)
			}
			if n := attempts.Load(); n != 2 {
				t.Errorf("fn ran %d times; want 2 (refused write, then the failed condition)", n)
			}
			var got string
			if err := s.View(t.Context(), func(tx storage.Tx) error {
				rec, err := tx.Get("c", "k")
				got = string(rec.Value)
				if errors.Is(err, storage.ErrNotFound) {
					return nil
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("value = %q; want %q", got, tc.want)
			}
		})
	}
}

// TestUpdatesAreSerializable runs the classic write skew: two on-call
// doctors each go off call if the other is on call. Snapshot isolation
// lets both commit, leaving nobody on call; serializable Updates make one
// of them run again and see the other's change.
func TestUpdatesAreSerializable(t *testing.T) {
	s := openFresh(t, nil)
	putString(t, s, "oncall", "x", "on")
	putString(t, s, "oncall", "y", "on")
	readX, readY := make(chan struct{}), make(chan struct{})
	var attempts atomic.Int32
	goOff := func(mine, other string, iRead, theyRead chan struct{}) error {
		first := true
		return s.Update(context.Background(), func(tx storage.Tx) error {
			attempts.Add(1)
			rec, err := tx.Get("oncall", other)
			if err != nil {
				return err
			}
			if first {
				// Both read before either writes.
				first = false
				close(iRead)
				<-theyRead
			}
			if string(rec.Value) != "on" {
				return nil
			}
			_, err = tx.Put("oncall", mine, []byte("off"), storage.AnyVersion)
			return err
		})
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = goOff("x", "y", readX, readY) })
	wg.Go(func() { errs[1] = goOff("y", "x", readY, readX) })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Update %d: %v", i, err)
		}
	}
	x, y := getString(t, s, "oncall", "x"), getString(t, s, "oncall", "y")
	if x == "off" && y == "off" {
		t.Errorf("both went off call: the Updates were not serializable")
	}
	if n := attempts.Load(); n < 3 {
		t.Errorf("the functions ran %d times; want a retry (3 or more)", n)
	}
	t.Logf("x=%s y=%s after %d attempts", x, y, attempts.Load())
}

// TestTwoStoresShareOneSchema: two stores (two pools, as two servers have)
// on one schema see each other's commits, never hand out a version twice,
// and draw distinct sequence values however their Updates interleave.
func TestTwoStoresShareOneSchema(t *testing.T) {
	schema := pgtest.Schema(t)
	a, b := open(t, schema, nil), open(t, schema, nil)
	defer a.Close()
	defer b.Close()

	putString(t, a, "c", "k", "from a")
	if got := getString(t, b, "c", "k"); got != "from a" {
		t.Errorf("b reads %q; want a's write", got)
	}

	const perStore, goroutines, draws = 2, 4, 10
	var mu sync.Mutex
	var seqs, versions []uint64
	var wg sync.WaitGroup
	for _, s := range []*postgres.Store{a, b} {
		for g := range goroutines {
			wg.Go(func() {
				for i := 0; i < draws; {
					var n, v uint64
					err := s.Update(context.Background(), func(tx storage.Tx) error {
						var err error
						if n, err = tx.NextSequence("c"); err != nil {
							return err
						}
						rec, err := tx.Put("c", fmt.Sprintf("g%d-%d", g, i), nil, storage.AnyVersion)
						v = rec.Version
						return err
					})
					if errors.Is(err, storage.ErrConflict) {
						continue // the retries ran out; the caller tries again
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					seqs = append(seqs, n)
					versions = append(versions, v)
					mu.Unlock()
					i++
				}
			})
		}
	}
	wg.Wait()
	slices.Sort(seqs)
	want := make([]uint64, perStore*goroutines*draws)
	for i := range want {
		want[i] = uint64(i + 1)
	}
	if diff := cmp.Diff(want, seqs); diff != "" {
		t.Errorf("sequence values drawn by committed Updates (-want +got):\n%s", diff)
	}
	slices.Sort(versions)
	if len(slices.Compact(versions)) != len(want) {
		t.Errorf("a version was given twice: %v", versions)
	}
}

// TestScanMatchesMemory compares scans that span several of the store's
// batches with the memory store's answers on the same data, including
// keys with \x00 and \xff bytes.
func TestScanMatchesMemory(t *testing.T) {
	pg := openFresh(t, nil)
	mem := memory.New()
	defer mem.Close()
	var keys []string
	for i := range 1200 {
		keys = append(keys, storage.Key(fmt.Sprintf("site-%d", i%2+1), storage.Uint64Key(uint64(i))))
	}
	keys = append(keys, "site-1", "site-10", "\xff", "\xff\xff", "a\x00", "a\x00\x00", "a\xff")
	for _, s := range []storage.Store{pg, mem} {
		for start := 0; start < len(keys); start += 500 {
			mustUpdate(t, s, func(tx storage.Tx) error {
				for _, k := range keys[start:min(start+500, len(keys))] {
					if _, err := tx.Put("c", k, []byte("value of "+k), storage.AnyVersion); err != nil {
						return err
					}
				}
				return nil
			})
		}
	}
	site1 := storage.KeyPrefix("site-1")
	mid := storage.Key("site-1", storage.Uint64Key(600))
	type R = storage.Range
	ranges := []R{
		{},
		{Reverse: true},
		{Prefix: site1},
		{Prefix: site1, Reverse: true},
		{Prefix: site1, After: mid},
		{Prefix: site1, After: mid, Reverse: true},
		{Prefix: site1, Limit: 300},
		{Prefix: site1, Limit: 256},
		{Prefix: site1, Limit: 257},
		{Prefix: site1, Limit: 512, Reverse: true},
		{After: mid, Limit: 700},
		{After: mid, Limit: 700, Reverse: true},
		{Prefix: "\xff", Reverse: true},
		{Prefix: "a\x00"},
		{Prefix: "a", Reverse: true, After: "a\x00\x00"},
		{Prefix: "site-1"},
	}
	scan := func(s storage.Store, r R) []string {
		var out []string
		if err := s.View(context.Background(), func(tx storage.Tx) error {
			for rec, err := range tx.Scan("c", r) {
				if err != nil {
					return err
				}
				if string(rec.Value) != "value of "+rec.Key {
					t.Errorf("%q has value %q", rec.Key, rec.Value)
				}
				out = append(out, rec.Key)
			}
			return nil
		}); err != nil {
			t.Fatalf("Scan(%#v): %v", r, err)
		}
		return out
	}
	for _, r := range ranges {
		t.Run(fmt.Sprintf("prefix=%+q,after=%+q,reverse=%v,limit=%d", r.Prefix, r.After, r.Reverse, r.Limit), func(t *testing.T) {
			want := scan(mem, r)
			if diff := cmp.Diff(want, scan(pg, r)); diff != "" {
				t.Errorf("postgres scan differs from memory's (-memory +postgres):\n%s", diff)
			}
		})
	}
}

// TestScanSnapshotAcrossBatches: a View whose Scan reads several batches
// sees none of an Update that commits between them.
func TestScanSnapshotAcrossBatches(t *testing.T) {
	s := openFresh(t, nil)
	const n = 700
	var want []string
	mustUpdate(t, s, func(tx storage.Tx) error {
		for i := range n {
			k := storage.Uint64Key(uint64(i))
			want = append(want, k)
			if _, err := tx.Put("c", k, []byte("old"), storage.AnyVersion); err != nil {
				return err
			}
		}
		return nil
	})
	var got []string
	err := s.View(t.Context(), func(tx storage.Tx) error {
		for rec, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				return err
			}
			if len(got) == 0 {
				// Change records of later batches, and commit.
				mustUpdate(t, s, func(tx storage.Tx) error {
					if err := tx.Delete("c", storage.Uint64Key(500), storage.AnyVersion); err != nil {
						return err
					}
					if _, err := tx.Put("c", storage.Uint64Key(400), []byte("new"), storage.AnyVersion); err != nil {
						return err
					}
					_, err := tx.Put("c", storage.Uint64Key(n+1), []byte("new"), storage.AnyVersion)
					return err
				})
			}
			if string(rec.Value) != "old" {
				t.Errorf("%s = %q; want the value before the View began", rec.Key, rec.Value)
			}
			got = append(got, rec.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("keys (-before the View +seen by it):\n%s", diff)
	}
}

// TestCancelInterruptsQuery: an Update blocked in PostgreSQL, waiting for a
// row another transaction holds, returns as soon as its context is
// cancelled, while the other transaction is still open.
func TestCancelInterruptsQuery(t *testing.T) {
	schema := pgtest.Schema(t)
	holder := open(t, schema, nil)
	defer holder.Close()
	app := "dktest-cancel-" + schema
	s, err := postgres.Open(t.Context(), withParam(pgtest.DSN(t), "application_name", app), &postgres.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	putString(t, holder, "c", "k", "v")

	locked, release := make(chan struct{}), make(chan struct{})
	held := make(chan error)
	go func() {
		held <- holder.Update(context.Background(), func(tx storage.Tx) error {
			if _, err := tx.Put("c", "k", []byte("holder"), storage.AnyVersion); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	blocked := make(chan error)
	go func() {
		blocked <- s.Update(ctx, func(tx storage.Tx) error {
			_, err := tx.Put("c", "k", []byte("blocked"), storage.AnyVersion)
			return err
		})
	}()
	// Wait until the server reports the Update waiting for the row lock.
	conn := admin(t)
	for {
		var waiting int
		if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", app).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
	}
	cancel()
	if err := <-blocked; !errors.Is(err, context.Canceled) {
		t.Errorf("blocked Update after cancel = %v; want context.Canceled", err)
	}
	// The query was cancelled in the server too, not only abandoned by
	// the client: nothing of ours waits for the lock any more.
	var waiting int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", app).Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	if waiting != 0 {
		t.Errorf("%d queries still wait for the lock after the cancel", waiting)
	}
	// The store serves the next transaction.
	if got := getString(t, s, "c", "k"); got != "v" {
		t.Errorf("value while the holder is open = %q; want the committed v", got)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatalf("holding Update: %v", err)
	}
	if got := getString(t, s, "c", "k"); got != "holder" {
		t.Errorf("value = %q; want holder's", got)
	}
}

func TestOpenMigrations(t *testing.T) {
	pgtest.DSN(t)
	t.Run("concurrent opens of an empty schema", func(t *testing.T) {
		schema := pgtest.Schema(t)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				s, err := postgres.Open(context.Background(), pgtest.DSN(t), &postgres.Options{Schema: schema})
				if err != nil {
					t.Error(err)
					return
				}
				s.Close()
			})
		}
		wg.Wait()
		var versions []int
		rows, err := admin(t).Query(t.Context(), "SELECT version FROM "+pgx.Identifier{schema}.Sanitize()+".deliverykit_schema ORDER BY version")
		if err != nil {
			t.Fatal(err)
		}
		versions, err = pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]int{postgres.SchemaVersion}, versions); diff != "" {
			t.Errorf("applied versions (-want +got):\n%s", diff)
		}
	})
	t.Run("schema from a newer release is refused", func(t *testing.T) {
		schema := pgtest.Schema(t)
		open(t, schema, nil).Close()
		if _, err := admin(t).Exec(t.Context(), "INSERT INTO "+pgx.Identifier{schema}.Sanitize()+".deliverykit_schema (version) VALUES ($1)", postgres.SchemaVersion+1); err != nil {
			t.Fatal(err)
		}
		s, err := postgres.Open(t.Context(), pgtest.DSN(t), &postgres.Options{Schema: schema})
		if err == nil {
			s.Close()
			t.Fatal("Open succeeded on a schema from a newer release")
		}
		if !strings.Contains(err.Error(), "newer") {
			t.Errorf("error %q does not say the schema is newer", err)
		}
	})
	t.Run("default schema is the connection's", func(t *testing.T) {
		schema := pgtest.Schema(t)
		if _, err := admin(t).Exec(t.Context(), "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
			t.Fatal(err)
		}
		s, err := postgres.Open(t.Context(), withParam(pgtest.DSN(t), "search_path", schema), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Schema() != schema {
			t.Errorf("Schema() = %q; want %q from search_path", s.Schema(), schema)
		}
		putString(t, s, "c", "k", "v")
	})
	t.Run("a role without DDL rights opens an up-to-date schema", func(t *testing.T) {
		schema := pgtest.Schema(t)
		open(t, schema, nil).Close()
		role := schema + "_app"
		conn := admin(t)
		q := pgx.Identifier{schema}.Sanitize()
		r := pgx.Identifier{role}.Sanitize()
		for _, stmt := range []string{
			"CREATE ROLE " + r + " LOGIN PASSWORD 'app'",
			"GRANT USAGE ON SCHEMA " + q + " TO " + r,
			"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA " + q + " TO " + r,
			"GRANT USAGE ON ALL SEQUENCES IN SCHEMA " + q + " TO " + r,
		} {
			if _, err := conn.Exec(t.Context(), stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		t.Cleanup(func() {
			ctx := context.Background()
			for _, stmt := range []string{"DROP OWNED BY " + r, "DROP ROLE " + r} {
				if _, err := conn.Exec(ctx, stmt); err != nil {
					t.Errorf("%s: %v", stmt, err)
				}
			}
		})
		dsn := withParam(withParam(pgtest.DSN(t), "user", role), "password", "app")
		s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
		if err != nil {
			t.Fatalf("Open as %s: %v", role, err)
		}
		defer s.Close()
		putString(t, s, "c", "k", "v")
		mustUpdate(t, s, func(tx storage.Tx) error { _, err := tx.NextSequence("c"); return err })
		if got := getString(t, s, "c", "k"); got != "v" {
			t.Errorf("value = %q; want v", got)
		}
	})
	t.Run("search_path without an existing schema", func(t *testing.T) {
		s, err := postgres.Open(t.Context(), withParam(pgtest.DSN(t), "search_path", "dktest_does_not_exist"), nil)
		if err == nil {
			s.Close()
			t.Fatal("Open succeeded without a schema to create tables in")
		}
		if !strings.Contains(err.Error(), "Options.Schema") {
			t.Errorf("error %q does not say how to fix it", err)
		}
	})
}

// TestOpenErrors needs no server: the DSN is wrong or names none.
func TestOpenErrors(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for _, dsn := range []string{
		"postgres://user:secret@[::1",                                            // malformed URL
		"host=" + t.TempDir() + " user=nobody connect_timeout=5 password=secret", // no server on that socket
	} {
		s, err := postgres.Open(ctx, dsn, nil)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", dsn)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Open(%q) error %q shows the password", dsn, err)
		}
	}
}

// TestUpdateRetriesFailedWaitingWrite: an unconditional Put after another
// Put waits for the COMMIT (it returns before PostgreSQL has seen it). When
// PostgreSQL refuses it there (the record changed since the snapshot), the
// COMMIT does not happen: nothing of the attempt is stored, and Update
// runs the function again or, when the attempts run out, returns a
// conflict.
func TestUpdateRetriesFailedWaitingWrite(t *testing.T) {
	tests := []struct {
		name         string
		maxAttempts  int
		wantErr      error
		wantAttempts int32
		wantValue    string
		wantOther    bool // the attempt's other record is stored
	}{
		{"retried", 0, nil, 2, "A", true},
		{"attempts run out", 1, storage.ErrConflict, 1, "B", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openFresh(t, &postgres.Options{MaxAttempts: tc.maxAttempts})
			putString(t, s, "c", "k", "0")
			var attempts atomic.Int32
			err := s.Update(t.Context(), func(tx storage.Tx) error {
				n := attempts.Add(1)
				if _, err := tx.Get("c", "k"); err != nil {
					return err
				}
				if _, err := tx.Put("c", "other", []byte("x"), storage.MustNotExist()); err != nil {
					return err
				}
				if n == 1 {
					// A concurrent Update changes k after this
					// transaction's snapshot.
					if err := s.Update(context.Background(), func(tx storage.Tx) error {
						_, err := tx.Put("c", "k", []byte("B"), storage.AnyVersion)
						return err
					}); err != nil {
						t.Errorf("concurrent Update: %v", err)
					}
				}
				_, err := tx.Put("c", "k", []byte("A"), storage.AnyVersion)
				return err
			})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("Update = %v; want %v", err, tc.wantErr)
			}
			if got := attempts.Load(); got != tc.wantAttempts {
				t.Errorf("fn ran %d times; want %d", got, tc.wantAttempts)
			}
			if got := getString(t, s, "c", "k"); got != tc.wantValue {
				t.Errorf("value = %q; want %q", got, tc.wantValue)
			}
			err = s.View(t.Context(), func(tx storage.Tx) error {
				_, err := tx.Get("c", "other")
				return err
			})
			if got := err == nil; got != tc.wantOther || (err != nil && !errors.Is(err, storage.ErrNotFound)) {
				t.Errorf("Get of the attempt's other record = %v; want stored %v", err, tc.wantOther)
			}
		})
	}
}

// TestFreshKeyRace: two servers write the same FreshKey at the same time,
// each in an Update that has begun and whose check waits for the COMMIT.
// Exactly one commits it; the other's function runs again and sees the
// conflict from Put, and none of its writes commit.
func TestFreshKeyRace(t *testing.T) {
	schema := pgtest.Schema(t)
	a, b := open(t, schema, nil), open(t, schema, nil)
	defer a.Close()
	defer b.Close()
	for round := range 5 {
		key := "token-" + strconv.Itoa(round)
		var ready sync.WaitGroup
		ready.Add(2)
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, s := range []*postgres.Store{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				first := true
				errs[i] = s.Update(t.Context(), func(tx storage.Tx) error {
					own := "session-" + strconv.Itoa(round) + "-" + strconv.Itoa(i)
					if _, err := tx.Put("sessions", own, []byte("s"), storage.MustNotExist()); err != nil {
						return err
					}
					if first {
						// Both transactions have begun before either
						// writes the key.
						first = false
						ready.Done()
						ready.Wait()
					}
					_, err := tx.Put("tokens", key, []byte(strconv.Itoa(i)), storage.FreshKey())
					return err
				})
			}()
		}
		wg.Wait()
		var won []int
		for i, err := range errs {
			switch {
			case err == nil:
				won = append(won, i)
			case !errors.Is(err, storage.ErrConflict):
				t.Errorf("round %d, server %d: Update = %v; want nil or a conflict", round, i, err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d Updates committed the key (%v); want exactly one", round, len(won), errs)
		}
		err := a.View(t.Context(), func(tx storage.Tx) error {
			rec, err := tx.Get("tokens", key)
			if err != nil {
				return err
			}
			if want := strconv.Itoa(won[0]); string(rec.Value) != want {
				t.Errorf("round %d: token = %q; want the winner's, %q", round, rec.Value, want)
			}
			_, err = tx.Get("sessions", "session-"+strconv.Itoa(round)+"-"+strconv.Itoa(1-won[0]))
			if !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("round %d: the loser's session: %v; want it not committed", round, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
