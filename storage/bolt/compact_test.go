package bolt_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
)

// TestCompact: after most records are deleted, a compacted copy is smaller
// and holds exactly the records left; a file in use or an existing
// destination is refused.
func TestCompact(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "dk.db"), filepath.Join(dir, "dk.compact.db")
	s, err := bolt.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	val := []byte(strings.Repeat("x", 2000))
	for i := range 2000 {
		err := s.Update(t.Context(), func(tx storage.Tx) error {
			_, err := tx.Put("c", fmt.Sprintf("k%05d", i), val, storage.AnyVersion)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err = s.Update(t.Context(), func(tx storage.Tx) error {
		for i := range 1990 {
			if err := tx.Delete("c", fmt.Sprintf("k%05d", i), storage.AnyVersion); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bolt.Compact(src, dst); err == nil {
		t.Fatal("Compact of a file in use succeeded")
	}
	s.Close()
	before, after, err := bolt.Compact(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if after >= before/4 {
		t.Errorf("compacted from %d to %d bytes, want far less", before, after)
	}
	if _, _, err := bolt.Compact(src, dst); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Compact onto an existing file: %v", err)
	}
	c, err := bolt.Open(dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var keys []string
	err = c.View(t.Context(), func(tx storage.Tx) error {
		for r, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				return err
			}
			keys = append(keys, r.Key)
		}
		return nil
	})
	if err != nil || len(keys) != 10 || keys[0] != "k01990" {
		t.Errorf("compacted records: %v, %v", keys, err)
	}
}
