package event

import "time"

// TypeCarrierEventReported: a carrier reported a tracking event of a
// parcel it carries (CarrierEventReported).
const TypeCarrierEventReported Type = "carrier.event_reported"

// CarrierEventReported is one tracking event as a carrier integration
// reports it: a step or an alert of a parcel, at a time, perhaps with the
// carrier's delivery estimate. It is the carrier's word, before tracking
// applied it: tracking records it as POST /parcel.event records a posted
// event, and a parcel.changed event follows when it changed the parcel.
// Exactly one of Step and Alert is set.
type CarrierEventReported struct {
	TrackingNumber string `json:"tracking_number"`
	// ProductRef is the carrier product's reference in the site's
	// catalog; it tells the parcel from another carrier's with the same
	// number.
	ProductRef string `json:"product_ref,omitempty"`
	// Step is a tracking step (STEP_SUBMITTED_TO_CARRIER, …), Alert a
	// tracking alert (ALERT_OUT_FOR_DELIVERY, …).
	Step  string `json:"step,omitempty"`
	Alert string `json:"alert,omitempty"`
	// Time is when it happened at the carrier, to the second.
	Time time.Time `json:"time"`
	// Estimate is the carrier's delivery estimate at the time, if it
	// gave one.
	Estimate *TimeRange `json:"estimate,omitempty"`
	// Exception is an exception the carrier reports (a tracking
	// ExceptionStatus: DAMAGED, LOST, …), alone or with the step or alert.
	Exception string `json:"exception,omitempty"`
	// Source names the integration that reported it ("simulator" for the
	// built-in carrier simulator, whose parcels travel only in its
	// model).
	Source string `json:"source,omitempty"`
}

// EventType implements Payload.
func (CarrierEventReported) EventType() Type { return TypeCarrierEventReported }
