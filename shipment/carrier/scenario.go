package carrier

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
)

// Scenario is a journey a test parcel follows whatever the simulator's
// rates would draw: a simulator with SimulatorOptions.Scenarios plays it
// for a booking whose BookingRequest.Scenario names it (a shipment
// delivery's meta["test_scenario"]). Its steps fall at fixed points of the
// product's timetable (Scenarios lists them), so a test that advances the
// site's clock knows what it will see.
type Scenario string

// The scenarios. "Hand-over" is when the carrier collects the parcel: the
// product's cut-off on the booking day (the next collection day when the
// booking is later), or the start of a booked pickup window. Days are the
// product's business days, counted from the estimate's first day; times
// of day are in the timetable's zone.
const (
	ScenarioDelivered        Scenario = "DELIVERED"
	ScenarioPickupPoint      Scenario = "PICKUP_POINT"
	ScenarioNotCollected     Scenario = "NOT_COLLECTED"
	ScenarioFailedAttempt    Scenario = "FAILED_ATTEMPT"
	ScenarioDelayed          Scenario = "DELAYED"
	ScenarioLost             Scenario = "LOST"
	ScenarioReturnToSender   Scenario = "RETURN_TO_SENDER"
	ScenarioNoUpdates        Scenario = "NO_UPDATES"
	ScenarioReturnDroppedOff Scenario = "RETURN_DROPPED_OFF"
)

// Fault is a failure a simulator with SimulatorOptions.Scenarios plays
// instead of booking: for one booking, named as a scenario is
// (BookingRequest.Scenario), or for every booking of a site while
// Simulator.SetFaults keeps it on. Nothing is booked when a fault
// answers.
type Fault string

// The faults.
const (
	// FaultBookingRejected: the carrier refuses the booking with a
	// reason (FailedPrecondition: the client's 400 with the reason).
	FaultBookingRejected Fault = "BOOKING_REJECTED"
	// FaultCarrierUnavailable: the carrier cannot take bookings now
	// (Unavailable: a 503, retried by the outbox when a consumer books).
	FaultCarrierUnavailable Fault = "CARRIER_UNAVAILABLE"
	// FaultLabelTimeout: the carrier's label service does not answer in
	// time (Unavailable, wrapping context.DeadlineExceeded).
	FaultLabelTimeout Fault = "LABEL_TIMEOUT"
)

// ScenarioInfo describes one code that selects a scenario or a fault.
type ScenarioInfo struct {
	// Code is the value of meta.test_scenario.
	Code string
	// Fault is true for the faults, which book nothing.
	Fault bool
	// Summary is the journey, or the answer, with its timings.
	Summary string
}

// scenarioSpec is how a scenario is planned: the kind of route it takes,
// whatever the booking's delivery type, and its outcome.
type scenarioSpec struct {
	kind    kind
	outcome Outcome
	summary string
}

// scenarioOrder lists the scenarios in the order Scenarios documents
// them.
var scenarioOrder = []Scenario{
	ScenarioDelivered, ScenarioPickupPoint, ScenarioNotCollected, ScenarioFailedAttempt, ScenarioDelayed,
	ScenarioLost, ScenarioReturnToSender, ScenarioNoUpdates, ScenarioReturnDroppedOff,
}

var scenarioSpecs = map[Scenario]scenarioSpec{
	ScenarioDelivered: {kindHome, OutcomeOnTime,
		"Home delivery on time: STEP_SUBMITTED_TO_CARRIER at the hand-over, STEP_ON_ROUTE 2 h later, ALERT_OUT_FOR_DELIVERY at 07:00 and STEP_DELIVERED_TO_CONSUMER at 08:00 on the estimate's first day."},
	ScenarioPickupPoint: {kindPickup, OutcomeOnTime,
		"Pickup point: submitted at the hand-over, on route 2 h later, STEP_DELIVERED_TO_PICKUP_POINT at 08:00 on the estimate's first day, collected (STEP_DELIVERED_TO_CONSUMER) 48 h after its arrival."},
	ScenarioNotCollected: {kindPickup, OutcomeSentBack,
		"Pickup point, never collected: arrives as PICKUP_POINT does; STEP_SENT_BACK with exception NOT_COLLECTED when the pickup deadline passes (SimulatorOptions.PickupHold after the arrival, default 7 days); STEP_DELIVERED_TO_MERCHANT at 09:00 the product's fewest transit days (at least 1) business days later."},
	ScenarioFailedAttempt: {kindHome, OutcomeFailedAttempt,
		"Home delivery, one failed attempt: ALERT_OUT_FOR_DELIVERY at 07:00 and ALERT_DELIVERY_ATTEMPT_FAILED at 08:00 on the estimate's first day; out for delivery again at 07:00 the next business day, STEP_DELIVERED_TO_CONSUMER at 08:00."},
	ScenarioDelayed: {kindHome, OutcomeDelayed,
		"Home delivery one business day late: ALERT_DELIVERY_DELAYED_FROM_CARRIER at 07:00 on the estimate's last day; ALERT_OUT_FOR_DELIVERY at 07:00 and STEP_DELIVERED_TO_CONSUMER at 08:00 on the business day after it."},
	ScenarioLost: {kindHome, OutcomeLost,
		"Lost: submitted at the hand-over, on route 2 h later, then nothing until STEP_TERMINATED with exception LOST 5 days (120 h) after the hand-over."},
	ScenarioReturnToSender: {kindHome, OutcomeSentBack,
		"Returned to the sender: two failed home deliveries (out at 07:00, failed at 08:00, on the estimate's first day and the next business day), STEP_SENT_BACK at 08:00 the business day after, STEP_DELIVERED_TO_MERCHANT at 09:00 the product's fewest transit days (at least 1) business days later."},
	ScenarioNoUpdates: {kindHome, OutcomeOnTime,
		"Booked, then no carrier event at all: tracking turns carrier_fallback_enabled true 48 h after the parcel's registration."},
	ScenarioReturnDroppedOff: {kindReturn, OutcomeOnTime,
		"Return parcel reaching the warehouse: handed in (STEP_SUBMITTED_TO_CARRIER) at 09:00 on the booking day, or 1 h after the booking when that is later; STEP_ON_ROUTE 1 h after the product's cut-off; STEP_DELIVERED_TO_MERCHANT at 09:00 on the estimate's first day."},
}

var faultOrder = []Fault{FaultBookingRejected, FaultCarrierUnavailable, FaultLabelTimeout}

var faultSummaries = map[Fault]string{
	FaultBookingRejected:    "The carrier rejects the booking: a 400 (failed precondition) with the carrier's reason; nothing is booked.",
	FaultCarrierUnavailable: "The carrier is unavailable: a 503 (unavailable); nothing is booked; a booking made by an outbox consumer (a return's parcel) is retried, and is dead after the outbox's attempts.",
	FaultLabelTimeout:       "The carrier's label service does not answer in time: a 503 (unavailable, a deadline exceeded); nothing is booked.",
}

// Scenarios lists every code a test booking may name, the nine scenarios
// and then the three faults, with what each does.
func Scenarios() []ScenarioInfo {
	out := make([]ScenarioInfo, 0, len(scenarioOrder)+len(faultOrder))
	for _, sc := range scenarioOrder {
		out = append(out, ScenarioInfo{Code: string(sc), Summary: scenarioSpecs[sc].summary})
	}
	for _, f := range faultOrder {
		out = append(out, ScenarioInfo{Code: string(f), Fault: true, Summary: faultSummaries[f]})
	}
	return out
}

// scenarioField is the field a booking's scenario comes from.
const scenarioField = "meta." + shipment.MetaTestScenario

// Timings of the scenarios that the general plans do not have.
const (
	// scenarioCollectedAfter is when a PICKUP_POINT parcel is collected,
	// after its arrival.
	scenarioCollectedAfter = 48 * time.Hour
	// scenarioLostAfter is when a LOST parcel is declared lost, after
	// its hand-over.
	scenarioLostAfter = 5 * 24 * time.Hour
)

// codes is the list of valid codes, for the error naming a wrong one.
func codes() string {
	var cs []string
	for _, sc := range Scenarios() {
		cs = append(cs, sc.Code)
	}
	return strings.Join(cs, ", ")
}

// parseCode reads a booking's code: a scenario, a fault, or neither for
// "". An unknown code is InvalidArgument naming field and the valid
// codes.
func parseCode(field, code string) (Scenario, Fault, error) {
	if code == "" {
		return "", "", nil
	}
	if _, ok := scenarioSpecs[Scenario(code)]; ok {
		return Scenario(code), "", nil
	}
	if slices.Contains(faultOrder, Fault(code)) {
		return "", Fault(code), nil
	}
	return "", "", deliverykit.InvalidField(field, "oneof", "must be one of "+codes())
}

// faultError is the error a fault answers with.
func faultError(f Fault) error {
	switch f {
	case FaultBookingRejected:
		return deliverykit.E(deliverykit.KindFailedPrecondition,
			"the carrier rejected the booking: the receiver's address is outside its service area (test fault BOOKING_REJECTED)")
	case FaultCarrierUnavailable:
		return deliverykit.E(deliverykit.KindUnavailable, "carrier: unavailable (test fault CARRIER_UNAVAILABLE)")
	case FaultLabelTimeout:
		return deliverykit.Errorf(deliverykit.KindUnavailable, "carrier: the label service did not answer in time (test fault LABEL_TIMEOUT): %w",
			context.DeadlineExceeded)
	}
	return deliverykit.Errorf(deliverykit.KindInternal, "carrier: unknown fault %q", f)
}

// faultRecord is a site's faults as stored.
type faultRecord struct {
	Schema int     `json:"schema"`
	Faults []Fault `json:"faults"`
}

const faultSchema = 1

// siteFaults are keyed by site.
var siteFaults = storage.Collection[faultRecord]{Name: "carrier.sim.faults"}

// errScenariosOff refuses the fault switch of a simulator that plays no
// scenarios.
var errScenariosOff = deliverykit.E(deliverykit.KindFailedPrecondition, "carrier: the simulator plays no test scenarios (SimulatorOptions.Scenarios)")

// SetFaults makes every booking of site answer with the first of faults
// from now on, until faults are set again; none clears them, and the
// bookings that failed succeed when repeated. Several processes on one
// store see the same faults. A simulator without
// SimulatorOptions.Scenarios refuses it (FailedPrecondition); an unknown
// fault is InvalidArgument naming it (faults[1]).
func (s *Simulator) SetFaults(ctx context.Context, site string, faults []Fault) error {
	if !s.opts.Scenarios {
		return errScenariosOff
	}
	if site == "" {
		return deliverykit.InvalidField("site", "required", "is required")
	}
	if len(faults) > len(faultOrder) {
		return deliverykit.InvalidField("faults", "max", fmt.Sprintf("must have at most %d entries", len(faultOrder)))
	}
	var rec faultRecord
	for i, f := range faults {
		if !slices.Contains(faultOrder, f) {
			return deliverykit.InvalidField(fmt.Sprintf("faults[%d]", i), "oneof", "must be one of BOOKING_REJECTED, CARRIER_UNAVAILABLE, LABEL_TIMEOUT")
		}
		if !slices.Contains(rec.Faults, f) {
			rec.Faults = append(rec.Faults, f)
		}
	}
	rec.Schema = faultSchema
	return s.store.Update(ctx, func(tx storage.Tx) error {
		if len(rec.Faults) == 0 {
			return siteFaults.Delete(tx, site, storage.AnyVersion)
		}
		_, err := siteFaults.Put(tx, site, rec, storage.AnyVersion)
		return err
	})
}

// Faults returns the faults SetFaults set for site, none when it set
// none.
func (s *Simulator) Faults(ctx context.Context, site string) ([]Fault, error) {
	var out []Fault
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		out, err = faultsOf(tx, site)
		return err
	})
	return out, err
}

// faultsOf reads site's faults in tx.
func faultsOf(tx storage.Tx, site string) ([]Fault, error) {
	it, err := siteFaults.Get(tx, site)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	return it.Value.Faults, err
}

// trackingPrefix starts the tracking numbers that name a scenario.
const trackingPrefix = "TEST"

// ScenarioOfTrackingNumber returns the scenario a tracking number names:
// "TEST", a scenario's code, then anything (TESTLOST0001,
// TESTPICKUP_POINT-1, TESTDELIVERED). When several codes follow "TEST",
// the longest wins; the comparison is exact (upper case). False for any
// other number, and for faults, which only a booking can play.
func ScenarioOfTrackingNumber(trackingNumber string) (Scenario, bool) {
	rest, ok := strings.CutPrefix(trackingNumber, trackingPrefix)
	if !ok {
		return "", false
	}
	var best Scenario
	for _, sc := range scenarioOrder {
		if strings.HasPrefix(rest, string(sc)) && len(sc) > len(best) {
			best = sc
		}
	}
	return best, best != ""
}

// HandleParcelRegistered is the outbox consumer of
// event.ParcelRegistered: with SimulatorOptions.Scenarios, a parcel a
// merchant registered with tracking under a TEST<scenario> number (see
// ScenarioOfTrackingNumber) follows that scenario from its registration,
// as a booked parcel would, and Dispatch reports its steps to tracking.
// Any other parcel, or any parcel without Scenarios, is left alone. It is
// idempotent: a parcel whose number has a route already keeps it.
func (s *Simulator) HandleParcelRegistered(ctx context.Context, e event.Event) error {
	if !s.opts.Scenarios {
		return nil
	}
	p, err := event.Decode[event.ParcelRegistered](e)
	if err != nil {
		return err
	}
	sc, ok := ScenarioOfTrackingNumber(p.TrackingNumber)
	if !ok {
		return nil
	}
	dir := shipment.DirectionOutbound
	if p.Direction == string(shipment.DirectionReturn) {
		dir = shipment.DirectionReturn
	}
	r := routeRecord{
		Schema: routeSchema, Key: storage.Key("tracking", e.Site, p.TrackingNumber), Site: e.Site, TrackingNumber: p.TrackingNumber,
		ProductRef: p.ProductRef, Direction: string(dir), DeliveryType: p.DeliveryType,
		BookedAt: p.RegisteredAt.UTC(), Scale: s.opts.TimeScale, Scenario: string(sc),
	}
	outcome, steps := plan(s.input(&r, ""))
	r.Outcome, r.Steps = string(outcome), steps
	return s.store.Update(ctx, func(tx storage.Tx) error { return create(tx, &r) })
}
