// Package teststore opens the stores tests and benchmarks run on: the
// memory and bolt pairs the services' suites take (Memory, Bolt), and
// the store the -bench.store flag names, so one benchmark measures any
// backend (Open):
//
//	go test -run '^$' -bench Lookup ./tracking -bench.store bolt
//	eval "$(bash .ci/postgres.sh start)"
//	go test -run '^$' -bench Lookup ./tracking -bench.store postgres
//
// memory is the default; bolt is a fresh file in the benchmark's temporary
// directory, with fsync on every commit as in production; postgres is a
// fresh schema on the server named by DELIVERYKIT_POSTGRES_DSN, dropped
// when the benchmark ends.
package teststore

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/postgres"
)

var kind = flag.String("bench.store", "memory", "the store benchmarks run on: memory, bolt or postgres")

// Kind is the store the flag names.
func Kind() string { return *kind }

// Open returns a new, empty store of the flag's kind, closed when tb ends.
func Open(tb testing.TB) storage.Store {
	tb.Helper()
	var s storage.Store
	switch *kind {
	case "memory":
		s = memory.New()
	case "bolt":
		b, err := bolt.Open(filepath.Join(tb.TempDir(), "bench.db"), nil)
		if err != nil {
			tb.Fatal(err)
		}
		s = b
	case "postgres":
		dsn, schema := pgtest.DSN(tb), pgtest.Schema(tb)
		p, err := postgres.Open(context.Background(), dsn, &postgres.Options{Schema: schema})
		if err != nil {
			tb.Fatal(err)
		}
		s = p
	default:
		tb.Fatalf("-bench.store %q: want memory, bolt or postgres", *kind)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// Memory returns a memory store twice: one process's view, for the suites
// that take two servers' stores (outboxtest, webhooktest, queuetest,
// idempotencytest).
func Memory(t *testing.T) (storage.Store, storage.Store) {
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	return s, s
}

// Bolt returns a bolt store on a new file twice, closed when t ends.
func Bolt(t *testing.T) (storage.Store, storage.Store) {
	s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, s
}
