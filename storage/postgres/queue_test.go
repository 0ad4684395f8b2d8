package postgres_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/internal/queue/queuetest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/postgres"
)

// TestQueue runs the queue suite with two servers' stores on one
// database: each item is claimed by one of them per lease.
func TestQueue(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		dsn, schema := pgtest.DSN(t), pgtest.Schema(t)
		open := func() storage.Store {
			s, err := postgres.Open(t.Context(), dsn, &postgres.Options{Schema: schema})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}
		return open(), open()
	})
}
