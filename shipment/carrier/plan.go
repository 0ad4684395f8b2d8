package carrier

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/shipment"
)

// Outcome is how a simulated parcel's journey ends.
type Outcome string

// Outcome values. Which apply depends on the delivery (see Rates).
const (
	// OutcomeOnTime: delivered within the estimate (a pickup collected
	// within two days of its arrival).
	OutcomeOnTime Outcome = "on_time"
	// OutcomeDelayed: the carrier reports a delay on the morning of the
	// estimate's last day and delivers one or two business days later.
	OutcomeDelayed Outcome = "delayed"
	// OutcomeFailedAttempt: home delivery only; nobody was home at the
	// first attempt, delivered at the second, the next business day.
	OutcomeFailedAttempt Outcome = "failed_attempt"
	// OutcomeSentBack: a home delivery fails twice, a mailbox parcel
	// cannot be delivered, a pickup is not collected within the hold
	// time: the parcel goes back and reaches the sender.
	OutcomeSentBack Outcome = "sent_back"
	// OutcomeLost: the carrier reports a delay, then nothing, and
	// declares the parcel lost (STEP_TERMINATED) a week of business days
	// after the estimate.
	OutcomeLost Outcome = "lost"
	// OutcomeCollectedLate: pickup only; collected after the customer's
	// pickup reminder (three to six days after arrival).
	OutcomeCollectedLate Outcome = "collected_late"
)

// Rates are the shares of the parcels a delivery applies to that end
// otherwise than on time; the rest arrive on time. Each is between 0 and
// 1, and together they are at most 1.
type Rates struct {
	// Delayed applies to every parcel; FailedAttempt to home deliveries;
	// SentBack and Lost to outbound parcels; CollectedLate to pickups.
	Delayed, FailedAttempt, SentBack, Lost, CollectedLate float64
}

// DefaultRates are mostly on time: one parcel in twenty is late, one home
// delivery in twenty-five needs a second attempt, one in a hundred goes
// back, one in five hundred is lost, and one pickup in seven is collected
// after its reminder.
var DefaultRates = Rates{Delayed: 0.05, FailedAttempt: 0.04, SentBack: 0.01, Lost: 0.002, CollectedLate: 0.15}

func (r Rates) check() error {
	sum := 0.0
	for _, v := range []float64{r.Delayed, r.FailedAttempt, r.SentBack, r.Lost, r.CollectedLate} {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("carrier: every rate must be between 0 and 1, got %v", v)
		}
		sum += v
	}
	if sum > 1 {
		return fmt.Errorf("carrier: the rates add up to %v, more than 1", sum)
	}
	return nil
}

// kind is what a route looks like: where it ends and how.
type kind int

const (
	kindHome    kind = iota // out for delivery, then delivered at the door
	kindMailbox             // delivered into the mailbox
	kindPickup              // delivered to a pickup point, then collected
	kindReturn              // handed in by the customer, delivered to the merchant
)

func kindOf(direction shipment.DirectionType, t shipment.DeliveryType) kind {
	switch {
	case direction == shipment.DirectionReturn:
		return kindReturn
	case t == shipment.DeliveryPickup || t == shipment.DeliveryInstore:
		return kindPickup
	case t == shipment.DeliveryMailbox:
		return kindMailbox
	}
	return kindHome
}

// outcomes lists, per kind, the outcomes other than on time that apply, in
// the order their bands are drawn.
var outcomes = map[kind][]Outcome{
	kindHome:    {OutcomeLost, OutcomeSentBack, OutcomeFailedAttempt, OutcomeDelayed},
	kindMailbox: {OutcomeLost, OutcomeSentBack, OutcomeDelayed},
	kindPickup:  {OutcomeLost, OutcomeSentBack, OutcomeDelayed, OutcomeCollectedLate},
	kindReturn:  {OutcomeDelayed},
}

func (r Rates) of(o Outcome) float64 {
	switch o {
	case OutcomeDelayed:
		return r.Delayed
	case OutcomeFailedAttempt:
		return r.FailedAttempt
	case OutcomeSentBack:
		return r.SentBack
	case OutcomeLost:
		return r.Lost
	case OutcomeCollectedLate:
		return r.CollectedLate
	}
	return 0
}

// draw picks the outcome of a parcel of kind k for u in [0, 1).
func (r Rates) draw(k kind, u float64) Outcome {
	band := 0.0
	for _, o := range outcomes[k] {
		band += r.of(o)
		if u < band {
			return o
		}
	}
	return OutcomeOnTime
}

// applies reports whether outcome o can happen to a parcel of kind k.
func applies(k kind, o Outcome) bool { return o == OutcomeOnTime || slices.Contains(outcomes[k], o) }

// Tracking steps and alerts the simulator reports (tracking's values).
const (
	stepSubmitted      = "STEP_SUBMITTED_TO_CARRIER"
	stepOnRoute        = "STEP_ON_ROUTE"
	stepAtPickupPoint  = "STEP_DELIVERED_TO_PICKUP_POINT"
	stepDelivered      = "STEP_DELIVERED_TO_CONSUMER"
	stepSentBack       = "STEP_SENT_BACK"
	stepAtMerchant     = "STEP_DELIVERED_TO_MERCHANT"
	stepTerminated     = "STEP_TERMINATED"
	alertOutForDeliver = "ALERT_OUT_FOR_DELIVERY"
	alertAttemptFailed = "ALERT_DELIVERY_ATTEMPT_FAILED"
	alertCarrierDelay  = "ALERT_DELIVERY_DELAYED_FROM_CARRIER"
	// Exceptions the simulator names (tracking's ExceptionStatus): a
	// failed attempt and a home or mailbox parcel sent back are implied
	// by their alert and step; these two are not.
	exceptionLost         = "LOST"
	exceptionNotCollected = "NOT_COLLECTED"
)

// lostAfter is how many business days after the estimate's last a lost
// parcel is declared lost.
const lostAfter = 5

// lateDays is how many business days past the estimate a timetable
// must list for every route.
const lateDays = 20

// planInput is what a route is planned from: the booking, fixed when it
// was made, and the outcome, drawn or forced.
type planInput struct {
	key      string
	kind     kind
	bookedAt time.Time
	// pickup is the window of a booked pickup, if any.
	pickup  *shipment.TimeSpan
	outcome Outcome // "" draws it
	rates   Rates
	hold    time.Duration
	scale   float64
	seed    uint64
	// timetable is the product's for goods ready at a time.
	timetable func(ready time.Time) Timetable
	// scenario, when set, decides the route's kind and outcome, and
	// every time falls at its window's start (all draws zero).
	scenario Scenario
}

// draws are a route's random numbers, each with a fixed use, drawn in one
// order whatever the outcome: forcing another outcome on a parcel changes
// what happens, not when the parts it shares happen.
type draws [12]float64

// between is a duration from lo to hi by the draw x.
func between(x float64, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(x*float64(hi-lo))
}

// plan is the route of in: its outcome and its steps in time order. It
// is a pure function of in, so a route is planned again exactly (with
// another outcome, or a booked pickup) from what its record keeps.
func plan(in planInput) (Outcome, []stepRecord) {
	h := fnv.New64a()
	h.Write([]byte(in.key))
	rng := rand.New(rand.NewPCG(in.seed, h.Sum64()))
	u := rng.Float64()
	var x draws
	for i := range x {
		x[i] = rng.Float64()
	}
	out := in.outcome
	if out == "" {
		out = in.rates.draw(in.kind, u)
	}
	if spec, ok := scenarioSpecs[in.scenario]; ok {
		x = draws{}
		in.kind, out = spec.kind, spec.outcome
		if in.scenario == ScenarioNoUpdates {
			return out, nil
		}
	}
	var r route
	if in.kind == kindReturn {
		r = returnRoute(in, &x, out)
	} else {
		r = outboundRoute(in, &x, out)
	}
	return out, settle(r.steps, in.bookedAt, in.scale)
}

// route collects planned steps.
type route struct{ steps []stepRecord }

func (r *route) step(at time.Time, step string, est *spanRecord) {
	r.steps = append(r.steps, stepRecord{At: at, Step: step, Estimate: est})
}

// exception marks the last step with the exception the carrier reports
// with it.
func (r *route) exception(status string) { r.steps[len(r.steps)-1].Exception = status }

func (r *route) alert(at time.Time, alert string) {
	r.steps = append(r.steps, stepRecord{At: at, Alert: alert})
}

// deliveryDay is the index of the on-time delivery day: mostly the first
// of the estimate, else one of the others.
func deliveryDay(t *Timetable, x *draws) int {
	if t.OnTime > 1 && x[2] >= 0.6 {
		return min(1+int(x[3]*float64(t.OnTime-1)), t.OnTime-1)
	}
	return 0
}

// profileDay is the index of the delivery day of a parcel whose lead time
// follows profile p, for the draw u: the lead time, in business hours
// after the hand-over, is read off the profile's quantile function
// (straight between p10, p50 and p90, flat beyond), and the parcel is
// delivered on the business day it ends on. Days lists business days
// from the first transit day on, so the day counts from there; a lead
// time too short for the product's fewest transit days is delivered on
// the first.
func profileDay(t *Timetable, p catalog.LeadTimeProfile, u float64) int {
	var h float64
	switch {
	case u <= 0.1:
		h = p.P10
	case u <= 0.5:
		h = p.P10 + (p.P50-p.P10)*(u-0.1)/0.4
	case u <= 0.9:
		h = p.P50 + (p.P90-p.P50)*(u-0.5)/0.4
	default:
		h = p.P90
	}
	// The hand-over day's business hours left after the hand-over,
	// then whole business days.
	y, m, d := t.Handover.Date()
	left := time.Date(y, m, d+1, 0, 0, 0, 0, t.Handover.Location()).Sub(t.Handover).Hours()
	days := 0 // business days after the hand-over day
	if h > left {
		days = int(math.Ceil((h - left) / 24))
	}
	return max(days-t.TransitMin, 0)
}

// late adds the carrier's delay report on the morning of the estimate's
// last day and returns the late delivery day.
func late(r *route, t *Timetable, x *draws) int {
	last := t.OnTime - 1
	r.alert(t.day(last).Add(between(x[4], 7*time.Hour, 9*time.Hour)), alertCarrierDelay)
	return last + 1 + int(x[5]*2)
}

func outboundRoute(in planInput, x *draws, out Outcome) route {
	var r route
	ready := in.bookedAt
	if in.pickup != nil && in.pickup.Start.After(ready) {
		ready = in.pickup.Start
	}
	t := in.timetable(ready)
	var submit, collected time.Time
	if w := in.pickup; w != nil && w.End.After(w.Start) {
		// Collected within the booked window.
		submit = w.Start.Add(between(x[0], 0, w.End.Sub(w.Start)))
		collected = submit
	} else {
		submit = t.Handover.Add(-between(x[0], 0, 2*time.Hour))
		collected = t.Handover
	}
	if earliest := in.bookedAt.Add(5 * time.Minute); submit.Before(earliest) {
		submit = earliest
	}
	r.step(submit, stepSubmitted, &spanRecord{Earliest: t.Earliest, Latest: t.Latest})
	r.step(later(collected, submit).Add(between(x[1], 2*time.Hour, 6*time.Hour)), stepOnRoute, nil)
	day := deliveryDay(&t, x)
	if t.LeadTime != nil && in.scenario == "" {
		day = profileDay(&t, *t.LeadTime, x[3])
	}
	if in.scenario == ScenarioLost {
		r.step(submit.Add(scenarioLostAfter), stepTerminated, nil)
		r.exception(exceptionLost)
		return r
	}
	switch out {
	case OutcomeDelayed:
		day = late(&r, &t, x)
	case OutcomeLost:
		late(&r, &t, x)
		r.step(t.day(t.OnTime-1+lostAfter).Add(between(x[5], 10*time.Hour, 16*time.Hour)), stepTerminated, nil)
		r.exception(exceptionLost)
		return r
	}
	at := t.day(day)
	switch in.kind {
	case kindMailbox:
		done := at.Add(between(x[6], 9*time.Hour, 15*time.Hour))
		if out == OutcomeSentBack {
			r.step(done, stepSentBack, nil)
			r.step(t.dayAfter(done, max(t.TransitMin, 1)).Add(between(x[11], 9*time.Hour, 15*time.Hour)), stepAtMerchant, nil)
			return r
		}
		r.step(done, stepDelivered, nil)
	case kindPickup:
		arrived := at.Add(between(x[6], 8*time.Hour, 14*time.Hour))
		r.step(arrived, stepAtPickupPoint, nil)
		switch out {
		case OutcomeSentBack:
			back := arrived.Add(in.hold)
			r.step(back, stepSentBack, nil)
			r.exception(exceptionNotCollected)
			r.step(t.dayAfter(back, max(t.TransitMin, 1)).Add(between(x[11], 9*time.Hour, 15*time.Hour)), stepAtMerchant, nil)
		case OutcomeOnTime:
			if in.scenario == ScenarioPickupPoint {
				// Collected before the point sends the parcel back.
				r.step(arrived.Add(min(scenarioCollectedAfter, in.hold-time.Hour)), stepDelivered, nil)
				break
			}
			fallthrough
		default:
			r.step(collection(arrived, in.hold, x, out == OutcomeCollectedLate), stepDelivered, nil)
		}
	default:
		homeDelivery(&r, &t, x, day, out)
	}
	return r
}

// collection is when the customer collects a parcel that arrived at a
// pickup point: during the day, on its day of arrival or the next, or,
// late, three to five days after it, past the customer's reminder (72
// hours after the arrival) and before the point sends it back.
func collection(arrived time.Time, hold time.Duration, x *draws, late bool) time.Time {
	days := int(x[7] * 2)
	if late {
		days = 3 + int(x[7]*3)
	}
	y, m, d := arrived.Date() // arrived is in the warehouse's zone
	at := time.Date(y, m, d+days, 0, 0, 0, 0, arrived.Location()).Add(between(x[8], 10*time.Hour, 20*time.Hour))
	soonest := arrived.Add(30 * time.Minute)
	if late {
		soonest = arrived.Add(73 * time.Hour)
	}
	if at.Before(soonest) {
		at = at.Add(24 * time.Hour)
	}
	if last := arrived.Add(hold - time.Hour); late && at.After(last) {
		at = last
	}
	return at
}

// homeDelivery is a delivery at the door on day: out for delivery in the
// morning, delivered (or missed) during the day.
func homeDelivery(r *route, t *Timetable, x *draws, day int, out Outcome) {
	ofd := t.day(day).Add(between(x[6], 7*time.Hour, 9*time.Hour))
	r.alert(ofd, alertOutForDeliver)
	done := ofd.Add(between(x[7], time.Hour, 7*time.Hour))
	if out != OutcomeFailedAttempt && out != OutcomeSentBack {
		r.step(done, stepDelivered, nil)
		return
	}
	r.alert(done, alertAttemptFailed)
	ofd = t.day(day + 1).Add(between(x[8], 7*time.Hour, 9*time.Hour))
	r.alert(ofd, alertOutForDeliver)
	done = ofd.Add(between(x[9], time.Hour, 7*time.Hour))
	if out == OutcomeFailedAttempt {
		r.step(done, stepDelivered, nil)
		return
	}
	r.alert(done, alertAttemptFailed)
	back := t.day(day + 2).Add(between(x[10], 8*time.Hour, 10*time.Hour))
	r.step(back, stepSentBack, nil)
	r.step(t.dayAfter(back, max(t.TransitMin, 1)).Add(between(x[11], 9*time.Hour, 15*time.Hour)), stepAtMerchant, nil)
}

// returnRoute: the customer hands the parcel in during the day, on the
// day of the booking or one of the two after; it is collected at the
// drop-off point's cut-off and delivered to the merchant on the
// product's timetable.
func returnRoute(in planInput, x *draws, out Outcome) route {
	var r route
	loc := in.timetable(in.bookedAt).Handover.Location()
	y, m, d := in.bookedAt.In(loc).Date()
	handedIn := time.Date(y, m, d+int(x[0]*3), 0, 0, 0, 0, loc).Add(between(x[7], 9*time.Hour, 20*time.Hour))
	if soonest := in.bookedAt.Add(time.Hour); handedIn.Before(soonest) {
		handedIn = soonest.Add(between(x[7], 0, 3*time.Hour))
	}
	t := in.timetable(handedIn)
	r.step(handedIn, stepSubmitted, &spanRecord{Earliest: t.Earliest, Latest: t.Latest})
	r.step(later(t.Handover, handedIn.Add(30*time.Minute)).Add(between(x[1], time.Hour, 5*time.Hour)), stepOnRoute, nil)
	day := deliveryDay(&t, x)
	if out == OutcomeDelayed {
		day = late(&r, &t, x)
	}
	r.step(t.day(day).Add(between(x[6], 9*time.Hour, 15*time.Hour)), stepAtMerchant, nil)
	return r
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// settle puts steps in strict time order (a step never shares its
// predecessor's instant, so none is taken for a repeat), compresses the
// route by scale from the booking on, and cuts times to the second, as
// tracking records them.
func settle(steps []stepRecord, bookedAt time.Time, scale float64) []stepRecord {
	squeeze := func(t time.Time) time.Time {
		if scale > 1 {
			t = bookedAt.Add(time.Duration(float64(t.Sub(bookedAt)) / scale))
		}
		return t.UTC().Truncate(time.Second)
	}
	var prev time.Time
	for i := range steps {
		s := &steps[i]
		if i > 0 && !s.At.After(prev) {
			s.At = prev.Add(time.Minute)
		}
		prev = s.At
	}
	for i := range steps {
		s := &steps[i]
		s.At = squeeze(s.At)
		if i > 0 && !s.At.After(steps[i-1].At) {
			s.At = steps[i-1].At.Add(time.Second)
		}
		if e := s.Estimate; e != nil {
			s.Estimate = &spanRecord{Earliest: squeeze(e.Earliest), Latest: squeeze(e.Latest)}
		}
	}
	return steps
}

// checkOutcome refuses an outcome that cannot happen to a parcel of kind
// k.
func checkOutcome(k kind, o Outcome) error {
	switch o {
	case OutcomeOnTime, OutcomeDelayed, OutcomeFailedAttempt, OutcomeSentBack, OutcomeLost, OutcomeCollectedLate:
	default:
		return deliverykit.InvalidField("outcome", "oneof", "must be one of on_time, delayed, failed_attempt, sent_back, lost, collected_late")
	}
	if !applies(k, o) {
		return deliverykit.InvalidField("outcome", "applies", fmt.Sprintf("%s cannot happen to this parcel", o))
	}
	return nil
}
