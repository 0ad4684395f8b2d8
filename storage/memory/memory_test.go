package memory_test

import (
	"context"
	"errors"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/internal/backend"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(*testing.T) storage.Store { return memory.New() })
}

func TestReservedCollectionNames(t *testing.T) {
	s := memory.New()
	defer s.Close()
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("\x00seq", "k", []byte("v"), storage.AnyVersion)
		return err
	})
	if !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("Put in a reserved collection = %v; want InvalidArgument", err)
	}
}

func TestWriteWhileScanningIsRefused(t *testing.T) {
	s := memory.New()
	defer s.Close()
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
			// Other collections may be written.
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

// An Update waiting for another one to finish gives up when its context is
// done, instead of waiting for the writer.
func TestUpdateWaitingForWriterHonoursContext(t *testing.T) {
	s := memory.New()
	defer s.Close()
	holding := make(chan struct{})
	release := make(chan struct{})
	first := make(chan error)
	go func() {
		first <- s.Update(t.Context(), func(tx storage.Tx) error {
			close(holding)
			<-release
			_, err := tx.Put("c", "k", []byte("first"), storage.AnyVersion)
			return err
		})
	}()
	<-holding

	ctx, cancel := context.WithCancel(t.Context())
	second := make(chan error)
	ran := false
	go func() {
		second <- s.Update(ctx, func(storage.Tx) error { ran = true; return nil })
	}()
	cancel()
	// The second Update returns while the first still holds the writer.
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Errorf("waiting Update = %v; want context.Canceled", err)
	}
	if ran {
		t.Error("the cancelled Update ran fn")
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}
