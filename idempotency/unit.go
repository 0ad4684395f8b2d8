package idempotency

import (
	"context"
	"iter"
	"sync/atomic"

	"github.com/deliverykit/deliverykit/storage"
)

// unit is one call's transaction, carried by its context.
type unit struct {
	keeper *Keeper
	tx     storage.Tx
	// done is set once the call returned: a context that outlives it (an
	// outbox delivery after the commit) opens transactions of its own.
	done atomic.Bool
	// tainted is set when a nested Update failed after it had written:
	// its writes cannot be undone alone, so the unit rolls back.
	tainted bool
}

type unitCtx struct{}

// watch notes whether a call run without a unit (Keeper.runAlone) wrote.
type watch struct {
	keeper *Keeper
	wrote  atomic.Bool
}

type watchCtx struct{}

// InUnit reports whether ctx carries a running unit of work: what a call
// writes under it is not committed until the call's answer is.
func InUnit(ctx context.Context) bool {
	u, _ := ctx.Value(unitCtx{}).(*unit)
	return u != nil && !u.done.Load()
}

// Store returns s taking part in k's units: an Update or View whose
// context carries a running unit of k runs its function on the unit's
// transaction, and otherwise s's own. Wrap every store the areas are
// built on, or a call that reaches an unwrapped one waits for the unit's
// own transaction on a single-writer store.
//
// A nested Update that fails leaves the unit as it was when it wrote
// nothing (a refusal after reading, the usual case). One that fails after
// writing marks the unit: it rolls back and the call runs again without
// one (see Keeper.Do).
func (k *Keeper) Store(s storage.Store) storage.Store { return &unitStore{Store: s, k: k} }

type unitStore struct {
	storage.Store
	k *Keeper
}

func (s *unitStore) unit(ctx context.Context) *unit {
	u, _ := ctx.Value(unitCtx{}).(*unit)
	if u == nil || u.keeper != s.k || u.done.Load() {
		return nil
	}
	return u
}

func (s *unitStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	u := s.unit(ctx)
	if u == nil {
		w, _ := ctx.Value(watchCtx{}).(*watch)
		if w == nil || w.keeper != s.k {
			return s.Store.Update(ctx, fn)
		}
		var last *writeTx
		err := s.Store.Update(ctx, func(tx storage.Tx) error {
			last = &writeTx{Tx: tx}
			return fn(last)
		})
		if err == nil && last != nil && last.wrote {
			w.wrote.Store(true)
		}
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &writeTx{Tx: u.tx}
	err := fn(t)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil && t.wrote {
		u.tainted = true
	}
	return err
}

func (s *unitStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	u := s.unit(ctx)
	if u == nil {
		return s.Store.View(ctx, fn)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(readTx{u.tx})
}

// Probe passes the wrapped store's health check through.
func (s *unitStore) Probe(ctx context.Context) error {
	if p, ok := s.Store.(storage.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}

// writeTx notes whether a nested function wrote.
type writeTx struct {
	storage.Tx
	wrote bool
}

func (t *writeTx) Put(coll, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	t.wrote = true
	return t.Tx.Put(coll, key, val, cond)
}

func (t *writeTx) Delete(coll, key string, cond storage.Condition) error {
	t.wrote = true
	return t.Tx.Delete(coll, key, cond)
}

func (t *writeTx) NextSequence(coll string) (uint64, error) {
	t.wrote = true
	return t.Tx.NextSequence(coll)
}

// readTx is a View on the unit's transaction: it sees the call's own
// writes and refuses writes, as a View does.
type readTx struct{ tx storage.Tx }

func (t readTx) Get(coll, key string) (storage.Record, error) { return t.tx.Get(coll, key) }

func (t readTx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return t.tx.Scan(coll, r)
}

func (readTx) Put(string, string, []byte, storage.Condition) (storage.Record, error) {
	return storage.Record{}, storage.ErrReadOnly
}

func (readTx) Delete(string, string, storage.Condition) error { return storage.ErrReadOnly }

func (readTx) NextSequence(string) (uint64, error) { return 0, storage.ErrReadOnly }

// Unwrap returns the unit's transaction, for wrappers that look for their
// own (the outbox's).
func (t *writeTx) Unwrap() storage.Tx { return t.Tx }
