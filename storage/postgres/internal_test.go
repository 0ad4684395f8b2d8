package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/deliverykit/deliverykit/storage"
)

func TestNewCursor(t *testing.T) {
	type R = storage.Range
	tests := []struct {
		name string
		r    R
		want cursor
	}{
		{"all", R{}, cursor{lo: []byte{}, after: []byte{}}},
		{"prefix", R{Prefix: "a"}, cursor{lo: []byte("a"), after: []byte{}, hi: []byte("b"), hasHi: true}},
		{"prefix of 0xff has no end", R{Prefix: "\xff"}, cursor{lo: []byte("\xff"), after: []byte{}}},
		{"after", R{After: "k"}, cursor{lo: []byte{}, after: []byte("k")}},
		{"prefix and after", R{Prefix: "a", After: "a5"}, cursor{lo: []byte("a"), after: []byte("a5"), hi: []byte("b"), hasHi: true}},
		{"reverse all", R{Reverse: true}, cursor{reverse: true, lo: []byte{}}},
		{"reverse prefix", R{Prefix: "a", Reverse: true}, cursor{reverse: true, lo: []byte("a"), hi: []byte("b"), hasHi: true}},
		{"reverse after inside prefix", R{Prefix: "a", After: "a5", Reverse: true}, cursor{reverse: true, lo: []byte("a"), hi: []byte("a5"), hasHi: true}},
		{"reverse after beyond prefix", R{Prefix: "a", After: "z", Reverse: true}, cursor{reverse: true, lo: []byte("a"), hi: []byte("b"), hasHi: true}},
		{"reverse after, 0xff prefix", R{Prefix: "\xff", After: "\xff5", Reverse: true}, cursor{reverse: true, lo: []byte("\xff"), hi: []byte("\xff5"), hasHi: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, *newCursor(tc.r), cmp.AllowUnexported(cursor{})); diff != "" {
				t.Errorf("newCursor(%#v) (-want +got):\n%s", tc.r, diff)
			}
		})
	}
	// Empty bounds are empty slices, never nil: pgx would send nil as
	// NULL, and key >= NULL matches nothing.
	c := newCursor(R{})
	if c.lo == nil || c.after == nil {
		t.Errorf("empty bounds are nil: %#v", c)
	}
}

func TestCursorAdvance(t *testing.T) {
	fwd := newCursor(storage.Range{Prefix: "a"})
	fwd.advance("a7")
	if string(fwd.after) != "a7" || string(fwd.hi) != "b" {
		t.Errorf("forward cursor after advance: %#v", fwd)
	}
	rev := newCursor(storage.Range{Reverse: true})
	rev.advance("k")
	if string(rev.hi) != "k" || !rev.hasHi {
		t.Errorf("reverse cursor after advance: %#v", rev)
	}
}

func TestBackoff(t *testing.T) {
	for attempt := 1; attempt <= 40; attempt++ {
		window := min(minBackoff<<min(attempt-1, 20), maxBackoff)
		for range 100 {
			if d := backoff(attempt); d <= 0 || d > window {
				t.Fatalf("backoff(%d) = %v; want in (0, %v]", attempt, d, window)
			}
		}
	}
	if backoff(40) > maxBackoff {
		t.Errorf("backoff grows past %v", maxBackoff)
	}
	// The total wait of a failing Update stays about a second.
	var worst time.Duration
	for attempt := 1; attempt < DefaultMaxAttempts; attempt++ {
		worst += min(minBackoff<<(attempt-1), maxBackoff)
	}
	if worst > 2*time.Second {
		t.Errorf("worst-case backoff of %d attempts is %v", DefaultMaxAttempts, worst)
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "40001"}, true},
		{&pgconn.PgError{Code: "40P01"}, true},
		{fmt.Errorf("commit: %w", &pgconn.PgError{Code: "40001"}), true},
		{&pgconn.PgError{Code: "23505"}, false}, // unique violation
		{&pgconn.PgError{Code: "25P02"}, false}, // transaction aborted
		{errors.New("connection reset"), false},
	}
	for _, tc := range tests {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v; want %v", tc.err, got, tc.want)
		}
	}
}

func TestMigrationsMatchSchemaVersion(t *testing.T) {
	if len(migrations)-1 != SchemaVersion {
		t.Fatalf("SchemaVersion = %d but there are %d migrations", SchemaVersion, len(migrations)-1)
	}
	if migrations[0] != nil {
		t.Errorf("migrations[0] is not empty: migration numbers start at 1")
	}
	for v := 1; v <= SchemaVersion; v++ {
		if len(migrations[v]) == 0 {
			t.Errorf("migration %d is empty", v)
		}
	}
}

func TestQueriesQuoteTheSchema(t *testing.T) {
	q := newQueries(`"we""ird"`)
	want := `nextval('"we""ird".deliverykit_versions'::regclass)`
	if !strings.Contains(q.putAny, want) {
		t.Errorf("putAny = %s; want it to draw the version with %s", q.putAny, want)
	}
	q = newQueries(`"it's"`)
	if want := `nextval('"it''s".deliverykit_versions'::regclass)`; !strings.Contains(q.putNew, want) {
		t.Errorf("putNew = %s; want the quote escaped in %s", q.putNew, want)
	}
}
