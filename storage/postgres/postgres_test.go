package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/internal/backend"
	"github.com/deliverykit/deliverykit/storage/postgres"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// open opens a store in schema, failing the test on error. The caller
// closes it.
func open(t testing.TB, schema string, opts *postgres.Options) *postgres.Store {
	t.Helper()
	o := postgres.Options{}
	if opts != nil {
		o = *opts
	}
	o.Schema = schema
	s, err := postgres.Open(context.Background(), pgtest.DSN(t), &o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openFresh opens a store in a new schema, dropped when the test ends.
func openFresh(t testing.TB, opts *postgres.Options) *postgres.Store {
	t.Helper()
	s := open(t, pgtest.Schema(t), opts)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	pgtest.DSN(t)
	storagetest.Run(t, func(t *testing.T) storage.Store {
		return open(t, pgtest.Schema(t), nil)
	})
}

// TestConformanceReopen closes the pool and opens a new one on the same
// schema: records, versions and sequences are the database's, not the
// pool's.
func TestConformanceReopen(t *testing.T) {
	pgtest.DSN(t)
	var mu sync.Mutex
	schemas := map[string]string{} // storagetest's path → schema
	storagetest.RunReopen(t, func(t *testing.T, path string) storage.Store {
		mu.Lock()
		schema, ok := schemas[path]
		if !ok {
			schema = pgtest.Schema(t)
			schemas[path] = schema
		}
		mu.Unlock()
		return open(t, schema, nil)
	})
}

func TestReservedCollectionNames(t *testing.T) {
	s := openFresh(t, nil)
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("\x00seq", "c", []byte("v"), storage.AnyVersion)
		if !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("Put in a reserved collection = %v; want InvalidArgument", err)
		}
		_, err = tx.NextSequence("\x00x")
		if !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("NextSequence of a reserved collection = %v; want InvalidArgument", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLimits: names and values PostgreSQL could not index or send are
// refused before any SQL runs, so the transaction stays usable and the
// error names the field.
func TestLimits(t *testing.T) {
	s := openFresh(t, nil)
	tests := []struct {
		name      string
		op        func(tx storage.Tx) error
		wantField string
	}{
		{"key too long", func(tx storage.Tx) error {
			_, err := tx.Put("c", strings.Repeat("k", postgres.MaxKeySize+1), nil, storage.AnyVersion)
			return err
		}, "key"},
		{"collection too long", func(tx storage.Tx) error {
			_, err := tx.Put(strings.Repeat("c", postgres.MaxCollectionSize+1), "k", nil, storage.AnyVersion)
			return err
		}, "collection"},
		{"sequence of a collection too long", func(tx storage.Tx) error {
			_, err := tx.NextSequence(strings.Repeat("c", postgres.MaxCollectionSize+1))
			return err
		}, "collection"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(t.Context(), func(tx storage.Tx) error {
				opErr := tc.op(tx)
				if vs := deliverykit.ViolationsOf(opErr); len(vs) != 1 || vs[0].Field != tc.wantField {
					t.Errorf("error %v; want one violation of %q", opErr, tc.wantField)
				}
				// The longest allowed names still work in the same
				// transaction.
				_, err := tx.Put(strings.Repeat("c", postgres.MaxCollectionSize), strings.Repeat("k", postgres.MaxKeySize), []byte("v"), storage.AnyVersion)
				return err
			})
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
		})
	}
}

func TestWriteWhileScanningIsRefused(t *testing.T) {
	s := openFresh(t, nil)
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		for _, k := range []string{"a", "b"} {
			if _, err := tx.Put("c", k, []byte("v"), storage.AnyVersion); err != nil {
				return err
			}
		}
		for rec, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				return err
			}
			if _, err := tx.Put("c", rec.Key+"x", nil, storage.AnyVersion); !errors.Is(err, backend.ErrWriteWhileScanning) {
				t.Errorf("Put into the scanned collection = %v; want ErrWriteWhileScanning", err)
			}
			if err := tx.Delete("c", rec.Key, storage.AnyVersion); !errors.Is(err, backend.ErrWriteWhileScanning) {
				t.Errorf("Delete in the scanned collection = %v; want ErrWriteWhileScanning", err)
			}
			if _, err := tx.Put("other", rec.Key, nil, storage.AnyVersion); err != nil {
				t.Errorf("Put into another collection while scanning: %v", err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
