package postgres_test

// The standard storage benchmarks against a real server, to put next to
// storage/bolt's:
//
//	eval "$(bash .ci/postgres.sh start)"
//	go test -run '^$' -bench . -benchmem ./storage/bolt/ ./storage/postgres/
//
// Every operation is a full transaction (BEGIN, the statements, COMMIT or
// ROLLBACK), each a round trip to the server, and every commit is durable
// (the server's default synchronous_commit), as bolt's fsync is.

import (
	"testing"

	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

func BenchmarkPostgres(b *testing.B) {
	pgtest.DSN(b)
	storagetest.Benchmark(b, func(b *testing.B) storage.Store {
		return open(b, pgtest.Schema(b), nil)
	})
}
