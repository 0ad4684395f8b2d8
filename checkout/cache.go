package checkout

import "sync"

// DefaultCacheBytes is the budget of the read cache when
// Options.CacheBytes is zero.
const DefaultCacheBytes = 16 << 20

// recordCache maps a session's key and record version to the record with
// its computed options, within a budget of bytes. A record version never
// changes its content, so an entry is never stale: a write makes a new
// version, which misses. Cached records are shared and read-only.
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
	size    int64
	rec     *record
}

func (c *recordCache) get(key string, version uint64) *record {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && e.version == version {
		return e.rec
	}
	return nil
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
