package wiring

import (
	"time"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/shipment/carrier"
)

// Timetables adapts the sites' options engines to carrier.Timetables: a
// simulated parcel travels on the calendar its checkout promised by (the
// product's lead time, cut-off, collection days and transit days, the
// catalog's holidays, a pickup point's opening days).
type Timetables checkout.Engines

// Timetable implements carrier.Timetables.
func (t Timetables) Timetable(site, ref, locationID string, ready time.Time, late int) (carrier.Timetable, bool) {
	e := t[site]
	if e == nil {
		return carrier.Timetable{}, false
	}
	tt, ok := e.Timetable(ref, locationID, ready, late)
	if !ok {
		return carrier.Timetable{}, false
	}
	return carrier.Timetable{Handover: tt.ETD.Handover, Earliest: tt.ETD.Earliest, Latest: tt.ETD.Latest,
		Days: tt.Days, OnTime: tt.OnTime, TransitMin: tt.TransitMin}, true
}

var _ carrier.Timetables = Timetables{}
