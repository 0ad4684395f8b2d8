// Package versioncache keeps values made from stored records, such as a
// decoded record or a rendered answer, by key and the record's version,
// within a budget of bytes. A stored version never changes its content,
// so an entry is never stale: a write makes a new version, which misses
// and replaces it.
//
// Reads take no lock: every read of a hot record looks up the same key,
// and under load a reader holding a lock while the machine preempts its
// thread would queue all the others behind it. Writes are serialised.
// When full, arbitrary entries make room (map iteration order): reads
// come back to records written minutes ago, so the entries that matter
// are seldom the ones evicted.
package versioncache

import (
	"iter"
	"sync"
)

// Cache keeps values V by key K and version. The zero Cache keeps
// nothing; set Budget (and MaxEntries) before its first use. Values are
// shared by every reader: they must not be modified once put.
type Cache[K comparable, V any] struct {
	// Budget is the most estimated bytes the entries hold together; one
	// entry may take an eighth of it, and a larger one is not kept.
	Budget int64
	// MaxEntries, when positive, bounds the number of entries as well.
	MaxEntries int

	m    sync.Map // K → *entry[V]
	mu   sync.Mutex
	used int64
	n    int
}

type entry[V any] struct {
	version uint64
	size    int64
	v       V
}

// Get returns the value kept for k and the version it was made from.
func (c *Cache[K, V]) Get(k K) (v V, version uint64, ok bool) {
	e, ok := c.m.Load(k)
	if !ok {
		return v, 0, false
	}
	en := e.(*entry[V])
	return en.v, en.version, true
}

// Put keeps v, made from version and estimated at size bytes, for k in
// place of what k had, unless k has a later version already (a read from
// before a change that finished after it).
func (c *Cache[K, V]) Put(k K, version uint64, size int64, v V) {
	if c.Budget <= 0 || size > c.Budget/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m.Load(k); ok {
		o := old.(*entry[V])
		if o.version > version {
			return
		}
		c.m.Delete(k)
		c.used -= o.size
		c.n--
	}
	full := func() bool { return c.used+size > c.Budget || c.MaxEntries > 0 && c.n >= c.MaxEntries }
	if full() {
		c.m.Range(func(key, e any) bool {
			c.m.Delete(key)
			c.used -= e.(*entry[V]).size
			c.n--
			return full()
		})
	}
	c.m.Store(k, &entry[V]{version: version, size: size, v: v})
	c.used += size
	c.n++
}

// Bytes returns the estimated bytes the entries hold, and their number.
func (c *Cache[K, V]) Bytes() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, c.n
}

// All yields the kept values by key, for inspection: a snapshot of no
// particular moment while Put runs.
func (c *Cache[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		c.m.Range(func(k, e any) bool { return yield(k.(K), e.(*entry[V]).v) })
	}
}
