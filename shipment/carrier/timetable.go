package carrier

import (
	"time"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/options"
)

// Timetable is how a carrier product moves goods ready at a time: when
// the carrier collects them, the delivery estimate it gives, and the
// business days it delivers on. The simulator plans each parcel's route on
// it, so a parcel on time arrives within the estimate a checkout promised
// for the same product.
type Timetable struct {
	// Handover is when the carrier collects the goods (the day's
	// cut-off).
	Handover time.Time
	// Earliest and Latest are the estimated delivery window.
	Earliest, Latest time.Time
	// Days are the starts of the business days from the first transit
	// day on: the first OnTime of them lie in the estimate, the rest
	// follow for parcels that run late.
	Days []time.Time
	// OnTime is how many of Days the estimate spans, at least 1.
	OnTime int
	// TransitMin is the fewest business days of transit: what a parcel
	// sent back takes to return.
	TransitMin int
	// LeadTime, when set, is the product's simulated lead time: a parcel
	// on time is delivered on the business day its drawn lead time ends
	// on, whatever the estimate says (a carrier slower or faster than
	// its contract).
	LeadTime *catalog.LeadTimeProfile
}

// day is the start of the i-th delivery day; past the listed days it
// counts on in calendar days.
func (t *Timetable) day(i int) time.Time {
	if i < len(t.Days) {
		return t.Days[i]
	}
	last := t.Days[len(t.Days)-1]
	return last.Add(time.Duration(i-len(t.Days)+1) * 24 * time.Hour)
}

// dayAfter is the start of the n-th delivery day (n ≥ 1) after the day
// of at.
func (t *Timetable) dayAfter(at time.Time, n int) time.Time {
	i := 0
	for i < len(t.Days) && !t.Days[i].After(at) {
		i++
	}
	if i == len(t.Days) {
		return at.Truncate(24 * time.Hour).Add(time.Duration(n) * 24 * time.Hour)
	}
	return t.day(i + n - 1)
}

// Timetables give the simulator each product's timetable. wiring adapts
// the sites' catalogs through the options engine, so routes follow the
// calendar (cut-offs, collection days, holidays) that checkouts promise
// by.
type Timetables interface {
	// Timetable returns the timetable of the site's product ref for
	// goods ready at ready, listing late business days after the
	// estimate. locationID is the pickup point, when there is one. False
	// when the site has no such product.
	Timetable(site, ref, locationID string, ready time.Time, late int) (Timetable, bool)
}

// maxLate bounds the late days a timetable lists.
const maxLate = 60

// usable reports whether t can carry a route: days to deliver on, and an
// estimate within them.
func (t *Timetable) usable() bool {
	return len(t.Days) > 0 && t.OnTime >= 1 && t.OnTime <= len(t.Days) && t.TransitMin >= 0
}

// WeekdayTimetable is the timetable of products no Timetables knows:
// collected at 16:00 UTC on a weekday (the next weekday when the goods are
// ready later), delivered one or two weekdays after.
type WeekdayTimetable struct{}

// Timetable implements Timetables.
func (WeekdayTimetable) Timetable(_, _, _ string, ready time.Time, late int) (Timetable, bool) {
	weekday := func(d time.Time) bool { return d.Weekday() != time.Saturday && d.Weekday() != time.Sunday }
	day := ready.UTC().Truncate(24 * time.Hour)
	if !ready.Before(day.Add(16*time.Hour)) || !weekday(day) {
		for day = day.Add(24 * time.Hour); !weekday(day); day = day.Add(24 * time.Hour) {
		}
	}
	t := Timetable{Handover: day.Add(16 * time.Hour), OnTime: 2, TransitMin: 1}
	for d := day.Add(24 * time.Hour); len(t.Days) < t.OnTime+min(max(late, 0), maxLate); d = d.Add(24 * time.Hour) {
		if weekday(d) {
			t.Days = append(t.Days, d)
		}
	}
	t.Earliest, t.Latest = t.Days[0], t.Days[1].Add(24*time.Hour-time.Second)
	return t, true
}

// EngineTimetables are the sites' delivery options engines as Timetables:
// a simulated parcel travels on the calendar its checkout promised by
// (the product's lead time, cut-off, collection days and transit days,
// the catalog's holidays, a pickup point's opening days).
type EngineTimetables map[string]*options.Engine

// Timetable implements Timetables.
func (t EngineTimetables) Timetable(site, ref, locationID string, ready time.Time, late int) (Timetable, bool) {
	e := t[site]
	if e == nil {
		return Timetable{}, false
	}
	tt, ok := e.Timetable(ref, locationID, ready, late)
	if !ok {
		return Timetable{}, false
	}
	return Timetable{Handover: tt.ETD.Handover, Earliest: tt.ETD.Earliest, Latest: tt.ETD.Latest,
		Days: tt.Days, OnTime: tt.OnTime, TransitMin: tt.TransitMin, LeadTime: tt.LeadTime}, true
}

var _ Timetables = EngineTimetables{}
