package options

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/catalog"
)

// refCalendar is the calendar as it was before it counted days as
// integers: it walks time.Time values with AddDate and looks holidays up
// by their formatted date. TestCalendarMatchesReference holds the faster
// calendar to its answers.
type refCalendar struct {
	loc      *time.Location
	holidays map[string]bool
}

func (c *refCalendar) day(t time.Time) time.Time {
	t = t.In(c.loc)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, c.loc)
}

func (c *refCalendar) next(d time.Time) time.Time { return d.AddDate(0, 0, 1) }

func (c *refCalendar) business(d time.Time) bool {
	if wd := d.Weekday(); wd == time.Saturday || wd == time.Sunday {
		return false
	}
	return !c.holidays[d.Format(time.DateOnly)]
}

func (c *refCalendar) addBusiness(d time.Time, n int) time.Time {
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

func (c *refCalendar) between(from, to time.Time) int {
	n := 0
	for d := c.next(from); !d.After(to) && n < maxScan*2; d = c.next(d) {
		if c.business(d) {
			n++
		}
	}
	return n
}

func (c *refCalendar) etd(now, ready time.Time, pl productPlan) ETD {
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

func (c *refCalendar) collectable(e ETD, l *catalog.PickupLocation) ETD {
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

// TestCalendarMatchesReference compares estimates and pickup adjustments
// with the reference over seeded random instants, plans, holidays and
// closing dates, in zones with daylight-saving changes at night and
// without any. Zones whose clocks jump at midnight are left out: there
// the reference carried the shifted hour into later days (AddDate keeps
// the wall clock), which the integer calendar deliberately does not.
func TestCalendarMatchesReference(t *testing.T) {
	zones := []string{"Europe/Stockholm", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC", "Pacific/Auckland"}
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	span := int64(500 * 24 * time.Hour)
	randomDate := func() string { return start.Add(time.Duration(rng.Int64N(span))).Format(time.DateOnly) }
	for _, zone := range zones {
		var holidays []string
		for range rng.IntN(40) {
			holidays = append(holidays, randomDate())
		}
		cal, err := newCalendar(zone, holidays)
		if err != nil {
			t.Fatal(err)
		}
		ref := &refCalendar{loc: cal.loc, holidays: map[string]bool{}}
		for _, h := range holidays {
			ref.holidays[h] = true
		}
		for i := range 3000 {
			now := start.Add(time.Duration(rng.Int64N(span)))
			ready := time.Time{}
			if rng.IntN(2) == 0 {
				ready = now.Add(time.Duration(rng.Int64N(int64(20*24*time.Hour))) - 5*24*time.Hour)
			}
			p := catalog.Product{LeadTimeDays: rng.IntN(4), TransitDays: catalog.DayRange{Min: rng.IntN(3)}}
			p.TransitDays.Max = p.TransitDays.Min + rng.IntN(4)
			p.CutOff = fmt.Sprintf("%02d:%02d", rng.IntN(24), rng.IntN(60))
			for _, d := range catalog.Weekdays {
				if rng.IntN(3) == 0 {
					p.Days = append(p.Days, d)
				}
			}
			plan := newPlan(p)
			want := ref.etd(now, ready, plan)
			got := cal.etd(now, ready, plan)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s #%d: etd(%s, %s, %+v) (-reference +calendar):\n%s", zone, i, now, ready, p, diff)
			}
			var l catalog.PickupLocation
			if rng.IntN(2) == 0 {
				l.Hours = map[string][]string{}
				for _, d := range catalog.Weekdays {
					if rng.IntN(4) != 0 {
						l.Hours[d] = []string{"08:00-18:00"}
					}
				}
			}
			for range rng.IntN(4) {
				l.Closed = append(l.Closed, want.Earliest.AddDate(0, 0, rng.IntN(6)).Format(time.DateOnly))
			}
			a := newAvailability(&l)
			if diff := cmp.Diff(ref.collectable(want, &l), cal.collectable(got, &a)); diff != "" {
				t.Fatalf("%s #%d: collectable(%+v, %+v) (-reference +calendar):\n%s", zone, i, want, l, diff)
			}
		}
	}
}
