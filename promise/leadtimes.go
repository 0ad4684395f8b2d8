package promise

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
)

// cached is what the Service knows of one key's sketch, read at loaded.
// It is not changed once made, but for the quantiles it keeps (under its
// product's lock); a fold replaces it.
type cached struct {
	loaded time.Time
	sk     *ddsketch.DDSketch // nil: no parcel of the key was delivered
	count  float64            // the sketch's, at asOf
	asOf   time.Time
	// The last quantiles read: an engine asks the same ones of every
	// computation.
	read        bool
	low, high   float64
	lowV, highV float64
	// weighed is the decayed count at weighedAt with half-life
	// weighedHL, kept for the questions of the same minute.
	weighed   float64
	weighedAt time.Time
	weighedHL int
}

// weight is c's count decayed to now. Called with its product's lock
// held.
func (c *cached) weight(now time.Time, halfLife int) float64 {
	if d := now.Sub(c.weighedAt); c.weighedAt.IsZero() || c.weighedHL != halfLife || d < 0 || d > time.Minute {
		c.weighed, c.weighedAt, c.weighedHL = c.count*decay(now.Sub(c.asOf), halfLife), now, halfLife
	}
	return c.weighed
}

// productKey names a product's lead times: its site, ref and warehouse.
type productKey struct{ site, product, origin string }

// destination is a level below the product: a country, or a zone of it
// by its postal-code prefix.
type destination struct{ country, prefix string }

// productTimes are the lead times of one product leaving from one
// warehouse, as an engine holds them (options.ProductLeadTimes): the
// product's own level, and its destinations' as they are asked for.
type productTimes struct {
	svc  *Service
	key  productKey
	mu   sync.Mutex
	own  *cached
	dest map[destination]*cached
	// fast is own, for the check that needs no lock.
	fast atomic.Pointer[cached]
}

// fresh reports whether c, read at c.loaded, may still answer at now.
func (c *cached) fresh(ttl time.Duration, now time.Time) bool {
	return !now.Before(c.loaded) && now.Sub(c.loaded) <= ttl
}

// For implements options.LeadTimes: the engine of site holds the lead
// times of each of its products once, so a computation finds them without
// a lookup.
func (s *Service) For(site, product, origin string) options.ProductLeadTimes {
	k := productKey{site, product, origin}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.products[k]
	if p == nil {
		p = &productTimes{svc: s, key: k, dest: map[destination]*cached{}}
		s.products[k] = p
	}
	return p
}

// LeadTime implements options.ProductLeadTimes: the quantiles low and
// high, in business hours, of the narrowest level (the zone, the country,
// the product) whose parcels, decayed to now, weigh at least minSamples.
// The product's level holds every parcel of the narrower ones, so when it
// weighs too little they do too: a product nothing is known of costs one
// check. It answers from memory, reading a level from the store when it
// was not read yet or was read more than Options.CacheTTL ago.
func (p *productTimes) LeadTime(country, prefix string, low, high float64, minSamples, halfLifeDays int, now time.Time) (options.LeadTime, bool) {
	q := query{low: low, high: high, min: float64(max(minSamples, 1)), halfLife: halfLifeDays, now: now}
	// Most products of a catalog have too few parcels, or none: say so
	// without the lock. A count only decays until the next fold, which
	// replaces the entry.
	if c := p.fast.Load(); c != nil && c.fresh(p.svc.opts.CacheTTL, now) && (c.sk == nil || c.count < q.min) {
		return options.LeadTime{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	own, ok := p.enough(&p.own, destination{}, &q)
	if p.fast.Load() != p.own {
		p.fast.Store(p.own)
	}
	if !ok {
		return options.LeadTime{}, false
	}
	if country != "" && prefix != "" {
		if c, ok := p.level(destination{country, prefix}, &q); ok {
			return c.answer(&q)
		}
	}
	if country != "" {
		if c, ok := p.level(destination{country, ""}, &q); ok {
			return c.answer(&q)
		}
	}
	return own.answer(&q)
}

// maxDestinations bounds the destinations a product keeps in memory:
// addresses come from shoppers, and a zone is made of their postal codes.
// Past it, the product forgets them all and reads again what is asked.
const maxDestinations = 4096

// level is enough for destination d, its entry kept in p.dest.
func (p *productTimes) level(d destination, q *query) (*cached, bool) {
	was := p.dest[d]
	c := was
	c, ok := p.enough(&c, d, q)
	if c != was && c != nil { // read from the store
		if _, known := p.dest[d]; !known && len(p.dest) >= maxDestinations {
			clear(p.dest)
		}
		p.dest[d] = c
	}
	return c, ok
}

// query is one LeadTime question.
type query struct {
	low, high, min float64
	halfLife       int
	now            time.Time
}

// enough returns the entry at *slot (loading it into *slot when missing
// or stale) when its parcels weigh at least q.min at q.now. Called with
// p.mu held.
func (p *productTimes) enough(slot **cached, d destination, q *query) (*cached, bool) {
	c := *slot
	if c == nil || !c.fresh(p.svc.opts.CacheTTL, q.now) {
		var err error
		k := options.LeadTimeKey{Site: p.key.site, Product: p.key.product, Origin: p.key.origin, Country: d.country}
		if d.prefix != "" {
			k.Zone = d.country + ":" + d.prefix
		}
		if c, err = p.svc.load(k, q.now); err != nil {
			// A store that cannot be read costs the learned promise,
			// not the checkout: the configured one is shown.
			return nil, false
		}
		*slot = c
	}
	if c.sk == nil || c.count < q.min || c.weight(q.now, q.halfLife) < q.min {
		return c, false
	}
	return c, true
}

// answer reads q's quantiles off c, keeping them for the next question.
// Called with its product's lock held.
func (c *cached) answer(q *query) (options.LeadTime, bool) {
	if !c.read || c.low != q.low || c.high != q.high {
		vs, err := c.sk.GetValuesAtQuantiles([]float64{q.low, q.high})
		if err != nil {
			return options.LeadTime{}, false
		}
		c.low, c.high, c.lowV, c.highV, c.read = q.low, q.high, vs[0], vs[1], true
	}
	return options.LeadTime{Low: c.lowV, High: c.highV, Samples: int(c.weight(q.now, q.halfLife))}, true
}

// LeadTime is For(key.Site, key.Product, key.Origin).LeadTime for the
// key's country and zone ("SE:11").
func (s *Service) LeadTime(key options.LeadTimeKey, low, high float64, minSamples, halfLifeDays int, now time.Time) (options.LeadTime, bool) {
	return s.For(key.Site, key.Product, key.Origin).LeadTime(key.Country, zonePrefix(key.Zone), low, high, minSamples, halfLifeDays, now)
}

// zonePrefix is the postal-code prefix of a zone ("SE:11" → "11").
func zonePrefix(zone string) string {
	_, prefix, _ := strings.Cut(zone, ":")
	return prefix
}

// load reads the sketch of key.
func (s *Service) load(key options.LeadTimeKey, now time.Time) (*cached, error) {
	c := &cached{loaded: now}
	err := s.store.View(context.Background(), func(tx storage.Tx) error {
		it, err := sketches.Get(tx, sketchKey(key))
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		sk, err := decodeSketch(it.Value.Sketch)
		if err != nil {
			return err
		}
		c.sk, c.count, c.asOf = sk, sk.GetCount(), it.Value.AsOf
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// forget drops what is known of the keys a fold changed: the next
// question reads them again.
func (s *Service) forget(keys []options.LeadTimeKey) {
	for _, k := range keys {
		s.mu.Lock()
		p := s.products[productKey{k.Site, k.Product, k.Origin}]
		s.mu.Unlock()
		if p == nil {
			continue
		}
		p.mu.Lock()
		if k.Country == "" {
			p.own = nil
			p.fast.Store(nil)
		} else {
			delete(p.dest, destination{k.Country, zonePrefix(k.Zone)})
		}
		p.mu.Unlock()
	}
}
