// Package stored keeps the values an area works with in storage as records
// of its own private types.
//
// An area's wire types (its requests and answers) are not what it stores:
// a record type names its fields itself, carries a schema number, and is
// upgraded explicitly when a record of an earlier schema is read. A
// Collection is where the two meet: Put converts the value to its record,
// Get and Scan convert the record (of any schema the area reads) back, so
// every read goes through the area's upgrade and no code path sees an
// unconverted record.
//
//	var shipments = stored.Collection[shipmentRecord, storedShipment]{
//		Name: "shipment.shipments", Record: storeShipment, Value: loadStoredShipment,
//	}
//	_, err := shipments.Put(tx, key, rec, storage.MustNotExist())
//
// Value upgrades a record of an earlier schema before converting it, and
// returns an error for a schema newer than the release knows (CheckSchema).
package stored

import (
	"fmt"
	"iter"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// Collection is a collection whose records, of type R, hold values of
// type V.
type Collection[V, R any] struct {
	Name string
	// Record returns the record that stores v.
	Record func(v *V) R
	// Value returns the value a record holds, upgrading a record of an
	// earlier schema. An error (a schema this release cannot read) fails
	// the read.
	Value func(r *R) (V, error)
}

func (c Collection[V, R]) records() storage.Collection[R] { return storage.Collection[R]{Name: c.Name} }

// Get reads the value at key. A missing record matches storage.ErrNotFound.
func (c Collection[V, R]) Get(tx storage.Tx, key string) (storage.Item[V], error) {
	it, err := c.records().Get(tx, key)
	if err != nil {
		return storage.Item[V]{}, err
	}
	return c.value(it)
}

// Put stores v's record at key under cond and returns the new version.
func (c Collection[V, R]) Put(tx storage.Tx, key string, v V, cond storage.Condition) (uint64, error) {
	return c.PutFrom(tx, key, &v, cond)
}

// PutFrom is Put of the value v points to, which it only reads. Put's
// own copy of v goes to the heap (Record may keep what it is given), an
// allocation of the value's size per write that a caller holding the
// value behind a pointer saves with PutFrom.
func (c Collection[V, R]) PutFrom(tx storage.Tx, key string, v *V, cond storage.Condition) (uint64, error) {
	return c.records().Put(tx, key, c.Record(v), cond)
}

// Delete removes the record at key under cond.
func (c Collection[V, R]) Delete(tx storage.Tx, key string, cond storage.Condition) error {
	return tx.Delete(c.Name, key, cond)
}

// Scan yields the values within r, in key order.
func (c Collection[V, R]) Scan(tx storage.Tx, r storage.Range) iter.Seq2[storage.Item[V], error] {
	return func(yield func(storage.Item[V], error) bool) {
		for it, err := range c.records().Scan(tx, r) {
			if err != nil {
				yield(storage.Item[V]{}, err)
				return
			}
			v, err := c.value(it)
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

// Decode reads a record read with Tx.Get or Tx.Scan.
func (c Collection[V, R]) Decode(rec storage.Record) (storage.Item[V], error) {
	it, err := c.records().Decode(rec)
	if err != nil {
		return storage.Item[V]{}, err
	}
	return c.value(it)
}

func (c Collection[V, R]) value(it storage.Item[R]) (storage.Item[V], error) {
	v, err := c.Value(&it.Value)
	if err != nil {
		return storage.Item[V]{}, fmt.Errorf("storage: read %s/%q: %w", c.Name, it.Key, err)
	}
	return storage.Item[V]{Key: it.Key, Value: v, Version: it.Version}, nil
}

// CheckSchema returns an error for a schema newer than current: a record
// written by a later release, which this one would misread. Schema 0 (no
// schema field) is the area's first.
func CheckSchema(name string, schema, current int) error {
	if schema > current {
		return deliverykit.Errorf(deliverykit.KindInternal, "%s record of schema %d, newer than schema %d this release reads", name, schema, current)
	}
	return nil
}

// Slice converts every element of in with f. A nil slice stays nil and an
// empty one empty, so fields encoded without omitempty keep their null or
// [] through a conversion.
func Slice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// Ptr converts what in points to with f; nil stays nil.
func Ptr[T, U any](in *T, f func(T) U) *U {
	if in == nil {
		return nil
	}
	out := f(*in)
	return &out
}
