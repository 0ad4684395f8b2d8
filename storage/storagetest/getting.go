package storagetest

import (
	"context"
	"sync/atomic"

	"github.com/deliverykit/deliverykit/storage"
)

// Getting wraps s in a storage.Getter whose Get reads in a View of s, as
// storage.Get does on a store without one, and counts its calls. A store
// wrapper tested on it shows that storage.Get through the wrapper reaches
// the store's own Get (one statement on PostgreSQL) when the wrapper
// means it to, and what it passed on.
//
//	base := storagetest.Getting(memory.New())
//	rec, err := storage.Get(ctx, wrapped(base), "c", "k")
//	// base.Gets() == 1
func Getting(s storage.Store) *GettingStore { return &GettingStore{Store: s} }

// GettingStore is a storage.Store and storage.Getter; see Getting.
type GettingStore struct {
	storage.Store
	gets atomic.Int64
	last atomic.Pointer[[2]string]
}

var _ storage.Getter = (*GettingStore)(nil)

// Get counts the call and reads the record in a View.
func (s *GettingStore) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	s.gets.Add(1)
	s.last.Store(&[2]string{coll, key})
	var rec storage.Record
	err := s.View(ctx, func(tx storage.Tx) (err error) {
		rec, err = tx.Get(coll, key)
		return err
	})
	if err != nil {
		return storage.Record{}, err
	}
	return rec, nil
}

// Gets returns how many times Get was called.
func (s *GettingStore) Gets() int64 { return s.gets.Load() }

// Last returns the collection and key of the latest Get ("" before one).
func (s *GettingStore) Last() (coll, key string) {
	if p := s.last.Load(); p != nil {
		return p[0], p[1]
	}
	return "", ""
}
