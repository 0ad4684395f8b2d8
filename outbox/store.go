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
// outbox and Run retries them. An event whose subject has an earlier
// event pending is delivered after it: Update waits when this process is
// delivering that one right now (bounded by ctx and Options.Lease), and
// otherwise leaves the event to Run. Producers are built on this store;
// everything else may use either.
func (d *Dispatcher) Store() storage.Store { return &deliveringStore{Store: d.store, d: d} }

var _ storage.Stepper = (*deliveringStore)(nil)

type deliveringStore struct {
	storage.Store
	d *Dispatcher
}

// deliveringTx notes the events Add writes through it; Add holds them
// (Dispatcher.held) until this store has delivered them.
type deliveringTx struct {
	storage.Tx
	d     *Dispatcher
	added []uint64
}

func (s *deliveringStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.UpdateSteps(ctx, func(tx storage.Tx) (storage.Step, error) { return storage.Step{}, fn(tx) })
}

// UpdateSteps is Update for a function run in steps (storage.Stepper):
// the events of every step are delivered once they all committed.
func (s *deliveringStore) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	var tries []*deliveringTx
	err := storage.UpdateSteps(ctx, s.Store, func(tx storage.Tx) (storage.Step, error) {
		t := &deliveringTx{Tx: tx, d: s.d} // a retried fn starts afresh
		tries = append(tries, t)
		return first(t)
	})
	return s.settle(ctx, tries, err)
}

// settle releases the events of the attempts of an Update that did not
// commit (all of them when err is set) and delivers those of the one that
// did, the last.
func (s *deliveringStore) settle(ctx context.Context, tries []*deliveringTx, err error) error {
	// Attempts that did not commit added nothing: release what they held.
	for i, t := range tries {
		if err != nil || i < len(tries)-1 {
			s.d.mark(&s.d.held, -1, t.added...)
		}
	}
	if err != nil || len(tries) == 0 {
		return err
	}
	t := tries[len(tries)-1]
	if len(t.added) == 0 {
		return nil
	}
	// The cause is committed; its effects are delivered with a context
	// that outlives the caller's, as the caller has its answer already.
	// An event whose subject has an earlier event being delivered by this
	// process waits for it, for as long as the caller's context and at most
	// a lease; one behind an event pending elsewhere is left to Run.
	// A consumer's own Update (a delivery within a delivery) does not
	// wait: the event it is applying is held meanwhile. What it cannot
	// deliver now, that delivery tries again once it has settled.
	wait, cancel := context.WithTimeout(ctx, s.d.q.Policy.Lease)
	defer cancel()
	outer := delivering(ctx)
	if outer != nil {
		wait = nil
	}
	deliverCtx := context.WithoutCancel(ctx)
	for i, seq := range t.added {
		ok, _, derr := s.d.deliver(deliverCtx, seq, wait)
		if !ok && derr == nil && outer != nil {
			outer.add(seq)
		}
		// Released one by one: a later event of this Update waits for
		// this one only while it is being delivered.
		s.d.mark(&s.d.held, -1, seq)
		if derr != nil {
			s.d.mark(&s.d.held, -1, t.added[i+1:]...)
			s.d.opts.Logger.WarnContext(ctx, "outbox: delivering after commit failed; the dispatcher retries", "err", derr)
			break
		}
	}
	return nil
}

// Begin holds a transaction of the wrapped store for the caller
// (storage.Beginner): its events are delivered, as an Update's, once
// Commit has committed them.
func (s *deliveringStore) Begin(ctx context.Context) (storage.Held, error) {
	h, err := storage.Begin(ctx, s.Store)
	if err != nil {
		return nil, err
	}
	return &deliveringHeld{deliveringTx: &deliveringTx{Tx: h, d: s.d}, held: h, s: s, ctx: ctx}, nil
}

// deliveringHeld is a held transaction whose events are delivered after
// its Commit.
type deliveringHeld struct {
	*deliveringTx
	held  storage.Held
	s     *deliveringStore
	ctx   context.Context
	ended bool
}

func (h *deliveringHeld) Commit() error {
	if h.ended {
		return h.held.Commit() // the wrapped store's refusal
	}
	h.ended = true
	return h.s.settle(h.ctx, []*deliveringTx{h.deliveringTx}, h.held.Commit())
}

func (h *deliveringHeld) Rollback() {
	if h.ended {
		return
	}
	h.ended = true
	h.held.Rollback()
	h.s.d.mark(&h.s.d.held, -1, h.added...)
}

// Unwrap returns the transaction Add looks for.
func (h *deliveringHeld) Unwrap() storage.Tx { return h.deliveringTx }

// Get reads one record (storage.Get) from the wrapped store: a read adds
// no events, so there is nothing to deliver.
func (s *deliveringStore) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	return storage.Get(ctx, s.Store, coll, key)
}

// Shared passes the wrapped store's shared values on (storage.Owner): the
// records are its.
func (s *deliveringStore) Shared(key any, make func() any) (any, bool) {
	return storage.Shared(s.Store, key, make)
}

// Probe passes the wrapped store's health check through.
func (s *deliveringStore) Probe(ctx context.Context) error {
	if p, ok := s.Store.(storage.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}
