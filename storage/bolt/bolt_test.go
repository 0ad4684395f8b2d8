package bolt_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/internal/backend"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// testOptions skips fsync: the suite checks semantics, not durability, and
// fsync would make it slow. TestReopenWithSync covers the synced path.
var testOptions = &bolt.Options{NoSync: true}

func open(t *testing.T, path string, opts *bolt.Options) *bolt.Store {
	t.Helper()
	s, err := bolt.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		return open(t, filepath.Join(t.TempDir(), "store.db"), testOptions)
	})
}

func TestConformanceReopen(t *testing.T) {
	storagetest.RunReopen(t, func(t *testing.T, path string) storage.Store {
		return open(t, path, testOptions)
	})
}

func TestReopenWithSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := open(t, path, nil)
	var version uint64
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		rec, err := tx.Put("c", "k", []byte("durable"), storage.AnyVersion)
		version = rec.Version
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open(t, path, nil)
	defer s.Close()
	err = s.View(t.Context(), func(tx storage.Tx) error {
		rec, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		if string(rec.Value) != "durable" || rec.Version != version {
			t.Errorf("after reopen: %q version %d; want durable version %d", rec.Value, rec.Version, version)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSecondOpenFailsWhileInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := open(t, path, testOptions)
	defer s.Close()

	second, err := bolt.Open(path, &bolt.Options{Timeout: 100 * time.Millisecond})
	if err == nil {
		second.Close()
		t.Fatal("second Open of a file in use succeeded")
	}
	if !errors.Is(err, bbolt.ErrTimeout) {
		t.Errorf("error %v does not wrap bbolt.ErrTimeout", err)
	}
	for _, want := range []string{path, "in use by another process"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}

	// Once the first store is closed, the file opens again.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, path, testOptions)
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFileMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s := open(t, path, testOptions)
	defer s.Close()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("file mode %v; want 0600", perm)
	}
	if s.Path() != path {
		t.Errorf("Path() = %q; want %q", s.Path(), path)
	}
}

func TestOpenFailsOnBadPath(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{
		dir, // a directory
		filepath.Join(dir, "missing", "store.db"),
	} {
		if s, err := bolt.Open(path, testOptions); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded; want an error", path)
		} else if !strings.Contains(err.Error(), path) {
			t.Errorf("Open(%q) error %q does not name the path", path, err)
		}
	}
}

func TestReservedCollectionNames(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "store.db"), testOptions)
	defer s.Close()
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		// Reaching the internal sequence bucket would read its counters
		// as records.
		_, err := tx.Get("\x00seq", "c")
		if !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("Get in a reserved collection = %v; want InvalidArgument", err)
		}
		_, err = tx.Put("\x00seq", "c", []byte("v"), storage.AnyVersion)
		if !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("Put in a reserved collection = %v; want InvalidArgument", err)
		}
		_, err = tx.NextSequence("\x00x")
		if !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("NextSequence of a reserved collection = %v; want InvalidArgument", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestKeyTooLarge(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "store.db"), testOptions)
	defer s.Close()
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", strings.Repeat("k", bbolt.MaxKeySize+1), nil, storage.AnyVersion)
		return err
	})
	if !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("Put with an oversized key = %v; want InvalidArgument", err)
	}
}

func TestWriteWhileScanningIsRefused(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "store.db"), testOptions)
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
