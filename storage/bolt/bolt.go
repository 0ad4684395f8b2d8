// Package bolt is a storage.Store kept in a single file with
// go.etcd.io/bbolt: the default store of the example server.
//
// # Layout
//
// Each collection is a top-level bbolt bucket, created by its first Put;
// reading a collection that has none behaves as reading an empty one. A
// stored value is the record's version as 8 big-endian bytes followed by the
// value. The version counter of a collection is its bucket's own sequence
// (Bucket.NextSequence), which bbolt persists with the bucket and which
// survives the deletion of every record, so versions never repeat. The
// counters behind Tx.NextSequence live in the internal bucket "\x00seq",
// one 8-byte big-endian value per collection name. User collection names
// starting with "\x00" are rejected, so internal buckets cannot collide
// with them.
//
// # Transactions
//
// View is a bbolt read transaction and Update a bbolt read-write one, so
// Views see a consistent snapshot and Updates are serialized by bbolt's
// single writer.
//
// Updates are group-committed: a commit is mostly its fsync, so concurrent
// Updates share one. An Update joins a queue; when no batch is being
// committed, the caller becomes the leader and runs every queued fn, in
// order, in one bbolt transaction, then commits once; Updates that arrive
// meanwhile queue for the next batch, whose leader is handed over when the
// current commit ends; the new leader lets the goroutines ready to run go
// first (a yield), so that Updates they are about to make join its batch.
// There is no timer (unlike bbolt's DB.Batch, which waits up to 10 ms to
// fill a batch): a lone Update commits at once, and batches grow as long
// as the fsyncs before them take. Every Update returns only after the
// commit that holds its writes is durable.
//
// When one fn of a batch fails (an error, a done context, a panic), the
// transaction rolls back, the others are retried as a smaller batch, and
// the failed one runs again alone so that its error (or panic) is its own.
// fn may therefore run more than once, which the storage contract allows:
// it must have no effects outside the transaction. Within a batch a fn
// sees the writes of the fns before it, as it would had they committed
// first, so Updates stay serializable.
//
// A function run in steps (UpdateSteps, storage.Step) is a member of a
// batch like any other, but while its caller works between two steps the
// leader runs the batch's other functions, and the steps that became ready
// meanwhile, instead of waiting; it waits for the last steps only once the
// rest of the batch has run, and then commits. A keyed call (package
// idempotency) holds its transaction from its first write until its answer
// is stored: run in steps, the batch's other calls render their answers
// side by side with it rather than one after another.
//
// A View must not wait for an Update (a channel, a lock, another
// transaction): when the file outgrows its memory map, bbolt's writer waits
// for every open read transaction to end. The map starts at
// initialMmapSize, so this only matters for large files.
//
// Every byte slice read from bbolt is copied before it is returned, because
// bbolt's memory is only valid inside its transaction.
package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/internal/backend"
)

// DefaultTimeout is how long Open waits for the file lock when
// Options.Timeout is not set. A second process on the same file is almost
// always a mistake (two servers sharing a data directory), so Open should
// fail quickly with a clear error rather than hang.
const DefaultTimeout = time.Second

// initialMmapSize is the size of bbolt's first memory map. bbolt must remap
// the file when it grows past the map, and remapping waits for every read
// transaction to end; starting large makes that rare. It reserves address
// space only: on Unix the file still grows as data is written.
const initialMmapSize = 256 << 20

// versionLen is the length of the version prefix of every stored value.
const versionLen = 8

// seqBucket holds the NextSequence counters. Its name starts with
// backend.ReservedPrefix, which user collections cannot.
var seqBucket = []byte(backend.ReservedPrefix + "seq")

// Options configures Open. A nil *Options is the same as the zero value.
type Options struct {
	// Timeout bounds the wait for the file lock another process (or
	// another Open in this process) holds. Zero or negative means
	// DefaultTimeout.
	Timeout time.Duration
	// NoSync skips the fsync after each commit. It is for tests only: a
	// crash or power loss can then lose committed transactions or corrupt
	// the file.
	NoSync bool
}

// Store is a storage.Store kept in one bbolt file. It is safe for
// concurrent use.
type Store struct {
	db     *bbolt.DB
	path   string
	file   fs.FileInfo // the file as opened, for Probe
	closed atomic.Bool

	// Group commit: Updates wait in pending; the one leader at a time
	// commits them all in one transaction. See lead.
	mu      sync.Mutex
	pending []*call
	leading bool
	yield   func() // runtime.Gosched; a field so that a test can watch it

	shared storage.SharedValues
}

// Shared returns the value the store's users share under key
// (storage.Owner): no other process writes to the file while it is open,
// so the store is this process's own.
func (s *Store) Shared(key any, make func() any) (any, bool) { return s.shared.Shared(key, make) }

var (
	_ storage.Store   = (*Store)(nil)
	_ storage.Prober  = (*Store)(nil)
	_ storage.Stepper = (*Store)(nil)
	_ storage.Owner   = (*Store)(nil)
)

// Open opens or creates the store file at path with mode 0600. It fails
// when another process holds the file: bbolt takes an exclusive lock for
// the lifetime of the store.
func Open(path string, opts *Options) (*Store, error) {
	bo := boltOptions(opts)
	db, err := bbolt.Open(path, 0o600, bo)
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("storage/bolt: %s is in use by another process (file lock not acquired within %v): %w", path, bo.Timeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("storage/bolt: open %s: %w", path, err)
	}
	// bbolt does not expose its file, so the path is read right after it
	// was opened and locked; Probe compares later readings with this one.
	fi, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("storage/bolt: open %s: %w", path, err)
	}
	return &Store{db: db, path: path, file: fi, yield: runtime.Gosched}, nil
}

// boltOptions maps opts to bbolt's options.
func boltOptions(opts *Options) *bbolt.Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return &bbolt.Options{
		Timeout:         o.Timeout,
		NoSync:          o.NoSync,
		InitialMmapSize: initialMmapSize,
	}
}

// Path returns the file the store was opened on.
func (s *Store) Path() string { return s.path }

// Probe reports whether the file the store has open is still the file at
// its path (same device and inode). A file removed or replaced under a
// running store still takes writes, but they go to a file that nothing
// will open again: every write is lost at the next restart. Such a store
// is KindUnavailable; only a restart on the right file mends it.
func (s *Store) Probe(ctx context.Context) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return deliverykit.Errorf(deliverykit.KindUnavailable, "storage/bolt: %s was removed while the store has it open; writes would be lost: restore the file and restart", s.path)
	case err != nil:
		return deliverykit.Errorf(deliverykit.KindUnavailable, "storage/bolt: checking the file: %w", err)
	case !os.SameFile(s.file, fi):
		return deliverykit.Errorf(deliverykit.KindUnavailable, "storage/bolt: %s was replaced by another file while the store has the old one open; writes would be lost: restart on the right file", s.path)
	}
	return nil
}

// View runs fn in a bbolt read transaction.
func (s *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	began := false
	err := s.db.View(func(btx *bbolt.Tx) error {
		began = true
		t := &tx{ctx: ctx, btx: btx}
		defer t.done.Store(true)
		return fn(t)
	})
	switch {
	case began:
		return err // fn's error, unchanged
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return storage.ErrClosed
	}
	return deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: begin: %w", err)
}

// Update runs fn in a bbolt read-write transaction. It commits when fn
// returns nil and ctx is still live; otherwise it rolls back and returns
// fn's error unchanged, or ctx.Err(). Waiting for bbolt's writer lock
// cannot be interrupted; ctx is checked again once it is held. fn must not
// call Update on the same store: it would wait for itself.
//
// Concurrent Updates are group-committed (see the package doc): fn may run
// more than once, and Update returns only once the transaction that holds
// fn's writes is durable.
func (s *Store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.UpdateSteps(ctx, func(tx storage.Tx) (storage.Step, error) { return storage.Step{}, fn(tx) })
}

// UpdateSteps is Update for a function run in steps (storage.Step): while
// the caller works between two of its steps, the batch's leader runs the
// other functions of the batch, and it commits once the last step of every
// function has run.
func (s *Store) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c := &call{ctx: ctx, first: first, done: make(chan outcome, 1)}
	s.mu.Lock()
	s.pending = append(s.pending, c)
	leader := !s.leading
	s.leading = true
	s.mu.Unlock()
	for {
		if leader {
			s.lead()
		}
		o := <-c.done
		switch {
		case o.lead:
			// A previous leader handed the next batch to this call.
			// Under load: the handlers that are ready to run go first,
			// so that their Updates join the batch rather than wait for
			// the next commit and its two fdatasyncs (decision 0047).
			leader = true
			s.yield()
			continue
		case o.solo:
			return s.updateSolo(ctx, first)
		}
		return o.err
	}
}

// call is one Update waiting to be committed.
type call struct {
	ctx   context.Context
	first func(storage.Tx) (storage.Step, error)
	done  chan outcome

	// The call's state in the batch that runs it.
	t    *tx          // its transaction, valid until its last step ran
	step storage.Step // what remains of it
}

// outcome is what a batch tells a waiting call.
type outcome struct {
	err  error // the result, unless solo or lead
	solo bool  // fn failed inside a batch: run it alone, to return its own error
	lead bool  // run the next batch
}

// lead commits every pending call in one bbolt transaction, then hands the
// leadership to a call that arrived meanwhile, if any. The leader's own call
// is always in the batch it takes: it was pending when it became leader,
// and only leaders take pending calls.
func (s *Store) lead() {
	s.mu.Lock()
	calls := s.pending
	s.pending = nil
	s.mu.Unlock()
	// Handed over even if bbolt panics, so later Updates never wait for
	// a leader that is gone.
	defer func() {
		s.mu.Lock()
		if len(s.pending) > 0 {
			s.pending[0].done <- outcome{lead: true}
		} else {
			s.leading = false
		}
		s.mu.Unlock()
	}()
	s.commitBatch(calls)
}

// commitBatch runs calls in one read-write transaction, in order, and
// commits them with one fsync. A call run in steps that is waiting for its
// caller is passed over: its next step runs as soon as it is ready, between
// the functions of the others, and the commit waits for its last one. When
// a call fails (an error, a context done, a panic), the transaction rolls
// back, that call is told to run alone (so its error is computed on a state
// without the batch's rolled-back writes, and a panic surfaces in its own
// goroutine), and the rest are retried as a smaller batch.
func (s *Store) commitBatch(calls []*call) {
	for len(calls) > 0 {
		failed := -1
		began := false
		err := s.db.Update(func(btx *bbolt.Tx) error {
			began = true
			// Whatever ends the transaction ends every call's Tx with it.
			defer func() {
				for _, c := range calls {
					if c.t != nil {
						c.t.done.Store(true)
					}
				}
			}()
			var waiting []int // calls between two steps, in order
			for i, c := range calls {
				c.t, c.step = nil, storage.Step{}
				if f := runReady(calls, &waiting, false); f >= 0 {
					failed = f
					return errStepFailed
				}
				if err := runStep(c, func() (storage.Step, error) {
					c.t = &tx{ctx: c.ctx, btx: btx, writable: true}
					return c.first(c.t)
				}); err != nil {
					failed = i
					return err
				}
				if c.step.Next != nil {
					waiting = append(waiting, i)
				}
			}
			if f := runReady(calls, &waiting, true); f >= 0 {
				failed = f
				return errStepFailed
			}
			return nil
		})
		if failed >= 0 {
			calls[failed].done <- outcome{solo: true}
			calls = append(calls[:failed:failed], calls[failed+1:]...)
			continue
		}
		err = updateError(err, began, began)
		for _, c := range calls {
			c.done <- outcome{err: err}
		}
		return
	}
}

// errStepFailed rolls back a batch in which a call's later step failed.
var errStepFailed = errors.New("storage/bolt: a step failed")

// runReady runs the next steps of the waiting calls that are ready, first
// come first; with all, it also waits for the steps of calls that are not,
// until none is left. It returns the index of a call that failed, or -1.
func runReady(calls []*call, waiting *[]int, all bool) int {
	for len(*waiting) > 0 {
		j := slices.IndexFunc(*waiting, func(i int) bool {
			r := calls[i].step.Ready
			return r == nil || r()
		})
		if j < 0 {
			if !all {
				return -1
			}
			j = 0
		}
		i := (*waiting)[j]
		c := calls[i]
		if err := runStep(c, c.step.Next); err != nil {
			return i
		}
		if c.step.Next == nil {
			*waiting = slices.Delete(*waiting, j, j+1)
		}
	}
	return -1
}

// runStep runs one step of c, the first or a next, with the context checks
// of Update. Any failure, a panic included, is an error: the batch then
// runs c again alone.
func runStep(c *call, step func() (storage.Step, error)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("storage/bolt: panic in Update: %v", r)
		}
	}()
	// The writer lock may have been held for a while.
	if err := c.ctx.Err(); err != nil {
		return err
	}
	if c.step, err = step(); err != nil {
		return err
	}
	if c.step.Next != nil {
		return nil
	}
	// A context cancelled while fn ran rolls back even if fn ignored the
	// errors its Tx returned: the caller asked to stop.
	return c.ctx.Err()
}

// updateSolo runs first and its steps in a bbolt transaction of their own.
// It is how a call that failed inside a batch learns its own result.
func (s *Store) updateSolo(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var began, committing bool
	err := s.db.Update(func(btx *bbolt.Tx) error {
		began = true
		// A panic is not recovered here: alone, fn panics in the
		// caller's goroutine and bbolt rolls back.
		if err := ctx.Err(); err != nil {
			return err
		}
		t := &tx{ctx: ctx, btx: btx, writable: true}
		err := func() error {
			defer t.done.Store(true)
			return storage.RunSteps(first(t))
		}()
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
		committing = true
		return nil
	})
	if err != nil && !committing && began {
		return err // fn's error or ctx.Err(), unchanged
	}
	return updateError(err, began, committing)
}

// updateError maps the error of a bbolt Update whose functions all
// succeeded (or never ran) to the store's errors.
func updateError(err error, began, committing bool) error {
	switch {
	case err == nil:
		return nil
	case committing:
		return deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: commit: %w", err)
	case !began && errors.Is(err, berrors.ErrDatabaseNotOpen):
		return storage.ErrClosed
	case !began:
		return deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: begin: %w", err)
	}
	return err
}

// Close closes the file, waiting for running transactions. Later Views and
// Updates return storage.ErrClosed; closing again is a no-op.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("storage/bolt: close %s: %w", s.path, err)
	}
	return nil
}

// tx adapts a bbolt transaction to storage.Tx.
type tx struct {
	ctx      context.Context
	btx      *bbolt.Tx
	writable bool
	// done is set when fn returns; bbolt's Tx is invalid from then on and
	// using it would dereference freed state.
	done  atomic.Bool
	guard backend.ScanGuard
}

func (t *tx) usable() error {
	if t.done.Load() {
		return backend.ErrTxDone
	}
	return t.ctx.Err()
}

func (t *tx) canWrite() error {
	if err := t.usable(); err != nil {
		return err
	}
	if !t.writable {
		return storage.ErrReadOnly
	}
	return nil
}

func (t *tx) Get(coll, key string) (storage.Record, error) {
	if err := t.usable(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(coll, key); err != nil {
		return storage.Record{}, err
	}
	b := t.btx.Bucket([]byte(coll))
	if b == nil {
		return storage.Record{}, storage.ErrNotFound
	}
	v := b.Get([]byte(key))
	if v == nil {
		return storage.Record{}, storage.ErrNotFound
	}
	return decode(coll, []byte(key), v, key)
}

func (t *tx) Put(coll, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	if err := t.canWrite(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(coll, key); err != nil {
		return storage.Record{}, err
	}
	if len(val) > bbolt.MaxValueSize-versionLen {
		return storage.Record{}, deliverykit.InvalidField("value", "max", fmt.Sprintf("value must be at most %d bytes", bbolt.MaxValueSize-versionLen))
	}
	if err := t.guard.Check(coll); err != nil {
		return storage.Record{}, err
	}
	// bbolt keeps the key and value slices until commit, so both must be
	// fresh allocations that nobody else holds.
	k := []byte(key)
	b := t.btx.Bucket([]byte(coll))
	exists, current, err := currentVersion(b, coll, k)
	if err != nil {
		return storage.Record{}, err
	}
	if err := cond.Check(exists, current); err != nil {
		return storage.Record{}, err
	}
	if b == nil {
		if b, err = t.btx.CreateBucket([]byte(coll)); err != nil {
			return storage.Record{}, deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: create collection %q: %w", coll, err)
		}
	}
	version, err := b.NextSequence()
	if err != nil {
		return storage.Record{}, deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: next version of %q: %w", coll, err)
	}
	stored := make([]byte, versionLen+len(val))
	binary.BigEndian.PutUint64(stored, version)
	copy(stored[versionLen:], val)
	if err := b.Put(k, stored); err != nil {
		return storage.Record{}, deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: put %q in %q: %w", key, coll, err)
	}
	// The returned value is val itself, which the caller owns already (as
	// the memory store does): a copy would cost an allocation per write
	// that Collection.Put, which wants only the version, throws away. It
	// must not alias stored, which bbolt reads at commit.
	if val == nil {
		val = []byte{}
	}
	return storage.Record{Key: key, Value: val, Version: version}, nil
}

func (t *tx) Delete(coll, key string, cond storage.Condition) error {
	if err := t.canWrite(); err != nil {
		return err
	}
	if err := validate(coll, key); err != nil {
		return err
	}
	if cond.IsMustNotExist() {
		return deliverykit.InvalidField("condition", "oneof", "must-not-exist is not a valid condition for Delete")
	}
	if err := t.guard.Check(coll); err != nil {
		return err
	}
	k := []byte(key)
	b := t.btx.Bucket([]byte(coll))
	exists, current, err := currentVersion(b, coll, k)
	if err != nil {
		return err
	}
	if err := cond.Check(exists, current); err != nil {
		return err
	}
	if !exists {
		return nil
	}
	if err := b.Delete(k); err != nil {
		return deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: delete %q in %q: %w", key, coll, err)
	}
	return nil
}

func (t *tx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return t.scan(coll, r, true)
}

// ScanVersions is Scan without the values (storage.VersionScanner): each
// record's version is read from the first 8 bytes of its stored value,
// in bbolt's memory, and the value is never copied.
func (t *tx) ScanVersions(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return t.scan(coll, r, false)
}

func (t *tx) scan(coll string, r storage.Range, values bool) iter.Seq2[storage.Record, error] {
	return func(yield func(storage.Record, error) bool) {
		// Check when iteration starts, not when Scan is called: the
		// sequence may be ranged over later, even after fn returned.
		if err := t.usable(); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if err := backend.ValidateCollection(coll); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if err := storage.ValidateRange(r); err != nil {
			yield(storage.Record{}, err)
			return
		}
		b := t.btx.Bucket([]byte(coll))
		if b == nil {
			return
		}
		if t.writable {
			t.guard.Enter(coll)
			defer t.guard.Leave(coll)
		}

		plan := backend.PlanScan(r)
		prefix := []byte(r.Prefix)
		c := b.Cursor()
		var k, v []byte
		switch {
		case !r.Reverse:
			k, v = c.Seek([]byte(plan.Start))
		case plan.Bounded:
			// Seek finds the first key >= Start; the one before it is the
			// last key < Start, where a reverse scan begins (Start itself
			// is exclusive). With no key >= Start, that is the last key.
			if k, _ = c.Seek([]byte(plan.Start)); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		default:
			k, v = c.Last()
		}
		next := c.Next
		if r.Reverse {
			next = c.Prev
		}
		n := 0
		for ; k != nil; k, v = next() {
			if plan.Skip != "" && string(k) == plan.Skip {
				continue
			}
			if !bytes.HasPrefix(k, prefix) {
				return
			}
			if err := t.usable(); err != nil {
				yield(storage.Record{}, err)
				return
			}
			var rec storage.Record
			var err error
			if values {
				rec, err = decode(coll, k, v, string(k))
			} else if len(v) < versionLen {
				err = corrupt(coll, k, v)
			} else {
				rec = storage.Record{Key: string(k), Version: binary.BigEndian.Uint64(v)}
			}
			if !yield(rec, err) || err != nil {
				return
			}
			n++
			if r.Limit > 0 && n >= r.Limit {
				return
			}
		}
	}
}

func (t *tx) NextSequence(coll string) (uint64, error) {
	if err := t.canWrite(); err != nil {
		return 0, err
	}
	if err := backend.ValidateCollection(coll); err != nil {
		return 0, err
	}
	b, err := t.btx.CreateBucketIfNotExists(seqBucket)
	if err != nil {
		return 0, deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: sequence bucket: %w", err)
	}
	k := []byte(coll)
	var n uint64
	if cur := b.Get(k); cur != nil {
		if len(cur) != 8 {
			return 0, deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: corrupt sequence of %q: %d bytes, want 8", coll, len(cur))
		}
		n = binary.BigEndian.Uint64(cur)
	}
	n++
	buf := make([]byte, 8)
	binary.BigEndian.PutUint64(buf, n)
	if err := b.Put(k, buf); err != nil {
		return 0, deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: sequence of %q: %w", coll, err)
	}
	return n, nil
}

// currentVersion reports whether k exists in bucket b (which may be nil)
// and its version.
func currentVersion(b *bbolt.Bucket, coll string, k []byte) (exists bool, version uint64, err error) {
	if b == nil {
		return false, 0, nil
	}
	v := b.Get(k)
	if v == nil {
		return false, 0, nil
	}
	if len(v) < versionLen {
		return false, 0, corrupt(coll, k, v)
	}
	return true, binary.BigEndian.Uint64(v), nil
}

// decode turns a stored value into a Record that owns its bytes. key is k
// as a string, passed in so that Get can reuse the caller's string.
func decode(coll string, k, v []byte, key string) (storage.Record, error) {
	if len(v) < versionLen {
		return storage.Record{}, corrupt(coll, k, v)
	}
	val := make([]byte, len(v)-versionLen)
	copy(val, v[versionLen:])
	return storage.Record{Key: key, Value: val, Version: binary.BigEndian.Uint64(v)}, nil
}

func corrupt(coll string, k, v []byte) error {
	return deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: corrupt record %q in collection %q: %d bytes, want at least %d", k, coll, len(v), versionLen)
}

func validate(coll, key string) error {
	if err := backend.ValidateCollection(coll); err != nil {
		return err
	}
	if err := backend.ValidateKey(key); err != nil {
		return err
	}
	if len(coll) > bbolt.MaxKeySize {
		return deliverykit.InvalidField("collection", "max", fmt.Sprintf("collection must be at most %d bytes", bbolt.MaxKeySize))
	}
	if len(key) > bbolt.MaxKeySize {
		return deliverykit.InvalidField("key", "max", fmt.Sprintf("key must be at most %d bytes", bbolt.MaxKeySize))
	}
	return nil
}
