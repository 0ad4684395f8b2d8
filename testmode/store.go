package testmode

import (
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/deliverykit/deliverykit/storage"
)

// collPrefix starts the name of every collection that holds test sites'
// records: the areas' own collection names after it.
const collPrefix = "test."

// collections lists (as keys) the collection names test sites have
// written to, so that deleting a site knows where to look.
var collections = storage.Collection[struct{}]{Name: "testmode.collections"}

// siteStore is one test site's view of the deployment's store: the areas
// built for the site see their usual collection names and keys, stored in
// the "test." collections under the site's key prefix. The site's
// records never meet a live site's (different collections) nor another
// test site's (different prefix), and the deployment's background loops,
// which scan the live collections, never see them.
var _ storage.Stepper = (*siteStore)(nil)

type siteStore struct {
	storage.Store
	prefix string // the site id and "/"
	seen   *sync.Map
	closed atomic.Bool
}

func newSiteStore(s storage.Store, site string, seen *sync.Map) *siteStore {
	return &siteStore{Store: s, prefix: site + "/", seen: seen}
}

func (s *siteStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(&siteTx{tx: tx, s: s}) })
}

func (s *siteStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.UpdateSteps(ctx, func(tx storage.Tx) (storage.Step, error) { return storage.Step{}, fn(tx) })
}

// UpdateSteps passes a function run in steps (storage.Stepper) on to the
// deployment's store.
func (s *siteStore) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	var last *siteTx // of the run that committed, when the store ran first again
	err := storage.UpdateSteps(ctx, s.Store, func(tx storage.Tx) (storage.Step, error) {
		last = &siteTx{tx: tx, s: s}
		return first(last)
	})
	if err == nil && last != nil {
		for _, c := range last.noted {
			s.seen.Store(c, true)
		}
	}
	return err
}

// Get reads one record (storage.Get) of the site, as a View's Get on
// the site does: under the site's collection and key.
func (s *siteStore) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	if s.closed.Load() {
		return storage.Record{}, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return storage.Record{}, err
	}
	if err := names(coll, key); err != nil {
		return storage.Record{}, err
	}
	r, err := storage.Get(ctx, s.Store, collPrefix+coll, s.prefix+key)
	if err != nil {
		return storage.Record{}, err
	}
	r.Key = key
	return r, nil
}

// Probe passes the deployment store's health on.
func (s *siteStore) Probe(ctx context.Context) error {
	if p, ok := s.Store.(storage.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}

// Close closes the view only: the deployment's store outlives its test
// sites.
func (s *siteStore) Close() error {
	s.closed.Store(true)
	return nil
}

// names checks a collection name and key as the backends do: the prefix
// would otherwise make an empty one look valid.
func names(coll, key string) error {
	if err := storage.ValidateName("collection", coll); err != nil {
		return err
	}
	return storage.ValidateName("key", key)
}

type siteTx struct {
	tx storage.Tx
	s  *siteStore
	// noted are the collections this transaction recorded; the store
	// remembers them once it commits.
	noted []string
}

// Unwrap lets wrappers below find theirs (the outbox looks for its own).
func (t *siteTx) Unwrap() storage.Tx { return t.tx }

func (t *siteTx) Get(coll, key string) (storage.Record, error) {
	if err := names(coll, key); err != nil {
		return storage.Record{}, err
	}
	r, err := t.tx.Get(collPrefix+coll, t.s.prefix+key)
	r.Key = key
	return r, err
}

func (t *siteTx) Put(coll, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	if err := names(coll, key); err != nil {
		return storage.Record{}, err
	}
	if err := t.note(coll); err != nil {
		return storage.Record{}, err
	}
	r, err := t.tx.Put(collPrefix+coll, t.s.prefix+key, val, cond)
	r.Key = key
	return r, err
}

// note records coll among the collections test sites use, once per
// process: in the write's own transaction, so that no record is ever
// written where a deletion would not look.
func (t *siteTx) note(coll string) error {
	if _, ok := t.s.seen.Load(coll); ok || slices.Contains(t.noted, coll) {
		return nil
	}
	if _, err := collections.Put(t.tx, coll, struct{}{}, storage.AnyVersion); err != nil {
		return err
	}
	t.noted = append(t.noted, coll)
	return nil
}

func (t *siteTx) Delete(coll, key string, cond storage.Condition) error {
	if err := names(coll, key); err != nil {
		return err
	}
	return t.tx.Delete(collPrefix+coll, t.s.prefix+key, cond)
}

func (t *siteTx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	if err := storage.ValidateName("collection", coll); err != nil {
		return func(yield func(storage.Record, error) bool) { yield(storage.Record{}, err) }
	}
	r.Prefix = t.s.prefix + r.Prefix
	if r.After != "" {
		r.After = t.s.prefix + r.After
	}
	return func(yield func(storage.Record, error) bool) {
		for rec, err := range t.tx.Scan(collPrefix+coll, r) {
			rec.Key = strings.TrimPrefix(rec.Key, t.s.prefix)
			if !yield(rec, err) {
				return
			}
		}
	}
}

func (t *siteTx) NextSequence(coll string) (uint64, error) {
	if err := storage.ValidateName("collection", coll); err != nil {
		return 0, err
	}
	// A sequence of its own per site: parallel test sites never wait for
	// each other on a shared counter.
	return t.tx.NextSequence(collPrefix + t.s.prefix + coll)
}
