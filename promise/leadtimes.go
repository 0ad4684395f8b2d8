package promise

import (
	"context"
	"errors"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
)

// cached is what the Service knows of one key's sketch.
type cached struct {
	loaded time.Time
	sk     *ddsketch.DDSketch // nil: no parcel of the key was delivered
	asOf   time.Time
	// The last quantiles read, kept: an engine asks the same ones of
	// every computation.
	low, high   float64
	lowV, highV float64
}

// LeadTime implements options.LeadTimes: the quantiles low and high of the
// key's lead time, in business hours, when its parcels, decayed to now,
// weigh at least minSamples. It answers from memory, reading the key from
// the store when it is not cached or was cached more than
// Options.CacheTTL ago.
func (s *Service) LeadTime(key options.LeadTimeKey, low, high float64, minSamples, halfLifeDays int, now time.Time) (options.LeadTime, bool) {
	k := sketchKey(key)
	s.mu.Lock()
	c := s.cache[k]
	s.mu.Unlock()
	if c == nil || now.Sub(c.loaded) > s.opts.CacheTTL || now.Before(c.loaded) {
		var err error
		if c, err = s.load(k, now); err != nil {
			// A store that cannot be read costs the learned promise,
			// not the checkout: the configured one is shown.
			return options.LeadTime{}, false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.sk == nil {
		return options.LeadTime{}, false
	}
	n := c.sk.GetCount() * decay(now.Sub(c.asOf), halfLifeDays)
	if n < float64(max(minSamples, 1)) {
		return options.LeadTime{}, false
	}
	if c.low != low || c.high != high {
		vs, err := c.sk.GetValuesAtQuantiles([]float64{low, high})
		if err != nil {
			return options.LeadTime{}, false
		}
		c.low, c.high, c.lowV, c.highV = low, high, vs[0], vs[1]
	}
	return options.LeadTime{Low: c.lowV, High: c.highV, Samples: int(n)}, true
}

// load reads the sketch at key k into the cache.
func (s *Service) load(k string, now time.Time) (*cached, error) {
	c := &cached{loaded: now}
	err := s.store.View(context.Background(), func(tx storage.Tx) error {
		it, err := sketches.Get(tx, k)
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
		c.sk, c.asOf = sk, it.Value.AsOf
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.cache[k] = c
	s.mu.Unlock()
	return c, nil
}

// forget drops the cached keys a fold changed: the next read loads them.
func (s *Service) forget(keys []options.LeadTimeKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		delete(s.cache, sketchKey(k))
	}
}
