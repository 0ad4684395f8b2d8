package postgres_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// BenchmarkCreate puts a create as the areas write it (a record, its
// expiry index entry and its token, all under keys made for it: FreshKey)
// next to the least a service on PostgreSQL does for one: a single INSERT of a row
// the record's size in autocommit, both durable, from one goroutine (the
// latency of a create: its round trips and its commit) and from 32 (the
// throughput, commits shared by the server's group commit). The ratio of
// the two ns/op is the store's overhead per create without HTTP around it
// (bench/http measures the same with it):
//
//	go test -run '^$' -bench Create -count 3 ./storage/postgres/
func BenchmarkCreate(b *testing.B) {
	dsn := pgtest.DSN(b)
	val := storagetest.BenchValue(925)
	var seq atomic.Int64
	for _, writers := range []int{1, 32} {
		b.Run("writers="+strconv.Itoa(writers), func(b *testing.B) { benchmarkCreate(b, dsn, val, &seq, writers) })
	}
}

func benchmarkCreate(b *testing.B, dsn string, val []byte, seq *atomic.Int64, writers int) {
	b.Run("pgx insert", func(b *testing.B) {
		schema := pgtest.Schema(b)
		pool, err := pgxpool.New(b.Context(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer pool.Close()
		table := pgx.Identifier{schema, "rows"}.Sanitize()
		for _, q := range []string{"CREATE SCHEMA " + pgx.Identifier{schema}.Sanitize(), "CREATE TABLE " + table + " (id text PRIMARY KEY, body bytea NOT NULL)"} {
			if _, err := pool.Exec(b.Context(), q); err != nil {
				b.Fatal(err)
			}
		}
		insert := "INSERT INTO " + table + " (id, body) VALUES ($1, $2)"
		b.ResetTimer()
		parallel(b, writers, func() error {
			_, err := pool.Exec(context.Background(), insert, strconv.FormatInt(seq.Add(1), 36), val)
			return err
		})
	})
	b.Run("store create", func(b *testing.B) {
		s := open(b, pgtest.Schema(b), nil)
		defer s.Close()
		b.ResetTimer()
		parallel(b, writers, func() error {
			id := strconv.FormatInt(seq.Add(1), 36)
			return s.Update(context.Background(), func(tx storage.Tx) error {
				if _, err := tx.Put("sessions", id, val, storage.FreshKey()); err != nil {
					return err
				}
				if _, err := tx.Put("expiry", "active\x00"+id, []byte("{}"), storage.FreshKey()); err != nil {
					return err
				}
				_, err := tx.Put("tokens", "t"+id, []byte(`{"session":"`+id+`"}`), storage.FreshKey())
				return err
			})
		})
	})
}

// parallel runs op b.N times from writers goroutines.
func parallel(b *testing.B, writers int, op func() error) {
	if writers == 1 {
		for range b.N {
			if err := op(); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	// RunParallel runs GOMAXPROCS × parallelism goroutines.
	b.SetParallelism(max(1, writers/runtime.GOMAXPROCS(0)))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
