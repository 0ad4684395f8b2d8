package storage

import (
	"errors"
	"fmt"
	"iter"

	// A drop-in encoding/json: records are encoded on every write and
	// decoded on every read, and this codec does both in about half the
	// time (BENCHMARKS.md, "Figures behind the code's choices"). The bytes
	// are the same JSON.
	json "github.com/goccy/go-json"
)

// Collection is a typed view of one collection whose values are JSON
// documents of type T. It keeps areas free of byte handling:
//
//	var orders = storage.Collection[Order]{Name: "tracking.orders"}
//	err := store.Update(ctx, func(tx storage.Tx) error {
//		_, err := orders.Put(tx, key, order, storage.MustNotExist())
//		return err
//	})
type Collection[T any] struct {
	Name string
}

// Item is a decoded record.
type Item[T any] struct {
	Key     string
	Value   T
	Version uint64
}

// Get decodes the record at key. A missing record matches ErrNotFound.
func (c Collection[T]) Get(tx Tx, key string) (Item[T], error) {
	rec, err := tx.Get(c.Name, key)
	if err != nil {
		return Item[T]{}, err
	}
	return c.decode(rec)
}

// Put encodes v and stores it at key under cond; it returns the new version.
func (c Collection[T]) Put(tx Tx, key string, v T, cond Condition) (uint64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, fmt.Errorf("storage: encode %s/%q: %w", c.Name, key, err)
	}
	rec, err := tx.Put(c.Name, key, b, cond)
	if err != nil {
		return 0, err
	}
	return rec.Version, nil
}

// Delete removes the record at key under cond.
func (c Collection[T]) Delete(tx Tx, key string, cond Condition) error {
	return tx.Delete(c.Name, key, cond)
}

// DeleteIf removes the record at key when match says it is the one to
// go: an index entry, say, that still points at the record being
// deleted, and not at another that took its key since. A missing record
// is no error.
func (c Collection[T]) DeleteIf(tx Tx, key string, match func(T) bool) error {
	it, err := c.Get(tx, key)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !match(it.Value) {
		return nil
	}
	return c.Delete(tx, key, VersionIs(it.Version))
}

// Scan yields decoded records within r, in key order.
func (c Collection[T]) Scan(tx Tx, r Range) iter.Seq2[Item[T], error] {
	return func(yield func(Item[T], error) bool) {
		for rec, err := range tx.Scan(c.Name, r) {
			if err != nil {
				yield(Item[T]{}, err)
				return
			}
			it, err := c.decode(rec)
			if !yield(it, err) || err != nil {
				return
			}
		}
	}
}

// NextSequence returns the next value of the collection's sequence.
func (c Collection[T]) NextSequence(tx Tx) (uint64, error) {
	return tx.NextSequence(c.Name)
}

// Decode decodes a record read with Tx.Get or Tx.Scan. It lets a caller
// that keeps decoded values by version (a read cache) look at the version
// of a record before paying for decoding it.
func (c Collection[T]) Decode(rec Record) (Item[T], error) { return c.decode(rec) }

func (c Collection[T]) decode(rec Record) (Item[T], error) {
	it := Item[T]{Key: rec.Key, Version: rec.Version}
	if err := json.Unmarshal(rec.Value, &it.Value); err != nil {
		return Item[T]{}, fmt.Errorf("storage: decode %s/%q: %w", c.Name, rec.Key, err)
	}
	return it, nil
}
