package bolt_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
)

// TestInUse: writing grows the bytes in use; deleting and writing as much
// again reuses the freed pages instead.
func TestInUse(t *testing.T) {
	s, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), &bolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	value := bytes.Repeat([]byte("x"), 1000)
	write := func(prefix string, del bool) {
		t.Helper()
		err := s.Update(t.Context(), func(tx storage.Tx) error {
			for i := range 2000 {
				key := storage.Key(prefix, storage.Uint64Key(uint64(i)))
				if del {
					if err := tx.Delete("c", key, storage.AnyVersion); err != nil {
						return err
					}
					continue
				}
				if _, err := tx.Put("c", key, value, storage.AnyVersion); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	inUse := func() int64 {
		t.Helper()
		n, err := s.InUse(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	empty := inUse()
	write("a", false)
	full := inUse()
	if full < empty+2000*1000 {
		t.Fatalf("in use after writing 2 MB: %d bytes (empty: %d)", full, empty)
	}
	for _, round := range []string{"b", "c", "d"} {
		write(string(rune(round[0]-1)), true)
		write(round, false)
	}
	// Three rounds of delete-and-rewrite reuse the freed pages: at most
	// one more round's worth of pages (bbolt frees pages only once no
	// reader can see them).
	if again := inUse(); again > full+(full-empty) {
		t.Errorf("in use after rewriting: %d bytes, after the first write %d", again, full)
	}
	s.Close()
	if _, err := s.InUse(t.Context()); err == nil {
		t.Error("InUse after Close: no error")
	}
}
