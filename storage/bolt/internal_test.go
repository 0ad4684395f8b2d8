package bolt

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

func TestBoltOptions(t *testing.T) {
	for _, tc := range []struct {
		name        string
		opts        *Options
		wantTimeout time.Duration
		wantNoSync  bool
	}{
		{"nil", nil, DefaultTimeout, false},
		{"zero", &Options{}, DefaultTimeout, false},
		{"negative timeout", &Options{Timeout: -time.Second}, DefaultTimeout, false},
		{"set", &Options{Timeout: 100 * time.Millisecond, NoSync: true}, 100 * time.Millisecond, true},
	} {
		got := boltOptions(tc.opts)
		if got.Timeout != tc.wantTimeout || got.NoSync != tc.wantNoSync || got.InitialMmapSize != initialMmapSize {
			t.Errorf("%s: boltOptions = %+v; want timeout %v, NoSync %v", tc.name, got, tc.wantTimeout, tc.wantNoSync)
		}
	}
}

// A stored value too short to hold a version is reported as an internal
// error, never read out of bounds.
func TestCorruptValues(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.db.Update(func(btx *bbolt.Tx) error {
		b, err := btx.CreateBucket([]byte("c"))
		if err != nil {
			return err
		}
		if err := b.Put([]byte("k"), []byte("abc")); err != nil {
			return err
		}
		seq, err := btx.CreateBucket(seqBucket)
		if err != nil {
			return err
		}
		return seq.Put([]byte("c"), []byte("abc"))
	}); err != nil {
		t.Fatal(err)
	}

	wantInternal := func(what string, err error) {
		t.Helper()
		if err == nil || deliverykit.KindOf(err) != deliverykit.KindInternal || errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s = %v; want an internal corruption error", what, err)
		}
	}
	err = s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Get("c", "k")
		wantInternal("Get", err)
		_, err = tx.Put("c", "k", []byte("v"), storage.AnyVersion)
		wantInternal("Put", err)
		wantInternal("Delete", tx.Delete("c", "k", storage.AnyVersion))
		n := 0
		for _, err := range tx.Scan("c", storage.Range{}) {
			wantInternal("Scan", err)
			n++
		}
		for _, err := range tx.(storage.VersionScanner).ScanVersions("c", storage.Range{}) {
			wantInternal("ScanVersions", err)
			n++
		}
		if n != 2 {
			t.Errorf("Scan and ScanVersions yielded %d errors; want one each", n)
		}
		_, err = tx.NextSequence("c")
		wantInternal("NextSequence", err)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Put returns the caller's own value, not a copy, and stores a copy of
// its own: the caller may reuse its buffer at once, within the
// transaction, without changing what commits.
func TestPutKeepsItsOwnCopy(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "store.db"), &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	if err := s.Update(ctx, func(tx storage.Tx) error {
		val := []byte("first")
		rec, err := tx.Put("c", "k", val, storage.MustNotExist())
		if err != nil {
			return err
		}
		if &rec.Value[0] != &val[0] {
			t.Error("Put returned a copy of the value; want the caller's slice")
		}
		copy(val, "XXXXX")
		got, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		if string(got.Value) != "first" {
			t.Errorf("within the transaction, Get = %q after the caller reused its buffer; want %q", got.Value, "first")
		}
		rec, err = tx.Put("c", "empty", nil, storage.MustNotExist())
		if err == nil && rec.Value == nil {
			t.Error("Put of a nil value returned a nil Value; want an empty one")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.View(ctx, func(tx storage.Tx) error {
		got, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		if string(got.Value) != "first" {
			t.Errorf("committed value %q; want %q", got.Value, "first")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
