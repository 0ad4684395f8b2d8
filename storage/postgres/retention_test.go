package postgres_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/retentiontest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/postgres"
)

// TestRetention runs the retention suite: the areas' sweeps delete what is
// due with every index entry, keep the rest and cost what they delete.
func TestRetention(t *testing.T) {
	retentiontest.Run(t, func(t *testing.T) storage.Store {
		s, err := postgres.Open(t.Context(), pgtest.DSN(t), &postgres.Options{Schema: pgtest.Schema(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
