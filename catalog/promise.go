package catalog

import (
	"fmt"
	"maps"
	"slices"
)

// PromiseMode says where a product's delivery estimate comes from.
type PromiseMode string

// PromiseMode values.
const (
	// PromiseConfigured: the product's transit days, cut-off and lead
	// time, as always. The default.
	PromiseConfigured PromiseMode = "configured"
	// PromiseLearned: the hand-over day, then the lead times the site's
	// own delivered parcels took (Learning's quantiles), while enough of
	// them were delivered; the configured estimate until then.
	PromiseLearned PromiseMode = "learned"
	// PromiseBlend: the window spanning both the configured and the
	// learned estimate.
	PromiseBlend PromiseMode = "blend"
)

// Valid reports whether m is a known mode or empty (the default).
func (m PromiseMode) Valid() bool {
	switch m {
	case "", PromiseConfigured, PromiseLearned, PromiseBlend:
		return true
	}
	return false
}

// Defaults and bounds of Learning.
const (
	DefaultPromiseLow        = 0.1
	DefaultPromiseHigh       = 0.9
	DefaultPromiseMinSamples = 30
	DefaultHalfLifeDays      = 56
	DefaultZoneLength        = 2
	MaxPromiseMinSamples     = 100000
	MaxHalfLifeDays          = 3650
	MaxZoneLength            = 10
	MaxZoneLengths           = 250
	// MaxSimulatedLeadHours bounds a simulated lead time: a quarter of a
	// year of business hours.
	MaxSimulatedLeadHours = 2200
)

// Learning tunes learned promises (PromiseLearned, PromiseBlend). A zero
// field means its default.
type Learning struct {
	// Low and High are the quantiles of the learned lead time the
	// window spans. Defaults DefaultPromiseLow and DefaultPromiseHigh.
	Low  float64 `json:"low,omitempty"`
	High float64 `json:"high,omitempty"`
	// MinSamples is how many delivered parcels (decayed) a key needs
	// before its lead times are used; below it the estimate falls back
	// from product+zone to product+country, to product, to the
	// configured days. Default DefaultPromiseMinSamples.
	MinSamples int `json:"min_samples,omitempty"`
	// HalfLifeDays is how fast old parcels stop counting: a parcel
	// delivered this many days ago weighs half a new one. Default
	// DefaultHalfLifeDays (8 weeks).
	HalfLifeDays int `json:"half_life_days,omitempty"`
	// ZoneLength is, per country, how many leading characters of the
	// normalized postal code make a destination zone. Default
	// DefaultZoneLength.
	ZoneLength map[string]int `json:"zone_length,omitempty"`
}

// Quantiles returns the window's quantiles, defaults applied.
func (l *Learning) Quantiles() (low, high float64) {
	if l == nil {
		return DefaultPromiseLow, DefaultPromiseHigh
	}
	low, high = l.Low, l.High
	if low == 0 {
		low = DefaultPromiseLow
	}
	if high == 0 {
		high = DefaultPromiseHigh
	}
	return low, high
}

// MinCount returns MinSamples, default applied.
func (l *Learning) MinCount() int {
	if l == nil || l.MinSamples == 0 {
		return DefaultPromiseMinSamples
	}
	return l.MinSamples
}

// HalfLife returns HalfLifeDays, default applied.
func (l *Learning) HalfLife() int {
	if l == nil || l.HalfLifeDays == 0 {
		return DefaultHalfLifeDays
	}
	return l.HalfLifeDays
}

// Zone is the destination zone of a normalized postal code in country:
// the country, a colon, then ZonePrefix ("SE:11"); empty when the
// country or the prefix is.
func (l *Learning) Zone(country, postal string) string {
	prefix := l.ZonePrefix(country, postal)
	if country == "" || prefix == "" {
		return ""
	}
	return country + ":" + prefix
}

// ZonePrefix is the part of a normalized postal code in country that
// makes its zone: its first ZoneLength characters.
func (l *Learning) ZonePrefix(country, postal string) string {
	n := DefaultZoneLength
	if l != nil {
		if z, ok := l.ZoneLength[country]; ok {
			n = z
		}
	}
	return postal[:min(n, len(postal))]
}

// Simulation configures how the carrier simulator moves a product's
// parcels, to model a carrier that keeps or breaks its contract.
type Simulation struct {
	// LeadTimeHours, when set, replaces the transit days: a parcel is
	// delivered on the business day its drawn lead time (business
	// hours after hand-over) ends on.
	LeadTimeHours *LeadTimeProfile `json:"lead_time_hours,omitempty"`
}

// LeadTimeProfile is a lead-time distribution by three of its quantiles,
// in business hours after hand-over.
type LeadTimeProfile struct {
	P10 float64 `json:"p10"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
}

func validatePromise(v *validator, mode PromiseMode, l *Learning) {
	if !mode.Valid() {
		v.Add("promise", "oneof", "must be one of configured, learned, blend")
	}
	if l == nil {
		return
	}
	low, high := l.Quantiles()
	if !(low > 0 && low < 1) {
		v.Add("learning.low", "range", "must be between 0 and 1")
	}
	if !(high > 0 && high < 1) || high <= low {
		v.Add("learning.high", "range", "must be between learning.low and 1")
	}
	if l.MinSamples < 0 || l.MinSamples > MaxPromiseMinSamples {
		v.Addf("learning.min_samples", "range", "must be between 0 (the default, %d) and %d", DefaultPromiseMinSamples, MaxPromiseMinSamples)
	}
	if l.HalfLifeDays < 0 || l.HalfLifeDays > MaxHalfLifeDays {
		v.Addf("learning.half_life_days", "range", "must be between 0 (the default, %d) and %d", DefaultHalfLifeDays, MaxHalfLifeDays)
	}
	if len(l.ZoneLength) > MaxZoneLengths {
		v.Addf("learning.zone_length", "max", "must have at most %d entries", MaxZoneLengths)
	}
	for _, c := range slices.Sorted(maps.Keys(l.ZoneLength)) {
		if !IsCountry(c) {
			v.Addf("learning.zone_length", "iso3166_1_alpha2", "%q is not a known country code", c)
		} else if n := l.ZoneLength[c]; n < 0 || n > MaxZoneLength {
			v.Addf("learning.zone_length."+c, "range", "must be between 0 and %d", MaxZoneLength)
		}
	}
}

func validateSimulation(v *validator, q string, s *Simulation) {
	p := s.LeadTimeHours
	if p == nil {
		return
	}
	f := q + ".simulate.lead_time_hours"
	switch {
	case !(p.P10 >= 0):
		v.Add(f+".p10", "gte", "must not be negative")
	case !(p.P50 >= p.P10):
		v.Add(f+".p50", "gtefield", "must not be less than p10")
	case !(p.P90 >= p.P50) || p.P90 > MaxSimulatedLeadHours:
		v.Add(f+".p90", "range", fmt.Sprintf("must be between p50 and %d", MaxSimulatedLeadHours))
	}
}
