package idempotency

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// unit is one keyed call's unit of work: the transaction that holds the
// call's writes, its outbox events and its answer. It is opened lazily, at
// the call's first write through a store wrapped by Keeper.Store: what the
// call reads before (and the work it does with that, such as computing
// delivery options) runs outside it, as without a key, so that on a store
// with one writer keyed calls are not served one at a time for longer than
// their writes take.
//
// On a store that holds a transaction for its caller (storage.Beginner:
// memory) the unit begins one and the call's Updates and Views, once it
// is open, run on it in the call's own goroutine; the call's end (finish)
// stores the answer and commits, or rolls back. Other stores only run a
// function inside a transaction, and may run it again or with others
// (bolt's group commit, PostgreSQL's retries), so there the transaction
// lives in a goroutine of its own (serve): the call's operations are sent
// to it and run there, one at a time, and the call's end tells it to
// store the answer and commit, or to roll back. The function runs in
// steps (storage.Step), one per operation: on a store that interleaves
// them (bolt's group commit), the other Updates of the batch run while the
// call works between two of its writes, such as rendering its answer,
// instead of waiting for it; each operation is still atomic, as it is
// without a key, and they all commit with the answer.
//
// Reads before the unit see committed state, as the same call without a
// key does, and may be stale by the time the unit opens. That keeps the
// guarantees: every write of the call is still in the unit, and a write
// that depends on a read carries its own condition (VersionIs,
// MustNotExist), which refuses a change made in between exactly as
// without a key; the key's record is written inside the unit under a
// condition (FreshKey: it must not exist), and read there too unless the
// look before the call found none, so two units of one key never both
// commit, and the answer stored is the one the committed writes produced. A call that
// wrote nothing stores its answer in a transaction of its own afterwards:
// it has no effect to be atomic with.
type unit struct {
	keeper *Keeper
	rk     string
	ctx    context.Context // the call's, without the unit: the transaction's
	// absent: the look before the call found no answer at all under the
	// key, so the transaction's first attempt does not look again (see
	// attempt).
	absent bool

	mu   sync.Mutex // one operation at a time; guards open
	open bool       // the transaction was started (the call wrote)

	// held is the transaction when the store holds one for the call
	// (storage.Beginner): the call's operations run on it in the call's
	// own goroutine, and its end commits or rolls it back; nil once
	// ended. direct marks that mode, final its result.
	held   storage.Held
	direct bool

	ops   chan op       // the call's operations, then its end, to the transaction; one at a time
	reply chan opResult // an operation's result
	rerun chan struct{} // the store runs the transaction again: so does the call
	ended chan struct{} // closed once the transaction's Update returned
	final error         // its result, set before ended is closed

	// Set by the goroutine that runs the transaction's steps.
	inOp     atomic.Bool // an operation runs on tx: a nested call from it runs there directly
	tx       storage.Tx  // the current attempt's transaction
	view     readTx      // tx for Views
	early    error       // the current attempt refuses the call's operations (errReplay)
	tainted  bool        // a nested Update failed after writing
	endTaken bool        // an attempt took the call's end: a new one reruns the call at once
	stale    bool        // the call's run began on an attempt rolled back: it runs again at its end
	replay   record      // an answer found for the key in the unit
	expired  record      // an expired answer the new one replaces (its At, non-zero)
	storedAt time.Time   // when the answer stored by the attempt that ended last was stamped
}

// callRun is one run of the call in its unit, carried by its context.
type callRun struct {
	u *unit
	// done is set once the run returned: a context that outlives it (an
	// outbox delivery after the commit) opens transactions of its own.
	done atomic.Bool
}

type unitCtx struct{}

// op is one of the call's operations, or its end (end set).
type op struct {
	ctx   context.Context
	fn    func(storage.Tx) error
	write bool
	end   *ending
}

// ending is the call's result, which decides the unit's.
type ending struct {
	answer Answer
	err    error
	hash   string
}

type opResult struct {
	err   error
	panic any
}

// watch notes whether a call run without a unit (Keeper.runAlone) wrote.
type watch struct {
	keeper *Keeper
	wrote  atomic.Bool
}

type watchCtx struct{}

// InUnit reports whether ctx carries a running unit of work: what a call
// writes under it is not committed until the call's answer is.
func InUnit(ctx context.Context) bool {
	r, _ := ctx.Value(unitCtx{}).(*callRun)
	return r != nil && !r.done.Load()
}

// Store returns s taking part in k's units: an Update whose context
// carries a running unit of k runs its function in the unit's transaction
// (opening it at the call's first write), and so does a View once the
// transaction is open; before, a View reads s as without a key. Wrap every
// store the areas are built on, or a call that reaches an unwrapped one
// waits for the unit's own transaction on a single-writer store.
//
// A nested Update that fails leaves the unit as it was when it wrote
// nothing (a refusal after reading, the usual case). One that fails after
// writing marks the unit: it rolls back and the call runs again without
// one (see Keeper.Do). The functions run in the unit's goroutine, one at
// a time; a function that calls the store again (a View inside an Update)
// runs that call on the same transaction. A call must therefore make its
// store calls from one goroutine at a time, as it would use one
// transaction: a call made while another of its calls runs is taken for
// a nested one.
func (k *Keeper) Store(s storage.Store) storage.Store { return &unitStore{Store: s, k: k} }

type unitStore struct {
	storage.Store
	k *Keeper
}

func (s *unitStore) unit(ctx context.Context) *unit {
	r, _ := ctx.Value(unitCtx{}).(*callRun)
	if r == nil || r.u.keeper != s.k || r.done.Load() {
		return nil
	}
	return r.u
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
	return u.do(ctx, fn, true, nil)
}

// UpdateSteps passes a function run in steps (storage.Stepper) on to s
// outside a unit, so that a unit's own transaction keeps them (bolt runs
// the batch's other Updates between them); in a unit it runs there, as
// Update does.
func (s *unitStore) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	whole := func(tx storage.Tx) error { return storage.RunSteps(first(tx)) }
	if u := s.unit(ctx); u != nil {
		return u.do(ctx, whole, true, nil)
	}
	if w, _ := ctx.Value(watchCtx{}).(*watch); w != nil && w.keeper == s.k {
		return s.Update(ctx, whole)
	}
	return storage.UpdateSteps(ctx, s.Store, first)
}

// Begin passes a held transaction (storage.Beginner) on from s outside a
// unit, which is how a unit gets its own; a call in a unit, or watched
// (Keeper.runAlone), is told to use Update, which takes part in them.
func (s *unitStore) Begin(ctx context.Context) (storage.Held, error) {
	if s.unit(ctx) != nil || ctx.Value(watchCtx{}) != nil {
		return nil, storage.ErrNotHeld
	}
	return storage.Begin(ctx, s.Store)
}

func (s *unitStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	u := s.unit(ctx)
	if u == nil {
		return s.Store.View(ctx, fn)
	}
	return u.do(ctx, fn, false, func() error { return s.Store.View(ctx, fn) })
}

// Get reads one record (storage.Get) where a View would: in the unit's
// transaction once it is open, seeing the call's own writes; before, and
// without a unit, from s in one statement where s allows.
func (s *unitStore) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	u := s.unit(ctx)
	if u == nil {
		return storage.Get(ctx, s.Store, coll, key)
	}
	var rec storage.Record
	err := u.do(ctx, func(tx storage.Tx) (err error) {
		rec, err = tx.Get(coll, key)
		return err
	}, false, func() (err error) {
		rec, err = storage.Get(ctx, s.Store, coll, key)
		return err
	})
	if err != nil {
		return storage.Record{}, err
	}
	return rec, nil
}

// Shared passes the wrapped store's shared values on (storage.Owner): the
// records are its.
func (s *unitStore) Shared(key any, make func() any) (any, bool) {
	return storage.Shared(s.Store, key, make)
}

// Probe passes the wrapped store's health check through.
func (s *unitStore) Probe(ctx context.Context) error {
	if p, ok := s.Store.(storage.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}

// do runs fn for the call: on the unit's transaction, opened by the first
// write; a read before it runs outside instead, as without a key.
func (u *unit) do(ctx context.Context, fn func(storage.Tx) error, write bool, outside func() error) error {
	if u.inOp.Load() {
		// Called from an operation running on the transaction, in its
		// goroutine: waiting for that goroutine would wait for itself.
		return u.apply(ctx, u.tx, fn, write)
	}
	u.mu.Lock()
	if !u.open {
		if !write {
			u.mu.Unlock()
			return outside()
		}
		u.start()
	}
	defer u.mu.Unlock()
	if u.direct {
		return u.runHeld(ctx, fn, write)
	}
	return u.send(op{ctx: ctx, fn: fn, write: write})
}

// runHeld runs one of the call's operations on the held transaction, in
// the call's goroutine; its panic goes up the call as it would without a
// key (Keeper.runIn rolls the unit back).
func (u *unit) runHeld(ctx context.Context, fn func(storage.Tx) error, write bool) error {
	switch {
	case u.held == nil:
		return u.final // Begin failed
	case u.early != nil:
		return u.early
	}
	u.inOp.Store(true)
	defer u.inOp.Store(false)
	return u.apply(ctx, u.tx, fn, write)
}

// start opens the unit's transaction; u.mu is held. A store that holds a
// transaction for its caller gives the unit one, used from the call's
// goroutine; otherwise the transaction's function runs in a goroutine of
// its own (serve), in steps.
func (u *unit) start() {
	u.open = true
	if h, err := storage.Begin(u.ctx, u.keeper.store); !errors.Is(err, storage.ErrNotHeld) {
		u.direct = true
		if err != nil {
			u.final = err
			return
		}
		u.held = h
		u.begin(h, 1)
		return
	}
	u.ops, u.reply = make(chan op, 1), make(chan opResult, 1)
	u.rerun, u.ended = make(chan struct{}), make(chan struct{})
	select {
	case u.keeper.units <- u: // an idle worker takes it
	default:
		go u.keeper.work(u)
	}
}

// workerIdle is how long a unit's goroutine waits for the next unit.
const workerIdle = 5 * time.Second

// work serves u's transaction, then the next units handed to it until it
// was idle for workerIdle. A goroutine that served a unit has grown its
// stack to what the call's operations need (the JSON encoder's frames are
// large); a new goroutine per unit grew it again, copying it each time,
// which cost a tenth of a keyed create's CPU.
func (k *Keeper) work(u *unit) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		u.serve()
		idle.Reset(workerIdle)
		select {
		case u = <-k.units:
		case <-idle.C:
			return
		}
	}
}

// send hands o to the transaction and returns its result; u.mu is held.
func (u *unit) send(o op) error {
	select {
	case <-u.ended:
		// The transaction ended without running it (the store refused
		// to begin, or the context ended while waiting for the writer).
		return u.final
	default:
	}
	u.ops <- o // never waits: the operation before was taken
	select {
	case r := <-u.reply:
		if r.panic != nil {
			panic(r.panic)
		}
		return r.err
	case <-u.ended:
		return u.final
	}
}

// serve runs the unit's transaction until the call's end.
func (u *unit) serve() {
	defer close(u.ended)
	defer func() {
		// The call's own panics come back to it (run); one of the store
		// or of the keeper is the call's error, not the process's end.
		if p := recover(); p != nil {
			u.final = deliverykit.Errorf(deliverykit.KindInternal, "idempotency: unit of work: panic: %v", p)
		}
	}()
	attempt := 0
	u.final = storage.UpdateSteps(u.ctx, u.keeper.store, func(tx storage.Tx) (storage.Step, error) {
		attempt++
		return u.attempt(tx, attempt)
	})
}

// attempt begins one run of the transaction's function. A store may run
// it again (bolt runs a failed batch member alone, or the others of a batch
// that failed; PostgreSQL retries a serialization failure); the call's
// operations of the run before are then gone, so the call runs again
// (Keeper.unit) with the unit open: at once when it has ended, else when
// it ends, its operations meanwhile refused.
func (u *unit) attempt(tx storage.Tx, n int) (storage.Step, error) {
	// Another server may have stored an answer since the look before the
	// call: it is the answer, and the call's operations are refused. When
	// that look found no record under the key, the first attempt does
	// not read it again: the answer's Put (FreshKey) fails if a record
	// appeared meanwhile, the transaction rolls back with the call's
	// writes, and the attempt that follows (a store running it again, or
	// Do after the conflict) looks and finds that answer. On PostgreSQL
	// the attempt's first statement is then the call's first write, sent
	// with the BEGIN: a round trip less. An expired answer is read in the
	// transaction, so that replacing it cannot replace a newer one.
	early := u.begin(tx, n)
	if n > 1 {
		if early != nil {
			return storage.Step{}, early
		}
		u.tainted = false
		if u.endTaken {
			u.endTaken = false
			u.rerun <- struct{}{}
		} else {
			u.stale = true
		}
	}
	return u.steps()
}

// begin sets tx up as the unit's transaction for the attempt n (see
// attempt) and returns what refuses the call's operations on it, if
// anything does.
func (u *unit) begin(tx storage.Tx, n int) error {
	var rec record
	var found bool
	var early error
	if n > 1 || !u.absent {
		rec, found, early = u.keeper.get(tx, u.rk)
	}
	if early == nil && found {
		u.replay, early = rec, errReplay
	}
	u.expired = record{At: rec.At, owned: rec.owned}
	u.tx, u.view, u.early = tx, readTx{tx}, early
	return early
}

// steps runs the call's operations that are waiting, and returns the
// next step when there are none, or the end.
func (u *unit) steps() (storage.Step, error) {
	for {
		select {
		case o := <-u.ops:
			if done, err := u.handle(o); done {
				return storage.Step{}, err
			}
		default:
			return storage.Step{Ready: u.ready, Next: u.next}, nil
		}
	}
}

// next waits for the call's next operation or its end.
func (u *unit) next() (storage.Step, error) {
	if done, err := u.handle(<-u.ops); done {
		return storage.Step{}, err
	}
	return u.steps()
}

func (u *unit) ready() bool { return len(u.ops) > 0 }

// handle runs o, replying to the call, or ends the attempt with the call's
// end (done).
func (u *unit) handle(o op) (done bool, err error) {
	if o.end != nil {
		if u.stale {
			// The call's run lost its writes with the attempt before:
			// it runs again, on this one.
			u.stale = false
			u.rerun <- struct{}{}
			return false, nil
		}
		u.endTaken = true
		return true, u.end(u.tx, o.end, u.early)
	}
	switch {
	case u.stale:
		u.reply <- opResult{err: errRolledBack}
	case u.early != nil:
		u.reply <- opResult{err: u.early}
	default:
		u.reply <- u.run(o)
	}
	return false, nil
}

// run runs o on the transaction, a panic included in its result.
func (u *unit) run(o op) (res opResult) {
	u.inOp.Store(true)
	// Cleared before the result is sent: the call's next operation must
	// not take itself for a nested one.
	defer u.inOp.Store(false)
	defer func() {
		if p := recover(); p != nil {
			res = opResult{panic: p}
		}
	}()
	return opResult{err: u.apply(o.ctx, u.tx, o.fn, o.write)}
}

// apply runs fn on tx as a nested Update (write) or View.
func (u *unit) apply(ctx context.Context, tx storage.Tx, fn func(storage.Tx) error, write bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !write {
		return fn(&u.view)
	}
	t := &writeTx{Tx: tx}
	err := fn(t)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil && t.wrote {
		u.tainted = true
	}
	return err
}

// end ends an attempt with the call's result: the answer is stored and
// the attempt commits, or an error rolls it back.
func (u *unit) end(tx storage.Tx, e *ending, early error) error {
	switch {
	case early != nil:
		// The call's operations were refused: its result is of no
		// account.
		return early
	case e.err != nil:
		return callError{e.err}
	case u.tainted:
		return errTainted
	case !Storable(e.answer.Status):
		return errDiscard
	}
	at := u.keeper.clock.Now()
	if err := u.keeper.put(tx, u.rk, newRecord(e.hash, e.answer, at), u.expired); err != nil {
		return err
	}
	u.storedAt = at
	return nil
}

// finish ends the call's run with its result. It returns the unit's
// result (the transaction's Update's), or rerun when the store runs the
// transaction again and the call must run again in it.
func (u *unit) finish(e *ending) (err error, rerun bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.direct {
		if h := u.held; h != nil {
			u.held = nil
			// Frees the writer whatever happens here (storing the
			// answer may panic); after Commit it does nothing.
			defer h.Rollback()
			if u.final = u.end(u.tx, e, u.early); u.final == nil {
				u.final = h.Commit()
			}
		}
		return u.final, false
	}
	select {
	case <-u.ended:
		return u.final, false
	default:
	}
	u.ops <- op{end: e} // never waits, as in send
	select {
	case <-u.rerun:
		return nil, true
	case <-u.ended:
		return u.final, false
	}
}

// abort rolls the unit back after the call panicked, so that its
// goroutine ends and the store's writer is free again.
func (u *unit) abort(p any) {
	e := &ending{err: fmt.Errorf("idempotency: the call panicked: %v", p)}
	for {
		if _, rerun := u.finish(e); !rerun {
			return
		}
	}
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

// Unwrap returns the unit's transaction, for wrappers that look for their
// own (the outbox's).
func (t *writeTx) Unwrap() storage.Tx { return t.Tx }

// readTx is a View on the unit's transaction: it sees the call's own
// writes and refuses writes, as a View does.
type readTx struct{ tx storage.Tx }

func (t *readTx) Get(coll, key string) (storage.Record, error) { return t.tx.Get(coll, key) }

func (t *readTx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return t.tx.Scan(coll, r)
}

func (*readTx) Put(string, string, []byte, storage.Condition) (storage.Record, error) {
	return storage.Record{}, storage.ErrReadOnly
}

func (*readTx) Delete(string, string, storage.Condition) error { return storage.ErrReadOnly }

func (*readTx) NextSequence(string) (uint64, error) { return 0, storage.ErrReadOnly }
