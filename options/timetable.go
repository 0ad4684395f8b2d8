package options

import (
	"slices"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
)

// MaxLateDays bounds the business days a Timetable lists after its
// estimate.
const MaxLateDays = 60

// Timetable is how a carrier product moves goods ready at a time, by the
// calendar an option's estimate is computed with: when the carrier
// collects them, the estimate a checkout would promise, and the business
// days on which the carrier delivers. A carrier simulator plans parcels
// with it, so a parcel that is on time arrives within the promise.
type Timetable struct {
	// ETD is the estimate an option of the product shows for the same
	// goods: its Handover, Earliest and Latest.
	ETD ETD
	// Days are the starts (midnight, warehouse time) of the business days
	// from the first day of the product's transit on: the first OnTime of
	// them are the days of the estimate's transit range, the rest follow
	// for parcels that run late.
	Days []time.Time
	// OnTime is how many of Days the transit range spans (its most days
	// less its fewest, plus one).
	OnTime int
	// TransitMin is the product's fewest transit days.
	TransitMin int
	// LeadTime is the catalog's simulated lead time of the product
	// (Product.Simulate), nil when it has none.
	LeadTime *catalog.LeadTimeProfile
}

// warehouseOf is the warehouse id of the first category offering the
// product with reference ref ("" when none does: the catalog's first).
func (e *Engine) warehouseOf(ref string) string {
	for _, cc := range e.cat.Categories {
		if slices.Contains(cc.Products, ref) {
			return cc.Warehouse
		}
	}
	return ""
}

// Timetable returns the timetable of the product with reference ref for
// goods ready at ready, with late business days listed after the
// estimate's last (at most MaxLateDays). locationID, when it names a
// pickup location of the product's carrier (by id or external id), moves
// the estimate to the days the location is open, as its option's estimate
// is moved. The warehouse is the one of the first category offering the
// product, else the catalog's first. It reports false when the catalog has
// no product ref.
func (e *Engine) Timetable(ref, locationID string, ready time.Time, late int) (Timetable, bool) {
	pe, ok := e.products[ref]
	if !ok {
		return Timetable{}, false
	}
	wh, _ := e.cat.Warehouse(e.warehouseOf(ref))
	cal := e.cals[wh.ID]
	if cal == nil {
		return Timetable{}, false // a valid catalog has a warehouse
	}
	pl := pe.plan
	etd := cal.etd(ready, ready, pl)
	if locationID != "" {
		for i := range e.cat.PickupLocations {
			l := &e.cat.PickupLocations[i]
			if l.Carrier == pe.carrier.ID && (l.ID == locationID || l.ExternalID == locationID) {
				a := newAvailability(l)
				etd = cal.collectable(etd, &a)
				break
			}
		}
	}
	late = min(max(late, 0), MaxLateDays)
	onTime := max(pl.transit.Max-pl.transit.Min+1, 1)
	t := Timetable{ETD: etd, OnTime: onTime, TransitMin: pl.transit.Min, Days: make([]time.Time, 0, onTime+late)}
	if s := pe.product.Simulate; s != nil && s.LeadTimeHours != nil {
		p := *s.LeadTimeHours
		t.LeadTime = &p
	}
	d := cal.addBusiness(cal.handover(ready, ready, pl), pl.transit.Min)
	for range onTime + late {
		t.Days = append(t.Days, cal.midnight(d))
		d = cal.addBusiness(d+1, 0)
	}
	return t, true
}
