package carrier

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
)

// Defaults of SimulatorOptions.
const (
	DefaultPickupHold     = 7 * 24 * time.Hour
	DefaultSimulatorBatch = 100
)

// SourceSimulator is the Source of the events the simulator reports.
const SourceSimulator = "simulator"

// SimulatorOptions configures a Simulator. A zero field means its default.
type SimulatorOptions struct {
	// Demo configures the tracking numbers, which are the demo carrier's.
	Demo DemoOptions
	// Timetables give each product's handover and delivery days; wiring
	// passes the sites' catalogs. Products it does not know (or all, when
	// nil) follow WeekdayTimetable.
	Timetables Timetables
	// Rates are the shares of parcels that do not arrive on time. Nil:
	// DefaultRates; &Rates{} makes every parcel arrive on time.
	Rates *Rates
	// Seed seeds the randomness. A route is drawn from the seed and the
	// booking's key alone, so the same seed, keys and clock give the same
	// routes whatever the order of the bookings.
	Seed uint64
	// TimeScale above 1 runs routes that many times faster than real
	// time, counted from the booking: 60 makes a day of travel last 24
	// minutes. It compresses the routes only; the rest of the service
	// keeps the clock's time.
	TimeScale float64
	// PickupHold is how long a pickup point keeps a parcel that is not
	// collected before sending it back. Default DefaultPickupHold.
	PickupHold time.Duration
	// Scenarios makes the simulator a test site's carrier: a booking
	// whose BookingRequest.Scenario names a Scenario follows it, one that
	// names a Fault fails with it, an unknown code is InvalidArgument, and
	// SetFaults can make every booking of a site fail. Without it the
	// simulator ignores BookingRequest.Scenario, so a magic value means
	// nothing on a live site.
	Scenarios bool
	// Batch is how many due routes one Dispatch advances at most.
	// Default DefaultSimulatorBatch.
	Batch int
	// Clock defaults to the system clock. Logger defaults to
	// slog.Default().
	Clock  deliverykit.Clock
	Logger *slog.Logger
}

// Simulator is a carrier whose parcels travel on their own. It books like
// the demo carrier (S10 numbers, idempotent on the key) and, in the same
// transaction, plans the parcel's route: the steps and alerts a real
// carrier would report, at the times it would, drawn from the product's
// timetable and seeded randomness. Dispatch (Step) reports every step
// that fell due as an event.CarrierEventReported through the outbox, which
// tracking records as it records POST /parcel.event.
//
// Routes are kept in the store (collections "carrier.sim.*"), so a restart
// loses none, and an index by due time makes a sweep cost what is due,
// not what is planned. It is safe for concurrent use; several processes
// on one database report each step once.
type Simulator struct {
	store storage.Store
	demo  *Demo
	opts  SimulatorOptions
	rates Rates
}

// routeRecord is a parcel's route as stored: what it was planned from,
// its steps and how many were reported.
type routeRecord struct {
	Schema         int         `json:"schema"`
	Key            string      `json:"key"`
	Site           string      `json:"site"`
	TrackingNumber string      `json:"tracking_number"`
	ProductRef     string      `json:"product_ref"`
	Direction      string      `json:"direction"`
	DeliveryType   string      `json:"delivery_type"`
	Location       string      `json:"location,omitempty"`
	BookedAt       time.Time   `json:"booked_at"`
	Pickup         *spanRecord `json:"pickup,omitempty"`
	Scale          float64     `json:"scale,omitempty"`
	Outcome        string      `json:"outcome"`
	// Scenario is the test scenario the route follows, if any.
	Scenario  string       `json:"scenario,omitempty"`
	Steps     []stepRecord `json:"steps"`
	Next      int          `json:"next"`
	Cancelled bool         `json:"cancelled,omitempty"`
}

type stepRecord struct {
	At       time.Time   `json:"at"`
	Step     string      `json:"step,omitempty"`
	Alert    string      `json:"alert,omitempty"`
	Estimate *spanRecord `json:"estimate,omitempty"`
	// Exception is the exception the carrier reports with the step
	// (tracking's ExceptionStatus names).
	Exception string `json:"exception,omitempty"`
}

type spanRecord struct {
	Earliest time.Time `json:"earliest"`
	Latest   time.Time `json:"latest"`
}

// timeRange is the span as events carry it; nil for none.
func (s *spanRecord) timeRange() *event.TimeRange {
	if s == nil {
		return nil
	}
	return &event.TimeRange{Earliest: s.Earliest, Latest: s.Latest}
}

const routeSchema = 1

var (
	// routes are keyed by tracking number.
	routes = storage.Collection[routeRecord]{Name: "carrier.sim.routes"}
	// due holds one key per route with steps left: the next step's time,
	// then the tracking number.
	due = queue.NewIndex[string]("carrier.sim.due")
)

func dueKey(r *routeRecord) string { return queue.Key(r.Steps[r.Next].At, r.TrackingNumber) }

// schedule and unschedule add and remove r's due entry, at its next
// step: a route with no steps left has none.
func schedule(tx storage.Tx, r *routeRecord) error {
	if r.Next >= len(r.Steps) {
		return nil
	}
	_, err := due.Collection.Put(tx, dueKey(r), r.TrackingNumber, storage.AnyVersion)
	return err
}

func unschedule(tx storage.Tx, r *routeRecord) error {
	if r.Next >= len(r.Steps) {
		return nil
	}
	return due.Collection.Delete(tx, dueKey(r), storage.AnyVersion)
}

// create stores r, a route new to tx, with its due entry; a route
// planned already (a key booked again, an event delivered again) keeps
// what it has.
func create(tx storage.Tx, r *routeRecord) error {
	if _, err := routes.Get(tx, r.TrackingNumber); !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if _, err := routes.Put(tx, r.TrackingNumber, *r, storage.MustNotExist()); err != nil {
		return err
	}
	return schedule(tx, r) // none for a route that reports nothing (NO_UPDATES)
}

// NewSimulator returns a simulator keeping its bookings and routes in
// store. Build it on the outbox's Store so that the steps it reports are
// delivered as soon as they are written.
func NewSimulator(store storage.Store, opts SimulatorOptions) (*Simulator, error) {
	demo, err := NewDemo(store, opts.Demo)
	if err != nil {
		return nil, err
	}
	s := &Simulator{store: store, demo: demo, opts: opts, rates: DefaultRates}
	if opts.Rates != nil {
		s.rates = *opts.Rates
	}
	if err := s.rates.check(); err != nil {
		return nil, err
	}
	if !(opts.TimeScale >= 0) || opts.TimeScale > 1e6 {
		return nil, fmt.Errorf("carrier: TimeScale must be between 0 and 1e6, got %v", opts.TimeScale)
	}
	if opts.PickupHold < 0 {
		return nil, errors.New("carrier: PickupHold must not be negative")
	}
	s.opts.PickupHold = cmp.Or(opts.PickupHold, DefaultPickupHold)
	s.opts.Batch = cmp.Or(max(opts.Batch, 0), DefaultSimulatorBatch)
	s.opts.Timetables = cmp.Or[Timetables](s.opts.Timetables, WeekdayTimetable{})
	s.opts.Clock = cmp.Or[deliverykit.Clock](s.opts.Clock, deliverykit.SystemClock{})
	s.opts.Logger = cmp.Or(s.opts.Logger, slog.Default())
	return s, nil
}

// timetable is the product's timetable for goods ready at ready: the
// configured one, else WeekdayTimetable.
func (s *Simulator) timetable(site, ref, location string, ready time.Time) Timetable {
	if t, ok := s.opts.Timetables.Timetable(site, ref, location, ready, lateDays); ok && t.usable() {
		return t
	}
	t, _ := WeekdayTimetable{}.Timetable(site, ref, location, ready, lateDays)
	return t
}

// input is what the route of r is planned from, with outcome forced
// unless it is empty.
func (s *Simulator) input(r *routeRecord, outcome Outcome) planInput {
	in := planInput{
		key: r.Key, kind: kindOf(shipment.DirectionType(r.Direction), shipment.DeliveryType(r.DeliveryType)),
		bookedAt: r.BookedAt, outcome: outcome, rates: s.rates, hold: s.opts.PickupHold, scale: r.Scale, seed: s.opts.Seed,
		timetable: func(ready time.Time) Timetable { return s.timetable(r.Site, r.ProductRef, r.Location, ready) },
		scenario:  Scenario(r.Scenario),
	}
	if p := r.Pickup; p != nil {
		in.pickup = &shipment.TimeSpan{Start: p.Earliest, End: p.Latest}
	}
	return in
}

// Book implements shipment.Carrier: it books as the demo carrier does and
// plans the parcel's route in the same transaction. Booking a key again
// returns the same booking and keeps its route. With
// SimulatorOptions.Scenarios, the booking's scenario decides the route and
// a fault (its own or its site's) answers instead of a booking.
func (s *Simulator) Book(ctx context.Context, req shipment.BookingRequest) (shipment.Booking, error) {
	if req.Key == "" {
		return shipment.Booking{}, deliverykit.E(deliverykit.KindInternal, "carrier: booking without a key")
	}
	var sc Scenario
	if s.opts.Scenarios {
		var fault Fault
		var err error
		if sc, fault, err = parseCode(scenarioField, req.Scenario); err != nil {
			return shipment.Booking{}, err
		}
		if fault != "" {
			return shipment.Booking{}, faultError(fault)
		}
	}
	r := routeRecord{
		Schema: routeSchema, Key: req.Key, Site: req.Site, ProductRef: req.Product.Ref,
		Direction: string(cmp.Or(req.Direction, shipment.DirectionOutbound)), DeliveryType: string(cmp.Or(req.DeliveryType, req.Product.DeliveryType)),
		BookedAt: s.opts.Clock.Now().UTC(), Scale: s.opts.TimeScale, Scenario: string(sc),
	}
	if req.Pickup != nil {
		r.Location = req.Pickup.ID
	}
	// Planning reads the timetable: it is done before the transaction,
	// which only writes.
	outcome, steps := plan(s.input(&r, ""))
	r.Outcome, r.Steps = string(outcome), steps
	var b Booking
	err := s.store.Update(ctx, func(tx storage.Tx) (err error) {
		if s.opts.Scenarios {
			// The site's faults are read in the booking's transaction:
			// a booking fails or books, never both.
			fs, err := faultsOf(tx, req.Site)
			if err != nil {
				return err
			}
			if len(fs) > 0 {
				return faultError(fs[0])
			}
		}
		if b, err = s.demo.book(tx, req); err != nil {
			return err
		}
		rec := r
		rec.TrackingNumber = b.TrackingNumber
		return create(tx, &rec)
	})
	if err != nil {
		return shipment.Booking{}, err
	}
	return s.demo.answer(b), nil
}

// BookPickup implements shipment.Carrier: it records the window, as the
// demo carrier does, and a parcel not collected yet is planned again to
// be collected within it.
func (s *Simulator) BookPickup(ctx context.Context, req shipment.PickupRequest) error {
	return s.replan(ctx, req.TrackingNumber, func(r *routeRecord) (bool, error) {
		if r.Cancelled || r.Next > 0 {
			return false, nil // collected already: the window changes nothing
		}
		r.Pickup = &spanRecord{Earliest: req.Window.Start.UTC(), Latest: req.Window.End.UTC()}
		_, r.Steps = plan(s.input(r, Outcome(r.Outcome)))
		return true, nil
	}, func(tx storage.Tx) error { return s.demo.bookPickup(tx, req) })
}

// HandOver implements shipment.HandOverCarrier: the manifest is the
// hand-over, so each of its parcels not collected yet is planned again to
// be submitted to the carrier (STEP_SUBMITTED_TO_CARRIER) within the
// pickup's window, as a booked pickup of its own would be. Parcels of
// another site, cancelled, collected already or planned for the window
// already keep their routes; a tracking number the simulator never booked
// is left alone, as a carrier ignores a line of a manifest it cannot
// read.
func (s *Simulator) HandOver(ctx context.Context, req shipment.HandOverRequest) error {
	w := &spanRecord{Earliest: req.Window.Start.UTC(), Latest: req.Window.End.UTC()}
	for _, tn := range req.TrackingNumbers {
		err := s.replan(ctx, tn, func(r *routeRecord) (bool, error) {
			if r.Site != req.Site || r.Cancelled || r.Next > 0 || (r.Pickup != nil && r.Pickup.Earliest.Equal(w.Earliest) && r.Pickup.Latest.Equal(w.Latest)) {
				return false, nil
			}
			r.Pickup = w
			_, r.Steps = plan(s.input(r, Outcome(r.Outcome)))
			return true, nil
		}, nil)
		if err != nil {
			return fmt.Errorf("carrier: handing over %s: %w", tn, err)
		}
	}
	return nil
}

// replan reads tn's route, lets change plan it again outside any
// transaction (it reports whether it did), and writes it with also's
// writes, unless the route changed meanwhile, in which case it starts
// over (a sweep reported a step).
func (s *Simulator) replan(ctx context.Context, tn string, change func(*routeRecord) (bool, error), also func(storage.Tx) error) error {
	for attempt := 0; ; attempt++ {
		r, version, err := s.read(ctx, tn)
		found := err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		changed := false
		if found {
			if changed, err = change(&r); err != nil {
				return err
			}
		}
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			if also != nil {
				if err := also(tx); err != nil {
					return err
				}
			}
			if !changed {
				return nil
			}
			rr := r
			return s.replace(tx, tn, version, &rr)
		})
		if !errors.Is(err, errMoved) || attempt == 3 {
			return err
		}
	}
}

// Cancel implements shipment.Carrier: the booking is cancelled as the
// demo carrier cancels it, and its parcel reports nothing more.
func (s *Simulator) Cancel(ctx context.Context, req shipment.CancelRequest) error {
	return s.store.Update(ctx, func(tx storage.Tx) error {
		tn, err := s.demo.cancel(tx, req)
		if err != nil || tn == "" {
			return err
		}
		it, err := routes.Get(tx, tn)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		r := it.Value
		if err := unschedule(tx, &r); err != nil {
			return err
		}
		r.Cancelled = true
		_, err = routes.Put(tx, tn, r, storage.VersionIs(it.Version))
		return err
	})
}

// CheckTrackingNumber implements shipment.Carrier: s must be an S10
// number.
func (s *Simulator) CheckTrackingNumber(tn string) error { return CheckS10(tn) }

// Lookup returns what the simulator knows about a booking, as
// Demo.Lookup does.
func (s *Simulator) Lookup(ctx context.Context, trackingNumber string) (Booking, error) {
	return s.demo.Lookup(ctx, trackingNumber)
}

// read returns the route of a tracking number and its version.
func (s *Simulator) read(ctx context.Context, tn string) (routeRecord, uint64, error) {
	var it storage.Item[routeRecord]
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		it, err = routes.Get(tx, tn)
		return err
	})
	return it.Value, it.Version, err
}

// errMoved: a route changed between its read and its replan.
var errMoved = deliverykit.E(deliverykit.KindConflict, "carrier: the route changed meanwhile")

// replace writes r, replanned from the route at version, keeping the
// steps already reported and moving the route's due entry.
func (s *Simulator) replace(tx storage.Tx, tn string, version uint64, r *routeRecord) error {
	it, err := routes.Get(tx, tn)
	if err != nil {
		return err
	}
	if it.Version != version {
		return errMoved
	}
	old := it.Value
	if err := unschedule(tx, &old); err != nil {
		return err
	}
	// Steps reported stay; of the new plan, what comes after them.
	steps := append([]stepRecord(nil), old.Steps[:old.Next]...)
	for _, st := range r.Steps {
		if old.Next == 0 || st.At.After(old.Steps[old.Next-1].At) {
			steps = append(steps, st)
		}
	}
	r.Steps, r.Next = steps, old.Next
	if _, err := routes.Put(tx, tn, *r, storage.VersionIs(it.Version)); err != nil {
		return err
	}
	return schedule(tx, r)
}

// SetOutcome makes the parcel's journey end with outcome from here on:
// its route is planned again with it, the steps reported stay, and the
// new plan's steps after the last of them follow. A test makes a parcel
// late this way. An outcome that cannot happen to the parcel (a failed
// attempt at a pickup point) is InvalidArgument; a route that is over,
// or cancelled, is FailedPrecondition. A test scenario's route, NO_UPDATES
// too, leaves its scenario for the outcome's plan.
func (s *Simulator) SetOutcome(ctx context.Context, trackingNumber string, outcome Outcome) error {
	found := false
	err := s.replan(ctx, trackingNumber, func(r *routeRecord) (bool, error) {
		found = true
		if err := checkOutcome(kindOf(shipment.DirectionType(r.Direction), shipment.DeliveryType(r.DeliveryType)), outcome); err != nil {
			return false, err
		}
		if r.Cancelled || (r.Next >= len(r.Steps) && r.Scenario != string(ScenarioNoUpdates)) {
			return false, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the route of %s is over", trackingNumber)
		}
		r.Scenario = "" // the outcome set wins over a test scenario
		_, r.Steps = plan(s.input(r, outcome))
		r.Outcome = string(outcome)
		return true, nil
	}, nil)
	if err == nil && !found {
		return &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "parcel not found",
			Violations: []deliverykit.FieldViolation{{Field: "tracking_number", Rule: "exists", Message: "names no parcel of the simulator"}}}
	}
	return err
}

// Dispatch reports the steps due at the clock's time, of at most
// Options.Batch routes, and returns how many it reported. Each route's
// due steps are written to the outbox in one transaction with the route's
// progress, so a step is reported once, however many processes sweep.
func (s *Simulator) Dispatch(ctx context.Context) (int, error) {
	now := s.opts.Clock.Now().UTC()
	return queue.Drain(ctx, s.store, due, now, s.opts.Batch, func(e queue.Entry[string]) (string, bool) { return e.Key, true },
		func(k string) (int, error) {
			_, tn, _ := strings.Cut(k, storage.KeySep)
			return s.report(ctx, k, tn, now)
		})
}

// report writes the steps of tn's route due at now to the outbox.
func (s *Simulator) report(ctx context.Context, key, tn string, now time.Time) (int, error) {
	n := 0
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		n = 0
		it, err := routes.Get(tx, tn)
		if errors.Is(err, storage.ErrNotFound) {
			return due.Collection.Delete(tx, key, storage.AnyVersion)
		}
		if err != nil {
			return err
		}
		r := it.Value
		if r.Cancelled || r.Next >= len(r.Steps) || dueKey(&r) != key {
			return nil // moved by a replan or a cancellation meanwhile
		}
		for ; r.Next < len(r.Steps) && !r.Steps[r.Next].At.After(now); r.Next++ {
			if err := s.add(tx, &r, r.Steps[r.Next]); err != nil {
				return err
			}
			n++
		}
		if err := due.Collection.Delete(tx, key, storage.AnyVersion); err != nil {
			return err
		}
		if _, err := routes.Put(tx, tn, r, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		return schedule(tx, &r)
	})
	if errors.Is(err, deliverykit.ErrConflict) {
		return 0, nil // another sweep reported them
	}
	if err == nil && n > 0 {
		s.opts.Logger.DebugContext(ctx, "carrier simulator reported", "tracking_number", tn, "steps", n)
	}
	return n, err
}

// add writes one step of r to the outbox.
func (s *Simulator) add(tx storage.Tx, r *routeRecord, st stepRecord) error {
	p := event.CarrierEventReported{TrackingNumber: r.TrackingNumber, ProductRef: r.ProductRef, Step: st.Step, Alert: st.Alert,
		Exception: st.Exception, Time: st.At, Source: SourceSimulator, Estimate: st.Estimate.timeRange()}
	ev, err := event.New("", r.Site, r.TrackingNumber, st.At, p)
	if err != nil {
		return err
	}
	return outbox.Add(tx, ev)
}

// NextDue returns when the next planned step falls due; false when no
// route has steps left.
func (s *Simulator) NextDue(ctx context.Context) (time.Time, bool, error) {
	return queue.NextDue(ctx, s.store, due)
}

// Step is Dispatch: the round of background work that
// wiring.Services.Run runs every interval.
func (s *Simulator) Step(ctx context.Context) (int, error) { return s.Dispatch(ctx) }

// Route is a parcel's planned journey, as the simulator keeps it.
type Route struct {
	TrackingNumber string
	Site           string
	ProductRef     string
	Direction      shipment.DirectionType
	DeliveryType   shipment.DeliveryType
	Outcome        Outcome
	// Scenario is the test scenario the route follows, if any.
	Scenario Scenario
	BookedAt time.Time
	// Steps are the planned steps and alerts, in time order; the first
	// Reported of them were reported.
	Steps     []PlannedStep
	Reported  int
	Cancelled bool
}

// PlannedStep is one step or alert of a route, with the exception the
// carrier reports with it, if any.
type PlannedStep struct {
	At        time.Time
	Step      string
	Alert     string
	Exception string
	Estimate  *event.TimeRange
}

// Route returns the route of a tracking number (NotFound when the
// simulator booked none with it).
func (s *Simulator) Route(ctx context.Context, trackingNumber string) (Route, error) {
	r, _, err := s.read(ctx, trackingNumber)
	if errors.Is(err, storage.ErrNotFound) {
		return Route{}, deliverykit.E(deliverykit.KindNotFound, "parcel not found")
	}
	if err != nil {
		return Route{}, err
	}
	out := Route{TrackingNumber: r.TrackingNumber, Site: r.Site, ProductRef: r.ProductRef, Direction: shipment.DirectionType(r.Direction),
		DeliveryType: shipment.DeliveryType(r.DeliveryType), Outcome: Outcome(r.Outcome), Scenario: Scenario(r.Scenario), BookedAt: r.BookedAt,
		Reported: r.Next, Cancelled: r.Cancelled}
	for _, st := range r.Steps {
		out.Steps = append(out.Steps, PlannedStep{At: st.At, Step: st.Step, Alert: st.Alert, Exception: st.Exception, Estimate: st.Estimate.timeRange()})
	}
	return out, nil
}

var _ shipment.HandOverCarrier = (*Simulator)(nil)
