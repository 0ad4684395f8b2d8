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

// date is a calendar date, counted in days from 1970-01-01. The calendar
// walks days as integers rather than stepping a time.Time day by day
// (AddDate, and Format for the holiday lookup), which cost more than
// anything else in an estimate (docs/decisions/0002-storage.md, "The
// delivery calendar counts days as integers").
type date int32

// dateOf returns the date of t as shown in t's location.
func dateOf(t time.Time) date {
	y, m, d := t.Date()
	return date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// parseDate parses "2006-01-02".
func parseDate(s string) (date, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return 0, false
	}
	return dateOf(t), true
}

// weekday: 1970-01-01 was a Thursday.
func (d date) weekday() time.Weekday {
	return time.Weekday(((int(d)+int(time.Thursday))%7 + 7) % 7)
}

// at returns the time h:m on date d in loc. time.Date resolves the hours
// a daylight-saving change skips or repeats, as AddDate did.
func (d date) at(loc *time.Location, h, m int) time.Time {
	y, mo, dd := time.Unix(int64(d)*86400, 0).UTC().Date()
	return time.Date(y, mo, dd, h, m, 0, 0, loc)
}

// calendar knows the business days of one warehouse.
type calendar struct {
	loc      *time.Location
	holidays map[date]bool
}

func newCalendar(tz string, holidays []string) (*calendar, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, err
	}
	c := &calendar{loc: loc, holidays: map[date]bool{}}
	for _, h := range holidays {
		// The catalog's validation has checked the format; a date
		// that does not parse cannot match a day either.
		if d, ok := parseDate(h); ok {
			c.holidays[d] = true
		}
	}
	return c, nil
}

// day returns t's date in the calendar's zone.
func (c *calendar) day(t time.Time) date { return dateOf(t.In(c.loc)) }

// midnight returns the start of d in the calendar's zone.
func (c *calendar) midnight(d date) time.Time { return d.at(c.loc, 0, 0) }

func (c *calendar) business(d date) bool {
	if wd := d.weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	return !c.holidays[d]
}

// addBusiness returns the n-th business day after d (d itself when n is 0
// and d is a business day; otherwise the next business day first).
func (c *calendar) addBusiness(d date, n int) date {
	for i := 0; !c.business(d) && i < maxScan; i++ {
		d++
	}
	for ; n > 0; n-- {
		d++
		for i := 0; !c.business(d) && i < maxScan; i++ {
			d++
		}
	}
	return d
}

// between counts business days after from up to and including to.
func (c *calendar) between(from, to date) int {
	n := 0
	for d := from + 1; d <= to && n < maxScan*2; d++ {
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
	d := c.handover(now, ready, pl)
	return c.window(now, d, pl, c.addBusiness(d, pl.transit.Min), c.addBusiness(d, pl.transit.Max))
}

// window is the estimate of goods handed over on day d and delivered
// from day first to day last, seen at now.
func (c *calendar) window(now time.Time, d date, pl productPlan, first, last date) ETD {
	today := c.day(now)
	return ETD{
		Handover:     d.at(c.loc, pl.cutH, pl.cutM),
		Earliest:     c.midnight(first),
		Latest:       c.midnight(last + 1).Add(-time.Second),
		EarliestDays: c.between(today, first),
		LatestDays:   c.between(today, last),
	}
}

// handover is the day the carrier collects goods ready at ready (now when
// earlier): after lead business days of handling, starting the next day
// when they are ready after the cut-off, on the next day the carrier
// collects.
func (c *calendar) handover(now, ready time.Time, pl productPlan) date {
	if ready.Before(now) {
		ready = now
	}
	r := ready.In(c.loc)
	d := dateOf(r)
	if r.Hour()*60+r.Minute() > pl.cutH*60+pl.cutM {
		d++
	}
	d = c.addBusiness(d, pl.lead)
	for i := 0; !(c.business(d) && pl.days[d.weekday()]) && i < maxScan; i++ {
		d++
	}
	return d
}

// availability is when a pickup location is open, parsed once from the
// catalog: its open weekdays (all when it has no hours) and closed dates.
type availability struct {
	always bool // no hours and no closed dates
	open   [7]bool
	closed []date
}

func newAvailability(l *catalog.PickupLocation) availability {
	a := availability{always: len(l.Hours) == 0 && len(l.Closed) == 0}
	for wd := range a.open {
		a.open[wd] = len(l.Hours) == 0 || len(l.Hours[catalog.Weekdays[wd]]) > 0
	}
	for _, s := range l.Closed {
		// The catalog's validation has checked the format.
		if d, ok := parseDate(s); ok {
			a.closed = append(a.closed, d)
		}
	}
	return a
}

func (a *availability) openOn(d date) bool {
	return a.open[d.weekday()] && !slices.Contains(a.closed, d)
}

// collectable moves a pickup estimate to days the location is open: goods
// delivered to a closed pickup point (a Sunday, one of its closed dates)
// can only be collected on its next open day. A location without hours is
// always open.
func (c *calendar) collectable(e ETD, a *availability) ETD {
	col := c.collector(e)
	return col.at(a)
}

// collector is collectable for one estimate and many locations: the days
// of the estimate, which every location shares, are found once.
type collector struct {
	c                       *calendar
	e                       ETD
	earliest, latest, today date
}

func (c *calendar) collector(e ETD) collector {
	return collector{c: c, e: e, earliest: c.day(e.Earliest), latest: c.day(e.Latest), today: c.day(e.Handover)}
}

// at is the estimate at a location open as a says.
func (k *collector) at(a *availability) ETD {
	e := k.e
	if a.always {
		return e
	}
	c, earliest, latest, today := k.c, k.earliest, k.latest, k.today
	first := earliest
	for i := 0; !a.openOn(first) && i < maxScan; i++ {
		first++
	}
	last := max(latest, first)
	for i := 0; !a.openOn(last) && i < maxScan; i++ {
		last++
	}
	if first == earliest && last == latest {
		return e
	}
	e.EarliestDays += c.between(today, first) - c.between(today, earliest)
	e.LatestDays += c.between(today, last) - c.between(today, latest)
	e.Earliest, e.Latest = c.midnight(first), c.midnight(last+1).Add(-time.Second)
	return e
}
