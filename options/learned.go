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
// (Country, and Zone as Learning.Zone makes it; empty at the wider
// levels).
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
// promise keeps them). An engine asks For each product of each category
// once, when it is made, and keeps the answer.
type LeadTimes interface {
	// For returns the lead times of site's product ref leaving from the
	// warehouse with id origin.
	For(site, product, origin string) ProductLeadTimes
}

// ProductLeadTimes are one product's lead times from one warehouse.
// LeadTime answers the quantiles low and high of the lead time of the
// narrowest level — the destination zone (prefix is its postal-code
// prefix, catalog.Learning.ZonePrefix), then its country, then the
// product — whose parcels, weighing less by halfLife days of age at now,
// weigh at least minSamples; false when none does. It is called during
// computations: it must answer from memory.
type ProductLeadTimes interface {
	LeadTime(country, prefix string, low, high float64, minSamples, halfLifeDays int, now time.Time) (LeadTime, bool)
}

// learners are, per category id, the ProductLeadTimes of its products
// whose promise is learned or blend (nil for configured ones), by
// position.
func (e *Engine) learners(lt LeadTimes) map[string][]ProductLeadTimes {
	out := map[string][]ProductLeadTimes{}
	for _, cc := range e.cat.Categories {
		wh, _ := e.cat.Warehouse(cc.Warehouse)
		ls := make([]ProductLeadTimes, len(cc.Products))
		for i, ref := range cc.Products {
			if e.cat.PromiseOf(e.products[ref].product) != catalog.PromiseConfigured {
				ls[i] = lt.For(e.site, ref, wh.ID)
			}
		}
		out[cc.ID] = ls
	}
	return out
}

// learned is a product's learned lead time for one computation.
type learned struct {
	ref, origin string // the product and warehouse asked for
	lt          LeadTime
	source      string // "" when the configured estimate applies
}

// learnedFor returns the lead time of product ref leaving from origin to
// q's destination (LeadTimes falls back from its zone to its country to
// the product); source "" when none has enough samples or the product's
// promise is configured. Answers are kept in q, so a product's options (one per
// pickup location, one per category offering it) ask once.
func (e *Engine) learnedFor(q *query, ref, origin string, lts ProductLeadTimes) learned {
	if lts == nil {
		return learned{}
	}
	mode := e.cat.PromiseOf(e.products[ref].product)
	// A handful of products: a scan beats a map, and allocates nothing.
	for _, l := range q.learned[:q.nLearned] {
		if l.ref == ref && l.origin == origin {
			return l
		}
	}
	lc := e.cat.Learning
	if q.zone == "" {
		q.zone = lc.ZonePrefix(q.country, q.postal) // a substring: no copy
	}
	low, high := lc.Quantiles()
	out := learned{ref: ref, origin: origin}
	if lt, ok := lts.LeadTime(q.country, q.zone, low, high, lc.MinCount(), lc.HalfLife(), q.now); ok {
		out.lt, out.source = lt, string(mode)
	}
	if q.nLearned < len(q.learned) {
		q.learned[q.nLearned] = out
		q.nLearned++
	}
	return out
}

// promised is the estimate of goods ready at ready, seen at now, with
// plan pl and the product's learned lead time l: the configured estimate,
// the learned one (the hand-over, then the business days the low and high
// lead times end on), or (blend) the window spanning both.
func (c *calendar) promised(now, ready time.Time, pl productPlan, l learned) ETD {
	if l.source == "" {
		return c.etd(now, ready, pl)
	}
	d := c.handover(now, ready, pl)
	cut := float64(pl.cutH) + float64(pl.cutM)/60
	first := c.afterBusinessHours(d, cut, l.lt.Low)
	last := max(c.afterBusinessHours(d, cut, l.lt.High), first)
	if l.source == SourceBlend {
		first = min(first, c.addBusiness(d, pl.transit.Min))
		last = max(last, c.addBusiness(d, pl.transit.Max))
	}
	return c.window(now, d, pl, first, last)
}

// afterBusinessHours is the business day on which h business hours end,
// counted from hour (of the day, 15.5 for 15:30) of business day d. Days
// count 24 hours: the hour a daylight-saving change adds or skips moves
// no estimate by a day.
func (c *calendar) afterBusinessHours(d date, hour, h float64) date {
	h = min(max(h, 0), maxScan*24)
	if left := 24 - hour; c.business(d) {
		if h <= left {
			return d
		}
		h -= left
	}
	for i := 0; i < maxScan*2; i++ {
		d++
		if c.business(d) {
			if h <= 24 {
				return d
			}
			h -= 24
		}
	}
	return d
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
