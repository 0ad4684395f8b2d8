package retention_test

import (
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/retentiontest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestMemory(t *testing.T) {
	retentiontest.Run(t, func(t *testing.T) storage.Store {
		s := memory.New()
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestBolt(t *testing.T) {
	retentiontest.Run(t, func(t *testing.T) storage.Store {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "test.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
