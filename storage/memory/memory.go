// Package memory is an in-process storage.Store for tests and for embedding
// deliverykit where durability is not needed.
//
// The committed state is an immutable snapshot: one copy-on-write B-tree per
// collection, published through an atomic pointer. A View loads the pointer
// once and reads without locks, so it sees exactly the state committed
// before it began, however many Updates commit while it runs, and it never
// waits for a writer. Updates are serialized by a writer lock; an Update
// clones (lazily, in O(1)) the trees of the collections it writes, and on
// success publishes a new snapshot that shares every untouched node with the
// old one. A failed or panicking Update simply drops its clones, so rollback
// costs nothing. The writer can also be held by a caller between calls
// (Begin, storage.Beginner), as a keyed call's unit of work does; Get reads
// one record without a transaction (storage.Getter).
//
// Values are copied when they are stored and again whenever they are
// returned: a caller can never reach the store's bytes, so a snapshot stays
// immutable whatever callers do with the slices they hold.
package memory

import (
	"bytes"
	"context"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/internal/backend"
)

// degree is the B-tree degree. Items are pointers, so a node of 2*degree-1
// items is about half a kilobyte: small enough that copying the path to a
// written key is cheap, wide enough to keep trees shallow.
const degree = 32

// item is one stored record. Items are immutable once in a tree: a Put
// inserts a new item rather than changing the old one, because published
// snapshots share items with the trees of later transactions.
type item struct {
	key     string
	value   []byte
	version uint64
}

func itemLess(a, b *item) bool { return a.key < b.key }

// coll is the state of one collection. A coll reachable from a published
// snapshot is never modified; transactions work on copies.
type coll struct {
	tree    *btree.BTreeG[*item]
	version uint64 // last version given to a record; never goes back
	seq     uint64 // last value returned by NextSequence
}

// snapshot is the committed state of the store. Collections are never
// removed from it, so their counters survive the deletion of every record.
//
// A commit publishes a new snapshot, so copying one must be cheap: the
// collections are a slice (a few hundred bytes to copy), found by name
// through index, which snapshots share until a commit adds a collection.
type snapshot struct {
	index map[string]int // collection name → position in colls; never modified once published
	colls []*coll
}

// get returns the collection called name, or nil.
func (s *snapshot) get(name string) *coll {
	if i, ok := s.index[name]; ok {
		return s.colls[i]
	}
	return nil
}

// Store is an in-memory storage.Store. The zero value is not usable; call
// New. A Store is safe for concurrent use.
type Store struct {
	// writer serializes Updates. It is a one-slot channel rather than a
	// mutex so that an Update waiting for it gives up when its context is
	// done.
	writer chan struct{}
	// state is the committed snapshot; nil once the store is closed.
	state atomic.Pointer[snapshot]

	shared storage.SharedValues
}

// Shared returns the value the store's users share under key
// (storage.Owner): only this process sees the store.
func (s *Store) Shared(key any, make func() any) (any, bool) { return s.shared.Shared(key, make) }

var (
	_ storage.Store          = (*Store)(nil)
	_ storage.Getter         = (*Store)(nil)
	_ storage.Beginner       = (*Store)(nil)
	_ storage.Owner          = (*Store)(nil)
	_ storage.VersionScanner = (*tx)(nil)
)

// New returns an empty store.
func New() *Store {
	s := &Store{writer: make(chan struct{}, 1)}
	s.state.Store(&snapshot{index: map[string]int{}})
	return s
}

// View runs fn against the snapshot committed when View is called. It takes
// no lock: Views run in parallel with each other and with an Update.
func (s *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	snap := s.state.Load()
	if snap == nil {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{ctx: ctx, base: snap}
	defer t.done.Store(true)
	return fn(t)
}

// Get reads the record at key in coll from the snapshot committed when Get
// is called, as a View with one Get would, without making a transaction
// (storage.Getter): the reads on hot paths, such as a keyed call's look
// for a stored answer, take one lookup and the value's copy.
func (s *Store) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	snap := s.state.Load()
	if snap == nil {
		return storage.Record{}, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(coll, key); err != nil {
		return storage.Record{}, err
	}
	c := snap.get(coll)
	if c == nil {
		return storage.Record{}, storage.ErrNotFound
	}
	it, ok := c.tree.Get(&item{key: key})
	if !ok {
		return storage.Record{}, storage.ErrNotFound
	}
	return it.record(), nil
}

// Update runs fn in a read-write transaction. It commits when fn returns nil
// and ctx is still live; otherwise nothing fn wrote becomes visible and
// Update returns fn's error unchanged, or ctx.Err(). fn runs exactly once.
// fn must not call Update on the same store: it would wait for itself.
func (s *Store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	h, err := s.begin(ctx)
	if err != nil {
		return err
	}
	// Ends the transaction even if fn panics, so that a Tx leaked by a
	// recovered panic cannot write into a later snapshot, and frees the
	// writer; after Commit it does nothing.
	defer h.Rollback()
	if err := fn(&h.tx); err != nil {
		return err
	}
	return h.Commit()
}

// Begin starts a read-write transaction held by the caller
// (storage.Beginner): it holds the store's writer, as an Update does while
// its function runs, until Commit or Rollback.
func (s *Store) Begin(ctx context.Context) (storage.Held, error) {
	h, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// held is a transaction holding the store's writer.
type held struct {
	tx    // in the same allocation
	s     *Store
	ended bool // Commit or Rollback ran; the writer is free
}

var _ storage.Held = (*held)(nil)

// begin waits for the writer and starts a transaction on the snapshot
// committed last.
func (s *Store) begin(ctx context.Context) (*held, error) {
	if s.state.Load() == nil {
		return nil, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case s.writer <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// Reload under the writer lock: the snapshot may have changed, or the
	// store may have been closed, while this transaction waited.
	snap := s.state.Load()
	err := ctx.Err()
	if snap == nil {
		err = storage.ErrClosed
	}
	if err != nil {
		<-s.writer
		return nil, err
	}
	h := &held{tx: tx{ctx: ctx, base: snap, writes: true}, s: s}
	h.own = h.ownBuf[:0]
	return h, nil
}

// Commit publishes the transaction's writes as the new snapshot, unless
// its context is done: the caller asked to stop, even if it ignored the
// errors its Tx returned.
func (h *held) Commit() error {
	if h.ended {
		return backend.ErrTxDone
	}
	defer h.Rollback()
	h.done.Store(true)
	if err := h.ctx.Err(); err != nil {
		return err
	}
	if len(h.own) == 0 {
		return nil
	}
	snap := h.base
	next := &snapshot{index: snap.index, colls: slices.Clone(snap.colls)}
	indexCopied := false
	for _, o := range h.own {
		if i, ok := next.index[o.name]; ok {
			next.colls[i] = o.c
			continue
		}
		if !indexCopied {
			// A new collection: published snapshots keep the old index.
			next.index, indexCopied = maps.Clone(snap.index), true
		}
		next.index[o.name] = len(next.colls)
		next.colls = append(next.colls, o.c)
	}
	h.s.state.Store(next)
	return nil
}

// Rollback drops the transaction's writes and frees the writer.
func (h *held) Rollback() {
	if h.ended {
		return
	}
	h.ended = true
	h.done.Store(true)
	<-h.s.writer
}

// Close drops the store's data. Later Views and Updates return
// storage.ErrClosed; closing again is a no-op. Close waits for a running
// Update to finish; Views still running keep reading their snapshot.
func (s *Store) Close() error {
	s.writer <- struct{}{}
	defer func() { <-s.writer }()
	s.state.Store(nil)
	return nil
}

// tx is a transaction. Reads consult the collections the transaction has
// copied (own) before the snapshot it started from (base), which is how an
// Update sees its own writes.
type tx struct {
	ctx    context.Context
	base   *snapshot
	writes bool         // false for a View
	own    []ownedColl  // the collections this transaction copied; a few at most
	ownBuf [4]ownedColl // own's first array, allocated with the tx
	done   atomic.Bool
	guard  backend.ScanGuard
	// pivot is the search item of point lookups, kept here because a
	// fresh one per lookup escapes to the heap. Only lookup uses it, and
	// a lookup completes before anything else can run on the Tx; Scan,
	// whose B-tree walk calls back into user code, uses its own.
	pivot item
}

// lookup returns the item at key in c, if any.
func (t *tx) lookup(c *coll, key string) (*item, bool) {
	t.pivot.key = key
	it, ok := c.tree.Get(&t.pivot)
	t.pivot.key = ""
	return it, ok
}

// usable reports why t may not be used any more, if it may not.
func (t *tx) usable() error {
	if t.done.Load() {
		return backend.ErrTxDone
	}
	return t.ctx.Err()
}

// writable reports whether t may write, and why not.
func (t *tx) writable() error {
	if err := t.usable(); err != nil {
		return err
	}
	if !t.writes {
		return storage.ErrReadOnly
	}
	return nil
}

// read returns the collection as this transaction sees it, or nil.
func (t *tx) read(name string) *coll {
	if c := t.owned(name); c != nil {
		return c
	}
	return t.base.get(name)
}

// write returns this transaction's private copy of the collection, making
// it on first use. Cloning the tree is O(1): nodes are copied only when a
// write reaches them.
func (t *tx) write(name string) *coll {
	if c := t.owned(name); c != nil {
		return c
	}
	c := &coll{}
	if b := t.base.get(name); b != nil {
		*c = *b
		c.tree = b.tree.Clone()
	} else {
		c.tree = btree.NewG(degree, itemLess)
	}
	t.own = append(t.own, ownedColl{name, c})
	return c
}

// ownedColl is a collection a transaction copied to write to.
type ownedColl struct {
	name string
	c    *coll
}

// owned returns this transaction's copy of the collection, or nil. A
// transaction writes to a few collections, so a scan beats a map.
func (t *tx) owned(name string) *coll {
	for _, o := range t.own {
		if o.name == name {
			return o.c
		}
	}
	return nil
}

func (t *tx) Get(collName, key string) (storage.Record, error) {
	if err := t.usable(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(collName, key); err != nil {
		return storage.Record{}, err
	}
	c := t.read(collName)
	if c == nil {
		return storage.Record{}, storage.ErrNotFound
	}
	it, ok := t.lookup(c, key)
	if !ok {
		return storage.Record{}, storage.ErrNotFound
	}
	return it.record(), nil
}

func (t *tx) Put(collName, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	if err := t.writable(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(collName, key); err != nil {
		return storage.Record{}, err
	}
	if err := t.guard.Check(collName); err != nil {
		return storage.Record{}, err
	}
	c := t.write(collName)
	it := &item{key: key, value: bytes.Clone(val), version: c.version + 1}
	if it.value == nil {
		// Keep "stored" distinct from "absent" for callers that test
		// Value != nil; bytes.Clone maps an empty slice to nil.
		it.value = []byte{}
	}
	// Insert first and check the condition against the item replaced:
	// one walk down the tree instead of a lookup and then an insert. The
	// tree is this transaction's copy, so a failed condition is undone
	// in place and no other transaction ever sees the new item.
	old, replaced := c.tree.ReplaceOrInsert(it)
	var oldVersion uint64
	if replaced {
		oldVersion = old.version
	}
	if err := cond.Check(replaced, oldVersion); err != nil {
		if replaced {
			c.tree.ReplaceOrInsert(old)
		} else {
			c.tree.Delete(it)
		}
		return storage.Record{}, err
	}
	c.version++
	// The caller's own bytes are the stored value: returning them spares
	// copying the store's (Collection.Put only wants the version).
	rec := storage.Record{Key: key, Value: val, Version: it.version}
	if rec.Value == nil {
		rec.Value = []byte{}
	}
	return rec, nil
}

func (t *tx) Delete(collName, key string, cond storage.Condition) error {
	if err := t.writable(); err != nil {
		return err
	}
	if err := validate(collName, key); err != nil {
		return err
	}
	if cond.IsMustNotExist() {
		return deliverykit.InvalidField("condition", "oneof", "must-not-exist is not a valid condition for Delete")
	}
	if err := t.guard.Check(collName); err != nil {
		return err
	}
	exists, version := t.current(collName, key)
	if err := cond.Check(exists, version); err != nil {
		return err
	}
	if !exists {
		return nil
	}
	t.write(collName).tree.Delete(&item{key: key})
	return nil
}

// current reports whether key exists in the transaction's view of the
// collection and its version.
func (t *tx) current(collName, key string) (exists bool, version uint64) {
	c := t.read(collName)
	if c == nil {
		return false, 0
	}
	it, ok := t.lookup(c, key)
	if !ok {
		return false, 0
	}
	return true, it.version
}

func (t *tx) Scan(collName string, r storage.Range) iter.Seq2[storage.Record, error] {
	return t.scan(collName, r, true)
}

// ScanVersions is Scan without the values (storage.VersionScanner): no
// copy of a value is made.
func (t *tx) ScanVersions(collName string, r storage.Range) iter.Seq2[storage.Record, error] {
	return t.scan(collName, r, false)
}

func (t *tx) scan(collName string, r storage.Range, values bool) iter.Seq2[storage.Record, error] {
	return func(yield func(storage.Record, error) bool) {
		// Check when iteration starts, not when Scan is called: the
		// sequence may be ranged over later, even after fn returned.
		if err := t.usable(); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if err := backend.ValidateCollection(collName); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if err := storage.ValidateRange(r); err != nil {
			yield(storage.Record{}, err)
			return
		}
		c := t.read(collName)
		if c == nil {
			return
		}
		if t.writes {
			t.guard.Enter(collName)
			defer t.guard.Leave(collName)
		}

		plan := backend.PlanScan(r)
		var (
			n       int
			err     error
			stopped bool // yield returned false; it must not be called again
		)
		visit := func(it *item) bool {
			if plan.Skip != "" && it.key == plan.Skip {
				return true
			}
			if !strings.HasPrefix(it.key, r.Prefix) {
				return false
			}
			if err = t.usable(); err != nil {
				return false
			}
			rec := storage.Record{Key: it.key, Version: it.version}
			if values {
				rec = it.record()
			}
			if !yield(rec, nil) {
				stopped = true
				return false
			}
			n++
			return r.Limit == 0 || n < r.Limit
		}
		switch {
		case !r.Reverse:
			c.tree.AscendGreaterOrEqual(&item{key: plan.Start}, visit)
		case plan.Bounded:
			c.tree.DescendLessOrEqual(&item{key: plan.Start}, visit)
		default:
			c.tree.Descend(visit)
		}
		if err != nil && !stopped {
			yield(storage.Record{}, err)
		}
	}
}

func (t *tx) NextSequence(collName string) (uint64, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	if err := backend.ValidateCollection(collName); err != nil {
		return 0, err
	}
	c := t.write(collName)
	c.seq++
	return c.seq, nil
}

// record returns a copy of it that the caller owns.
func (it *item) record() storage.Record {
	v := make([]byte, len(it.value))
	copy(v, it.value)
	return storage.Record{Key: it.key, Value: v, Version: it.version}
}

func validate(collName, key string) error {
	if err := backend.ValidateCollection(collName); err != nil {
		return err
	}
	return backend.ValidateKey(key)
}
