package postgres_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/idempotency/idempotencytest"
	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/internal/queue/queuetest"
	"github.com/deliverykit/deliverykit/outbox/outboxtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/postgres"
	"github.com/deliverykit/deliverykit/webhook/webhooktest"
)

// The services' suites run with two servers' stores on one database, as
// two example servers share it.

// twoServers opens two stores on one fresh schema, closed when t ends.
func twoServers(t *testing.T) (storage.Store, storage.Store) {
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
}

// TestOutbox: each event is claimed by one dispatcher at a time.
func TestOutbox(t *testing.T) { outboxtest.Run(t, twoServers) }

// TestWebhooks: each delivery is claimed by one sender at a time.
func TestWebhooks(t *testing.T) { webhooktest.Run(t, twoServers) }

// TestQueue: each item is claimed by one of them per lease.
func TestQueue(t *testing.T) { queuetest.Run(t, twoServers) }

// TestQueueOneServer: the queue on one server's store, its claimers
// sharing its connection pool.
func TestQueueOneServer(t *testing.T) {
	queuetest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		s, _ := twoServers(t)
		return s, s
	})
}

// TestIdempotency: a key sent to both is run once.
func TestIdempotency(t *testing.T) { idempotencytest.Run(t, twoServers) }
