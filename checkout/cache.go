package checkout

import (
	"sync"

	"github.com/deliverykit/deliverykit/options"
)

// DefaultCacheBytes is the budget of the read cache when
// Options.CacheBytes is zero.
const DefaultCacheBytes = 16 << 20

// recordCache maps a session's key and record version to the record with
// its computed options, within a budget of bytes. A record version never
// changes its content, so an entry is never stale: a write makes a new
// version, which misses. Cached records are shared and read-only. An
// entry also keeps the answers rendered from its record (GetRendered),
// which are as never stale as the record and count against the same
// budget.
//
// The budget is of estimated heap, not entries: a session's size depends
// on its cart and its options, both the client's doing. One session may
// take at most an eighth of the budget; a larger one is served but not
// kept. When full, arbitrary entries make room (map iteration order):
// checkout traffic reads a session a few times within minutes of writing
// it, so the recent entries that matter are seldom the ones evicted.
type recordCache struct {
	mu     sync.Mutex
	budget int64 // negative: off
	used   int64
	m      map[string]cachedRecord
}

type cachedRecord struct {
	version uint64
	size    int64 // the record's estimate plus its renderings
	rec     *record
	// rendered are answers rendered from rec (GetRendered), at most
	// maxRenderings, one per Renderer, read and replaced under the
	// cache's lock; only their bytes leave it, and those never change.
	rendered []rendering
}

// rendering is an answer a Renderer made from a cached record with a
// site's engine (the view names categories from the engine's catalog).
type rendering struct {
	by     *Renderer
	engine *options.Engine
	b      []byte
}

// maxRenderings bounds the renderings kept per session: an adapter has
// one Renderer per answer shape, and a program creating Renderers per
// request must not grow an entry without end (the oldest makes room).
const maxRenderings = 4

// renderingBytes is what a rendering holds besides its bytes.
const renderingBytes = 64

func (c *recordCache) get(key string, version uint64) *record {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && e.version == version {
		return e.rec
	}
	return nil
}

// rendered returns the answer by made from the record of version with
// engine, when it is kept. The bytes are shared: read-only.
func (c *recordCache) rendered(key string, version uint64, by *Renderer, engine *options.Engine) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.version != version {
		return nil, false
	}
	for _, r := range e.rendered {
		if r.by == by && r.engine == engine {
			return r.b, true
		}
	}
	return nil, false
}

// putRendered keeps b, which by rendered from rec with engine, when rec is
// still the record cached for key at version (otherwise the entry was
// evicted or replaced by a newer version since, and b is not kept: it
// could outlive its record) and the entry stays within an eighth of the
// budget. The renderings of the entry grow within the budget like
// records do: other entries make room. b must not be modified afterwards.
func (c *recordCache) putRendered(key string, version uint64, rec *record, by *Renderer, engine *options.Engine, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || e.version != version || e.rec != rec {
		return
	}
	size := e.size + renderingBytes + int64(len(b))
	kept := make([]rendering, 0, min(len(e.rendered)+1, maxRenderings))
	for i, r := range e.rendered {
		if r.by == by || len(e.rendered)-i >= maxRenderings {
			size -= renderingBytes + int64(len(r.b))
			continue
		}
		kept = append(kept, r)
	}
	if size > c.budget/8 {
		return
	}
	for k, o := range c.m {
		if c.used-e.size+size <= c.budget {
			break
		}
		if k != key {
			c.used -= o.size
			delete(c.m, k)
		}
	}
	c.used += size - e.size
	e.size = size
	e.rendered = append(kept, rendering{by: by, engine: engine, b: b})
	c.m[key] = e
}

// put remembers a copy of r as version, when its options are computed
// from stored inputs (records of earlier versions, with their options
// stored, are not cached) and it fits, and returns the copy (r when it is
// not cached). encoded is the size of the stored record. Neither r nor the
// copy may be modified afterwards: they share slices, maps and pointed-to
// values.
func (c *recordCache) put(key string, version uint64, r *record, encoded int) *record {
	if r.OptionsInput == nil || r.Options == nil || version == 0 || c.budget < 0 {
		return r
	}
	size := recordSize(r, encoded)
	if size > c.budget/8 {
		return r
	}
	cp := *r
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]cachedRecord)
	}
	if old, ok := c.m[key]; ok {
		c.used -= old.size
		delete(c.m, key)
	}
	for k, e := range c.m {
		if c.used+size <= c.budget {
			break
		}
		c.used -= e.size
		delete(c.m, k)
	}
	c.m[key] = cachedRecord{version: version, size: size, rec: &cp}
	c.used += size
	return &cp
}

// Sizes of what a cached record holds besides its decoded fields: the
// computed options (pickup locations and their addresses are the catalog's,
// shared, and not counted).
const (
	entryBytes    = 512 // the map entry, the record struct and its input
	categoryBytes = 512 // a category with its names and addons
	optionBytes   = 256 // an option with its estimate and distance
)

// recordSize estimates the heap a cached record holds: decoded fields take
// about twice their encoded size, plus the options.
func recordSize(r *record, encoded int) int64 {
	n := int64(entryBytes + 2*encoded)
	if r.Options != nil {
		for _, cat := range r.Options.Categories {
			n += categoryBytes + int64(len(cat.Options))*optionBytes
		}
	}
	return n
}

// bytes is the estimated heap the cached sessions hold.
func (c *recordCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// CacheBytes is the estimated heap the cache of recently read sessions
// holds now (at most Options.CacheBytes): for metrics.
func (s *Service) CacheBytes() int64 { return s.cache.bytes() }
