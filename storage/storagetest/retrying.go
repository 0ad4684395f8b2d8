package storagetest

import (
	"context"
	"errors"

	"github.com/deliverykit/deliverykit/storage"
)

// Retrying wraps s so that every Update runs its function twice: the first
// run is rolled back, as a backend that retries a transaction (on a
// serialization failure, or a failed neighbour in a group commit) rolls it
// back, and the second run is committed. The storage contract allows
// this, so a producer tested on Retrying shows that a retried transaction
// writes its records and events once, not twice, and that nothing it
// keeps outside the transaction is lost or doubled.
//
//	store := storagetest.Retrying(memory.New())
//
// A function that fails on its first run fails the Update without a
// second run.
func Retrying(s storage.Store) storage.Store { return retrying{s} }

type retrying struct{ storage.Store }

// errRetry rolls the first run back.
var errRetry = errors.New("storagetest: first run rolled back")

func (r retrying) Update(ctx context.Context, fn func(storage.Tx) error) error {
	err := r.Store.Update(ctx, func(tx storage.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errRetry
	})
	if !errors.Is(err, errRetry) {
		return err
	}
	return r.Store.Update(ctx, fn)
}
