package options

import (
	"slices"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
)

// ETD is an option's estimated delivery time.
type ETD struct {
	// Handover is when the carrier collects the goods: the cut-off of
	// the handover day, in the warehouse's time zone.
	Handover time.Time `json:"handover"`
	// Earliest is the start of the first possible delivery day and
	// Latest the end of the last one, in the warehouse's time zone.
	Earliest time.Time `json:"earliest"`
	Latest   time.Time `json:"latest"`
	// EarliestDays and LatestDays count business days from today
	// (warehouse time) to the delivery days.
	EarliestDays int `json:"earliest_days"`
	LatestDays   int `json:"latest_days"`
}

// maxScan bounds day-by-day searches; a catalog whose products never run on
// a business day within a year is refused instead of looping.
const maxScan = 370

// calendar knows the business days of one warehouse.
type calendar struct {
	loc      *time.Location
	holidays map[string]bool
}

func newCalendar(tz string, holidays []string) (*calendar, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, err
	}
	c := &calendar{loc: loc, holidays: map[string]bool{}}
	for _, h := range holidays {
		c.holidays[h] = true
	}
	return c, nil
}

// day returns midnight of t's date in the calendar's zone.
func (c *calendar) day(t time.Time) time.Time {
	t = t.In(c.loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, c.loc)
}

// next returns midnight of the following date (AddDate, not 24h: days
// around a daylight-saving change are 23 or 25 hours long).
func (c *calendar) next(d time.Time) time.Time { return d.AddDate(0, 0, 1) }

func (c *calendar) business(d time.Time) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	return !c.holidays[d.Format(time.DateOnly)]
}

// addBusiness returns the n-th business day after d (d itself when n is 0
// and d is a business day; otherwise the next business day first).
func (c *calendar) addBusiness(d time.Time, n int) time.Time {
	for i := 0; !c.business(d) && i < maxScan; i++ {
		d = c.next(d)
	}
	for ; n > 0; n-- {
		d = c.next(d)
		for i := 0; !c.business(d) && i < maxScan; i++ {
			d = c.next(d)
		}
	}
	return d
}

// between counts business days after from up to and including to.
func (c *calendar) between(from, to time.Time) int {
	n := 0
	for d := c.next(from); !d.After(to) && n < maxScan*2; d = c.next(d) {
		if c.business(d) {
			n++
		}
	}
	return n
}

// productPlan is a product's timing, parsed once.
type productPlan struct {
	lead       int
	transit    catalog.DayRange
	cutH, cutM int
	days       [7]bool
}

func newPlan(p catalog.Product) productPlan {
	pl := productPlan{lead: p.LeadTimeDays, transit: p.TransitDays, cutH: 23, cutM: 59}
	if len(p.CutOff) == 5 {
		pl.cutH = int(p.CutOff[0]-'0')*10 + int(p.CutOff[1]-'0')
		pl.cutM = int(p.CutOff[3]-'0')*10 + int(p.CutOff[4]-'0')
	}
	if len(p.Days) == 0 {
		for d := time.Monday; d <= time.Friday; d++ {
			pl.days[d] = true
		}
	}
	for _, d := range p.Days {
		if wd, ok := catalog.DayIndex(d); ok {
			pl.days[wd] = true
		}
	}
	return pl
}

// etd computes the estimate for goods ready at ready, seen at now:
// the warehouse handles them for lead business days (starting the next day
// when they are ready after the cut-off), hands them over on the next day
// the carrier collects, and the carrier delivers transit.min to transit.max
// business days later.
func (c *calendar) etd(now, ready time.Time, pl productPlan) ETD {
	if ready.Before(now) {
		ready = now
	}
	r := ready.In(c.loc)
	d := c.day(r)
	if r.Hour()*60+r.Minute() > pl.cutH*60+pl.cutM {
		d = c.next(d)
	}
	d = c.addBusiness(d, pl.lead)
	for i := 0; !(c.business(d) && pl.days[d.Weekday()]) && i < maxScan; i++ {
		d = c.next(d)
	}
	handover := time.Date(d.Year(), d.Month(), d.Day(), pl.cutH, pl.cutM, 0, 0, c.loc)
	first := c.addBusiness(d, pl.transit.Min)
	last := c.addBusiness(d, pl.transit.Max)
	today := c.day(now)
	return ETD{
		Handover:     handover,
		Earliest:     first,
		Latest:       c.next(last).Add(-time.Second),
		EarliestDays: c.between(today, first),
		LatestDays:   c.between(today, last),
	}
}

// collectable moves a pickup estimate to days the location is open: goods
// delivered to a closed pickup point (a Sunday, one of its closed dates)
// can only be collected on its next open day. A location without hours is
// always open.
func (c *calendar) collectable(e ETD, l *catalog.PickupLocation) ETD {
	if len(l.Hours) == 0 && len(l.Closed) == 0 {
		return e
	}
	open := func(d time.Time) bool {
		if len(l.Hours) > 0 && len(l.Hours[catalog.Weekdays[d.Weekday()]]) == 0 {
			return false
		}
		return !slices.Contains(l.Closed, d.Format(time.DateOnly))
	}
	first := e.Earliest
	for i := 0; !open(first) && i < maxScan; i++ {
		first = c.next(first)
	}
	last := c.day(e.Latest)
	if last.Before(first) {
		last = first
	}
	for i := 0; !open(last) && i < maxScan; i++ {
		last = c.next(last)
	}
	if first.Equal(e.Earliest) && last.Equal(c.day(e.Latest)) {
		return e
	}
	today := c.day(e.Handover)
	e.EarliestDays += c.between(today, first) - c.between(today, e.Earliest)
	e.LatestDays += c.between(today, last) - c.between(today, c.day(e.Latest))
	e.Earliest, e.Latest = first, c.next(last).Add(-time.Second)
	return e
}
