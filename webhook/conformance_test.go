package webhook_test

import (
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook/webhooktest"
)

func TestConformanceMemory(t *testing.T) {
	webhooktest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		s := memory.New()
		t.Cleanup(func() { s.Close() })
		return s, s
	})
}

func TestConformanceBolt(t *testing.T) {
	webhooktest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, s
	})
}
