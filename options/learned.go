package options

import (
	"math"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
)

// Meta keys an option's promise is explained by: checkout's
// result.shipping.meta and the delivery session's carrier.meta carry them
// when a product's promise is learned or blended.
const (
	MetaPromiseSource  = "promise_source"
	MetaPromiseSamples = "promise_samples"
)

// Promise sources (Option.PromiseSource, MetaPromiseSource).
const (
	SourceConfigured = "configured"
	SourceLearned    = "learned"
	SourceBlend      = "blend"
)

// LeadTimeKey names the parcels a lead time was learned from: a site's
// carrier product, the warehouse it leaves from and its destination
// (Country, and Zone as Learning.Zone makes it; empty Zone or Country
// asks for the wider level).
type LeadTimeKey struct {
	Site, Product, Origin, Country, Zone string
}

// LeadTime is what the delivered parcels of a key took, in business hours
// from hand-over to delivery.
type LeadTime struct {
	// Low and High are the quantiles asked for.
	Low, High float64
	// Samples is how many parcels the estimate stands on (decayed, so a
	// parcel of a half-life ago counts half), rounded down.
	Samples int
}

// LeadTimes are the lead times learned from delivered parcels (package
// promise keeps them). LeadTime answers the quantiles low and high of the
// key's lead time at now, with parcels weighing less by halfLife days of
// age, or false when the key has fewer than minSamples. It is called
// during computations: it must answer from memory.
type LeadTimes interface {
	LeadTime(key LeadTimeKey, low, high float64, minSamples int, halfLifeDays int, now time.Time) (LeadTime, bool)
}

// learned is a product's learned lead time for one computation.
type learned struct {
	lt     LeadTime
	source string // "" when the configured estimate applies
}

// learnedFor returns the lead time of product ref leaving from origin to
// q's destination: product+zone, else product+country, else product;
// source "" when none has enough samples or the product's promise is
// configured. Lookups are cached in q, so a product's options (one per
// pickup location) ask once.
func (e *Engine) learnedFor(q *query, ref, origin string) learned {
	if e.leadTimes == nil {
		return learned{}
	}
	pe := e.products[ref]
	mode := e.cat.PromiseOf(pe.product)
	if mode == catalog.PromiseConfigured {
		return learned{}
	}
	ck := ref + "\x00" + origin
	if l, ok := q.learned[ck]; ok {
		return l
	}
	lc := e.cat.Learning
	low, high := lc.Quantiles()
	key := LeadTimeKey{Site: e.site, Product: ref, Origin: origin, Country: q.country, Zone: lc.Zone(q.country, q.postal)}
	var out learned
	for range 3 {
		if lt, ok := e.leadTimes.LeadTime(key, low, high, lc.MinCount(), lc.HalfLife(), q.now); ok {
			out = learned{lt: lt, source: string(mode)}
			break
		}
		if key.Zone != "" {
			key.Zone = ""
		} else {
			key.Country = ""
		}
	}
	if q.learned == nil {
		q.learned = make(map[string]learned, 4)
	}
	q.learned[ck] = out
	return out
}

// promised is the estimate of goods ready at ready, seen at now, with
// plan pl and the product's learned lead time l: the configured estimate,
// the learned one, or (blend) the window spanning both.
func (c *calendar) promised(now, ready time.Time, pl productPlan, l learned) ETD {
	conf := c.etd(now, ready, pl)
	if l.source == "" {
		return conf
	}
	at := conf.Handover
	first := c.addBusiness(c.day(c.addBusinessHours(at, l.lt.Low)), 0)
	last := max(c.addBusiness(c.day(c.addBusinessHours(at, l.lt.High)), 0), first)
	if l.source == SourceBlend {
		first = min(first, c.day(conf.Earliest))
		last = max(last, c.day(conf.Latest))
	}
	today := c.day(now)
	return ETD{
		Handover:     conf.Handover,
		Earliest:     c.midnight(first),
		Latest:       c.midnight(last + 1).Add(-time.Second),
		EarliestDays: c.between(today, first),
		LatestDays:   c.between(today, last),
	}
}

// addBusinessHours is the instant h business hours after t: hours on
// weekends and holidays (in the calendar's zone) do not count.
func (c *calendar) addBusinessHours(t time.Time, h float64) time.Time {
	if !(h > 0) {
		return t
	}
	h = min(h, maxScan*24)
	d := c.day(t)
	for i := 0; i < maxScan*2; i++ {
		end := c.midnight(d + 1)
		if c.business(d) {
			left := end.Sub(t).Hours()
			if h <= left {
				return t.Add(time.Duration(h * float64(time.Hour)))
			}
			h -= left
		}
		d++
		t = end
	}
	return t
}

// businessHours counts the hours from from to to that fall on business
// days in the calendar's zone.
func (c *calendar) businessHours(from, to time.Time) float64 {
	if !to.After(from) {
		return 0
	}
	total := 0.0
	t := from
	for d, i := c.day(from), 0; t.Before(to) && i < maxScan*2; d, i = d+1, i+1 {
		end := c.midnight(d + 1)
		if end.After(to) {
			end = to
		}
		if c.business(d) {
			total += end.Sub(t).Hours()
		}
		t = end
	}
	return total
}

// BusinessHours is the lead time from a parcel's hand-over to its
// delivery as learned promises count it: the hours on business days
// (weekends and the catalog's holidays skipped) in the time zone of the
// warehouse with id origin (the catalog's first for an unknown one).
func (e *Engine) BusinessHours(origin string, from, to time.Time) float64 {
	wh, _ := e.cat.Warehouse(origin)
	cal := e.cals[wh.ID]
	if cal == nil {
		return math.Max(to.Sub(from).Hours(), 0)
	}
	return cal.businessHours(from, to)
}

// Origin is the id of the warehouse the product with reference ref leaves
// from: the one of the first category offering it, else the catalog's
// first.
func (e *Engine) Origin(ref string) string {
	wh, _ := e.cat.Warehouse(e.warehouseOf(ref))
	return wh.ID
}

// Zone is the destination zone of an address in country with postal
// code (as the catalog's Learning makes zones).
func (e *Engine) Zone(country, postal string) string {
	return e.cat.Learning.Zone(country, catalog.NormalizePostalCode(postal))
}
