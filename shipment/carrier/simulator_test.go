package carrier_test

import (
	"context"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// monday is a Monday morning: WeekdayTimetable collects at 16:00 and
// delivers on Tuesday or Wednesday.
var monday = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

type simEnv struct {
	store storage.Store
	clock *deliverykit.ManualClock
	sim   *carrier.Simulator
}

func newSim(t testing.TB, opts carrier.SimulatorOptions) *simEnv {
	t.Helper()
	e := &simEnv{store: memory.New(), clock: deliverykit.NewManualClock(monday)}
	t.Cleanup(func() { e.store.Close() })
	opts.Clock = e.clock
	if opts.Rates == nil {
		opts.Rates = &carrier.Rates{}
	}
	var err error
	if e.sim, err = carrier.NewSimulator(e.store, opts); err != nil {
		t.Fatal(err)
	}
	return e
}

func bookingReq(n int, t shipment.DeliveryType, dir shipment.DirectionType) shipment.BookingRequest {
	return shipment.BookingRequest{Key: fmt.Sprintf("site-1/shp_%d-P1-D1", n), Site: "site-1",
		Product: shipment.Product{Ref: "np-" + string(t), CarrierID: "north", DeliveryType: t}, DeliveryType: t, Direction: dir}
}

func (e *simEnv) book(t testing.TB, req shipment.BookingRequest) string {
	t.Helper()
	b, err := e.sim.Book(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return b.TrackingNumber
}

func (e *simEnv) route(t testing.TB, tn string) carrier.Route {
	t.Helper()
	r, err := e.sim.Route(t.Context(), tn)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func names(r carrier.Route) []string {
	var out []string
	for _, s := range r.Steps {
		n := s.Step + s.Alert
		if s.Exception != "" {
			n += "/" + s.Exception // the exception the carrier reports with it
		}
		out = append(out, n)
	}
	return out
}

const (
	sub, onRoute, atPoint, delivered = "STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_PICKUP_POINT", "STEP_DELIVERED_TO_CONSUMER"
	sentBack, atMerchant, terminated = "STEP_SENT_BACK", "STEP_DELIVERED_TO_MERCHANT", "STEP_TERMINATED"
	ofd, failed, delay               = "ALERT_OUT_FOR_DELIVERY", "ALERT_DELIVERY_ATTEMPT_FAILED", "ALERT_DELIVERY_DELAYED_FROM_CARRIER"
)

// Every kind of delivery follows the steps of its outcome, in strict time
// order; on time means within the estimate given at submission, late
// after it.
func TestSimulatorRoutes(t *testing.T) {
	home, box, point := shipment.DeliveryDelivery, shipment.DeliveryMailbox, shipment.DeliveryPickup
	out, ret := shipment.DirectionOutbound, shipment.DirectionReturn
	tests := []struct {
		typ     shipment.DeliveryType
		dir     shipment.DirectionType
		outcome carrier.Outcome
		want    []string
		// arrives is the step that ends the delivery; late says whether
		// it comes after the estimate.
		arrives string
		late    bool
	}{
		{home, out, carrier.OutcomeOnTime, []string{sub, onRoute, ofd, delivered}, delivered, false},
		{home, out, carrier.OutcomeDelayed, []string{sub, onRoute, delay, ofd, delivered}, delivered, true},
		{home, out, carrier.OutcomeFailedAttempt, []string{sub, onRoute, ofd, failed, ofd, delivered}, failed, false},
		{home, out, carrier.OutcomeSentBack, []string{sub, onRoute, ofd, failed, ofd, failed, sentBack, atMerchant}, failed, false},
		{home, out, carrier.OutcomeLost, []string{sub, onRoute, delay, terminated + "/LOST"}, terminated, true},
		{box, out, carrier.OutcomeOnTime, []string{sub, onRoute, delivered}, delivered, false},
		{box, out, carrier.OutcomeSentBack, []string{sub, onRoute, sentBack, atMerchant}, sentBack, false},
		{point, out, carrier.OutcomeOnTime, []string{sub, onRoute, atPoint, delivered}, atPoint, false},
		{point, out, carrier.OutcomeCollectedLate, []string{sub, onRoute, atPoint, delivered}, atPoint, false},
		{point, out, carrier.OutcomeSentBack, []string{sub, onRoute, atPoint, sentBack + "/NOT_COLLECTED", atMerchant}, atPoint, false},
		{point, out, carrier.OutcomeDelayed, []string{sub, onRoute, delay, atPoint, delivered}, atPoint, true},
		{home, ret, carrier.OutcomeOnTime, []string{sub, onRoute, atMerchant}, atMerchant, false},
		{home, ret, carrier.OutcomeDelayed, []string{sub, onRoute, delay, atMerchant}, atMerchant, true},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.dir, tt.typ, tt.outcome), func(t *testing.T) {
			e := newSim(t, carrier.SimulatorOptions{Seed: 7})
			tn := e.book(t, bookingReq(i, tt.typ, tt.dir))
			if err := e.sim.SetOutcome(t.Context(), tn, tt.outcome); err != nil {
				t.Fatal(err)
			}
			r := e.route(t, tn)
			if diff := cmp.Diff(tt.want, names(r)); diff != "" {
				t.Fatalf("steps (-want +got):\n%s", diff)
			}
			if r.Outcome != tt.outcome {
				t.Errorf("outcome %s, want %s", r.Outcome, tt.outcome)
			}
			for j := 1; j < len(r.Steps); j++ {
				if !r.Steps[j].At.After(r.Steps[j-1].At) {
					t.Errorf("step %d at %v is not after step %d at %v", j, r.Steps[j].At, j-1, r.Steps[j-1].At)
				}
			}
			if !r.Steps[0].At.After(monday) || r.Steps[0].Estimate == nil {
				t.Fatalf("submission %+v: want after the booking, with an estimate", r.Steps[0])
			}
			est := r.Steps[0].Estimate
			i := slices.IndexFunc(r.Steps, func(s carrier.PlannedStep) bool { return s.Step+s.Alert == tt.arrives })
			at := r.Steps[i].At
			if isLate := at.After(est.Latest); isLate != tt.late {
				t.Errorf("%s at %v, estimate %v – %v: late %v, want %v", tt.arrives, at, est.Earliest, est.Latest, isLate, tt.late)
			}
			if !tt.late && at.Before(est.Earliest) {
				t.Errorf("%s at %v before the estimate %v", tt.arrives, at, est.Earliest)
			}
			if tt.outcome == carrier.OutcomeCollectedLate && r.Steps[3].At.Sub(r.Steps[2].At) < 72*time.Hour {
				t.Errorf("collected %v after arrival: want after the 72-hour reminder", r.Steps[3].At.Sub(r.Steps[2].At))
			}
		})
	}
}

// Outcomes that cannot happen to a parcel, and unknown parcels, are
// refused.
func TestSimulatorSetOutcomeRefusals(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{})
	point := e.book(t, bookingReq(1, shipment.DeliveryPickup, shipment.DirectionOutbound))
	ret := e.book(t, bookingReq(2, shipment.DeliveryDelivery, shipment.DirectionReturn))
	tests := []struct {
		tn      string
		outcome carrier.Outcome
		want    deliverykit.Kind
	}{
		{point, carrier.OutcomeFailedAttempt, deliverykit.KindInvalidArgument},
		{ret, carrier.OutcomeLost, deliverykit.KindInvalidArgument},
		{point, "teleported", deliverykit.KindInvalidArgument},
		{"CP999999995SE", carrier.OutcomeDelayed, deliverykit.KindNotFound},
	}
	for _, tt := range tests {
		if err := e.sim.SetOutcome(t.Context(), tt.tn, tt.outcome); err == nil || deliverykit.KindOf(err) != tt.want {
			t.Errorf("%s %s: err %v, want kind %v", tt.tn, tt.outcome, err, tt.want)
		}
	}
	// A route that is over takes no outcome.
	e.clock.Advance(30 * 24 * time.Hour)
	if _, err := e.sim.Dispatch(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := e.sim.SetOutcome(t.Context(), point, carrier.OutcomeDelayed); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("a delivered parcel: %v", err)
	}
}

// reported lists the steps written to the outbox, per tracking number.
func reported(t testing.TB, store storage.Store) map[string][]string {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), store, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, ev := range evs {
		c, err := event.Decode[event.CarrierEventReported](ev)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Subject != c.TrackingNumber || ev.Site != "site-1" || c.Source != carrier.SourceSimulator || !ev.Time.Equal(c.Time) {
			t.Errorf("event %+v does not match its payload %+v", ev, c)
		}
		out[c.TrackingNumber] = append(out[c.TrackingNumber], c.Time.Format("Mon 15:04:05 ")+c.Step+c.Alert)
	}
	return out
}

// Dispatch reports each step once, when it falls due, with the planned
// time; a cancelled parcel reports nothing more.
func TestSimulatorDispatch(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Seed: 1})
	ctx := t.Context()
	a := e.book(t, bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound))
	b := e.book(t, bookingReq(2, shipment.DeliveryPickup, shipment.DirectionOutbound))
	c := e.book(t, bookingReq(3, shipment.DeliveryMailbox, shipment.DirectionOutbound))
	if again := e.book(t, bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound)); again != a {
		t.Fatalf("booking the key again: %s, want %s", again, a)
	}
	want := map[string][]string{}
	for _, tn := range []string{a, b, c} {
		for _, s := range e.route(t, tn).Steps {
			want[tn] = append(want[tn], s.At.Format("Mon 15:04:05 ")+s.Step+s.Alert)
		}
	}
	if n, err := e.sim.Dispatch(ctx); n != 0 || err != nil {
		t.Fatalf("nothing is due at the booking: %d, %v", n, err)
	}
	// The mailbox parcel is cancelled before it is collected.
	if err := e.sim.Cancel(ctx, shipment.CancelRequest{Key: bookingReq(3, "", "").Key, TrackingNumber: c}); err != nil {
		t.Fatal(err)
	}
	delete(want, c)
	next, ok, err := e.sim.NextDue(ctx)
	if err != nil || !ok {
		t.Fatalf("next due: %v %v", ok, err)
	}
	total := 0
	for e.clock.Now().Before(monday.Add(14 * 24 * time.Hour)) {
		e.clock.Advance(37 * time.Minute)
		n, err := e.sim.Dispatch(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 && e.clock.Now().Before(next) {
			t.Errorf("%d steps reported at %v, before the next due %v", n, e.clock.Now(), next)
		}
		total += n
	}
	if diff := cmp.Diff(want, reported(t, e.store)); diff != "" {
		t.Errorf("reported (-planned +got):\n%s", diff)
	}
	if total != len(want[a])+len(want[b]) {
		t.Errorf("Dispatch counted %d, want %d", total, len(want[a])+len(want[b]))
	}
	if _, ok, _ := e.sim.NextDue(ctx); ok {
		t.Error("steps are still due after every route ended")
	}
	if r := e.route(t, c); !r.Cancelled || r.Reported != 0 {
		t.Errorf("cancelled route: %+v", r)
	}
}

// countingStore counts the records transactions read.
type countingStore struct {
	storage.Store
	reads atomic.Int64
}

type countingTx struct {
	storage.Tx
	s *countingStore
}

func (s *countingStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(countingTx{tx, s}) })
}

func (s *countingStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error { return fn(countingTx{tx, s}) })
}

func (t countingTx) Get(coll, key string) (storage.Record, error) {
	t.s.reads.Add(1)
	return t.Tx.Get(coll, key)
}

func (t countingTx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return func(yield func(storage.Record, error) bool) {
		for rec, err := range t.Tx.Scan(coll, r) {
			t.s.reads.Add(1)
			if !yield(rec, err) {
				return
			}
		}
	}
}

// A sweep reads what is due, not what is planned: with a thousand routes
// waiting, reporting one parcel's step reads a handful of records.
func TestSimulatorSweepCostsWhatIsDue(t *testing.T) {
	cs := &countingStore{Store: memory.New()}
	clock := deliverykit.NewManualClock(monday)
	sim, err := carrier.NewSimulator(cs, carrier.SimulatorOptions{Clock: clock, Rates: &carrier.Rates{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	first, err := sim.Book(ctx, bookingReq(0, shipment.DeliveryDelivery, shipment.DirectionOutbound))
	if err != nil {
		t.Fatal(err)
	}
	// The others are booked a day later: none is due when the first is.
	clock.Advance(24 * time.Hour)
	for i := 1; i <= 1000; i++ {
		if _, err := sim.Book(ctx, bookingReq(i, shipment.DeliveryDelivery, shipment.DirectionOutbound)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := sim.Route(ctx, first.TrackingNumber)
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(r.Steps[len(r.Steps)-1].At)
	cs.reads.Store(0)
	n, err := sim.Dispatch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(r.Steps) {
		t.Fatalf("reported %d steps, want %d", n, len(r.Steps))
	}
	// The route, its steps' due entries, and the outbox's look at the
	// parcel's pending events when a step's event queues behind another.
	if reads := cs.reads.Load(); reads > 6 {
		t.Errorf("the sweep read %d records with one route due of 1001", reads)
	}
}

// Routes come from the seed and the booking key: booked in another order,
// the same parcels travel the same way; another seed changes them.
func TestSimulatorDeterminism(t *testing.T) {
	plans := func(seed uint64, order []int) map[string][]carrier.PlannedStep {
		e := newSim(t, carrier.SimulatorOptions{Seed: seed, Rates: &carrier.DefaultRates})
		out := map[string][]carrier.PlannedStep{}
		for _, i := range order {
			req := bookingReq(i, shipment.DeliveryDelivery, shipment.DirectionOutbound)
			tn := e.book(t, req)
			out[req.Key] = e.route(t, tn).Steps
		}
		return out
	}
	forward := plans(42, []int{1, 2, 3, 4, 5, 6, 7, 8})
	if diff := cmp.Diff(forward, plans(42, []int{8, 7, 6, 5, 4, 3, 2, 1})); diff != "" {
		t.Errorf("booking order changed the routes (-forward +backward):\n%s", diff)
	}
	if cmp.Equal(forward, plans(43, []int{1, 2, 3, 4, 5, 6, 7, 8})) {
		t.Error("another seed gives the same routes")
	}
}

// Over many parcels the outcomes come out at the configured rates.
func TestSimulatorRates(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Seed: 3, Rates: &carrier.Rates{Delayed: 0.2, FailedAttempt: 0.1, SentBack: 0.05, Lost: 0.05}})
	const n = 2000
	got := map[carrier.Outcome]int{}
	for i := range n {
		got[e.route(t, e.book(t, bookingReq(i, shipment.DeliveryDelivery, shipment.DirectionOutbound))).Outcome]++
	}
	want := map[carrier.Outcome]float64{carrier.OutcomeDelayed: 0.2, carrier.OutcomeFailedAttempt: 0.1, carrier.OutcomeSentBack: 0.05,
		carrier.OutcomeLost: 0.05, carrier.OutcomeOnTime: 0.6}
	for o, share := range want {
		// Five standard deviations of a binomial share.
		if tol := 5 * math.Sqrt(share*(1-share)/n); math.Abs(float64(got[o])/n-share) > tol {
			t.Errorf("%s: %d of %d, want a share of %v ± %.3f", o, got[o], n, share, tol)
		}
	}
}

// A time scale compresses the route from the booking on; the steps keep
// their order and the estimate shrinks with them.
func TestSimulatorTimeScale(t *testing.T) {
	real := newSim(t, carrier.SimulatorOptions{Seed: 5})
	fast := newSim(t, carrier.SimulatorOptions{Seed: 5, TimeScale: 60})
	req := bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound)
	slow, quick := real.route(t, real.book(t, req)), fast.route(t, fast.book(t, req))
	if diff := cmp.Diff(names(slow), names(quick)); diff != "" {
		t.Fatalf("steps differ (-real +fast):\n%s", diff)
	}
	for i := range slow.Steps {
		want := monday.Add(slow.Steps[i].At.Sub(monday) / 60)
		if d := quick.Steps[i].At.Sub(want); d < -time.Second || d > time.Second {
			t.Errorf("step %d at %v, want %v", i, quick.Steps[i].At, want)
		}
	}
	if e := quick.Steps[0].Estimate; e.Latest.Sub(monday) > slow.Steps[0].Estimate.Latest.Sub(monday)/60+time.Second {
		t.Errorf("estimate not compressed: %v", e)
	}
}

// A booked pickup window moves a parcel not collected yet into it; a
// parcel collected already keeps its route.
func TestSimulatorBookPickup(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Seed: 9})
	ctx := t.Context()
	req := bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound)
	tn := e.book(t, req)
	w := shipment.TimeSpan{Start: monday.Add(48 * time.Hour), End: monday.Add(51 * time.Hour)} // Wednesday 09:00–12:00
	if err := e.sim.BookPickup(ctx, shipment.PickupRequest{Key: req.Key, Site: "site-1", TrackingNumber: tn, Window: w}); err != nil {
		t.Fatal(err)
	}
	r := e.route(t, tn)
	if at := r.Steps[0].At; at.Before(w.Start) || at.After(w.End) {
		t.Errorf("submitted at %v, outside the window %v – %v", at, w.Start, w.End)
	}
	if est := r.Steps[0].Estimate; !est.Earliest.After(w.End) {
		t.Errorf("the estimate %v does not follow the pickup", est)
	}
	b, err := e.sim.Lookup(ctx, tn)
	if err != nil || b.Pickup == nil || !b.Pickup.Start.Equal(w.Start) {
		t.Errorf("lookup: %+v %v", b, err)
	}
	// Once collected, a new window changes nothing.
	e.clock.Set(r.Steps[0].At)
	if n, err := e.sim.Dispatch(ctx); n != 1 || err != nil {
		t.Fatalf("dispatch: %d %v", n, err)
	}
	w2 := shipment.TimeSpan{Start: w.Start.Add(24 * time.Hour), End: w.End.Add(24 * time.Hour)}
	if err := e.sim.BookPickup(ctx, shipment.PickupRequest{Key: req.Key, Site: "site-1", TrackingNumber: tn, Window: w2}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.Steps, e.route(t, tn).Steps); diff != "" {
		t.Errorf("a collected parcel's route changed (-before +after):\n%s", diff)
	}
	if err := e.sim.BookPickup(ctx, shipment.PickupRequest{Key: "site-1/none", TrackingNumber: "CP999999995SE", Window: w}); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("a pickup of no booking: %v", err)
	}
}

// A manifest handed over at a pickup is the hand-over of its parcels:
// each not collected yet is submitted within the pickup's window; one
// collected already, one of another site and an unknown number keep
// their routes or are ignored.
func TestSimulatorHandOver(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Seed: 9})
	ctx := t.Context()
	// early is collected before the others are booked.
	early := e.book(t, bookingReq(3, shipment.DeliveryDelivery, shipment.DirectionOutbound))
	e.clock.Set(e.route(t, early).Steps[0].At)
	if n, err := e.sim.Dispatch(ctx); n != 1 || err != nil {
		t.Fatalf("dispatch: %d %v", n, err)
	}
	home := e.book(t, bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound))
	point := e.book(t, bookingReq(2, shipment.DeliveryPickup, shipment.DirectionOutbound))
	other := bookingReq(4, shipment.DeliveryDelivery, shipment.DirectionOutbound)
	other.Site, other.Key = "site-2", "site-2/d4"
	elsewhere := e.book(t, other)
	before := map[string][]carrier.PlannedStep{early: e.route(t, early).Steps, elsewhere: e.route(t, elsewhere).Steps}
	w := shipment.TimeSpan{Start: monday.Add(48 * time.Hour), End: monday.Add(51 * time.Hour)} // Wednesday 09:00–12:00
	req := shipment.HandOverRequest{Site: "site-1", Window: w, TrackingNumbers: []string{home, point, early, elsewhere, "CP999999995SE"}}
	if err := e.sim.HandOver(ctx, req); err != nil {
		t.Fatal(err)
	}
	for _, tn := range []string{home, point} {
		r := e.route(t, tn)
		if s := r.Steps[0]; s.Step != "STEP_SUBMITTED_TO_CARRIER" || s.At.Before(w.Start) || s.At.After(w.End) {
			t.Errorf("%s: first step %s at %v, want STEP_SUBMITTED_TO_CARRIER in %v – %v", tn, s.Step, s.At, w.Start, w.End)
		}
	}
	for tn, steps := range before {
		if diff := cmp.Diff(steps, e.route(t, tn).Steps); diff != "" {
			t.Errorf("%s: route changed (-before +after):\n%s", tn, diff)
		}
	}
	// Repeated: the same routes.
	again := e.route(t, home).Steps
	if err := e.sim.HandOver(ctx, req); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(again, e.route(t, home).Steps); diff != "" {
		t.Errorf("a repeated hand-over changed the route (-before +after):\n%s", diff)
	}
}

// Making a parcel late after some of its steps were reported keeps them
// and plans the rest anew.
func TestSimulatorSetOutcomeKeepsReportedSteps(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Seed: 11})
	ctx := t.Context()
	tn := e.book(t, bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound))
	before := e.route(t, tn)
	e.clock.Set(before.Steps[1].At) // submitted and on route
	if n, err := e.sim.Dispatch(ctx); n != 2 || err != nil {
		t.Fatalf("dispatch: %d %v", n, err)
	}
	if err := e.sim.SetOutcome(ctx, tn, carrier.OutcomeDelayed); err != nil {
		t.Fatal(err)
	}
	after := e.route(t, tn)
	if diff := cmp.Diff(before.Steps[:2], after.Steps[:2]); diff != "" {
		t.Errorf("reported steps changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{sub, onRoute, delay, ofd, delivered}, names(after)); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	if after.Reported != 2 {
		t.Errorf("reported %d, want 2", after.Reported)
	}
}

func TestNewSimulatorRefusesBadOptions(t *testing.T) {
	for _, o := range []carrier.SimulatorOptions{
		{Rates: &carrier.Rates{Delayed: -0.1}},
		{Rates: &carrier.Rates{Delayed: 0.6, Lost: 0.6}},
		{Rates: &carrier.Rates{Lost: math.NaN()}},
		{TimeScale: -1},
		{TimeScale: math.Inf(1)},
		{PickupHold: -time.Hour},
		{Demo: carrier.DemoOptions{Country: "sweden"}},
	} {
		if _, err := carrier.NewSimulator(memory.New(), o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
