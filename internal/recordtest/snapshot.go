// Package recordtest helps the areas' tests of stored records: golden
// snapshots of a store's collections, and checks that a stored record type
// owns its JSON names.
package recordtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/storage"
)

// Entry is one stored record of a snapshot. Key is the record's key split
// at storage.KeySep; Value is the stored document, indented for reading.
type Entry struct {
	Collection string          `json:"collection"`
	Key        []string        `json:"key"`
	Value      json.RawMessage `json:"value"`
}

// Dump returns the records of the collections, in collection and key
// order, as an indented JSON list.
func Dump(t testing.TB, store storage.Store, collections ...string) []byte {
	t.Helper()
	var out []Entry
	err := store.View(t.Context(), func(tx storage.Tx) error {
		for _, c := range collections {
			for rec, err := range tx.Scan(c, storage.Range{}) {
				if err != nil {
					return err
				}
				out = append(out, Entry{Collection: c, Key: strings.Split(rec.Key, storage.KeySep), Value: bytes.Clone(rec.Value)})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// Load reads a snapshot written by Dump and stores its records, each as
// the compact JSON it was stored as. It returns the entries.
func Load(t testing.TB, store storage.Store, path string) []Entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	err = store.Update(t.Context(), func(tx storage.Tx) error {
		for _, e := range entries {
			var v bytes.Buffer
			if err := json.Compact(&v, e.Value); err != nil {
				return fmt.Errorf("%s %q: %w", e.Collection, e.Key, err)
			}
			if _, err := tx.Put(e.Collection, storage.Key(e.Key...), v.Bytes(), storage.MustNotExist()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries
}
