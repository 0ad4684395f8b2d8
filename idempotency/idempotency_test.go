package idempotency_test

import (
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/idempotency/idempotencytest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestMemory(t *testing.T) {
	idempotencytest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		s := memory.New()
		return s, s
	})
}

func TestBolt(t *testing.T) {
	idempotencytest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, s
	})
}
