package outbox

import (
	"context"

	"github.com/deliverykit/deliverykit/storage"
)

// Store returns the dispatcher's store wrapped so that the events a
// committed Update added are delivered right away, in the caller's
// goroutine, before Update returns: a completed checkout is a tracking
// order by the time its response is written, as a direct call would make
// it. Delivery failures are not the caller's: the events stay in the
// outbox and Run retries them. Producers are built on this store;
// everything else may use either.
func (d *Dispatcher) Store() storage.Store { return &deliveringStore{Store: d.store, d: d} }

type deliveringStore struct {
	storage.Store
	d *Dispatcher
}

// deliveringTx notes the events Add writes through it.
type deliveringTx struct {
	storage.Tx
	added []uint64
}

func (s *deliveringStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	var t *deliveringTx
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		t = &deliveringTx{Tx: tx} // a retried fn starts afresh
		return fn(t)
	})
	if err != nil || t == nil || len(t.added) == 0 {
		return err
	}
	// The cause is committed; its effects are delivered with a context
	// that outlives the caller's, as the caller has its answer already.
	if _, derr := s.d.deliverAll(context.WithoutCancel(ctx), t.added); derr != nil {
		s.d.opts.Logger.WarnContext(ctx, "outbox: delivering after commit failed; the dispatcher retries", "err", derr)
	}
	return nil
}

// Probe passes the wrapped store's health check through.
func (s *deliveringStore) Probe(ctx context.Context) error {
	if p, ok := s.Store.(storage.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}
