package carrier_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
)

// at is a time of the week of monday (23 November 2026), in UTC, the
// zone of WeekdayTimetable: collected Monday 16:00, estimate Tuesday and
// Wednesday.
func at(day, hour int) string {
	return time.Date(2026, 11, day, hour, 0, 0, 0, time.UTC).Format("Mon 02 Jan 15:04")
}

// journey is a route's steps with their times and exceptions.
func journey(r carrier.Route) []string {
	var out []string
	for _, s := range r.Steps {
		n := s.At.Format("Mon 02 Jan 15:04") + " " + s.Step + s.Alert
		if s.Exception != "" {
			n += "/" + s.Exception
		}
		out = append(out, n)
	}
	return out
}

// Each scenario follows its documented journey exactly, whatever the
// delivery type booked, on the product's timetable.
func TestSimulatorScenarios(t *testing.T) {
	home, point := shipment.DeliveryDelivery, shipment.DeliveryPickup
	out, ret := shipment.DirectionOutbound, shipment.DirectionReturn
	tests := []struct {
		scenario carrier.Scenario
		typ      shipment.DeliveryType
		dir      shipment.DirectionType
		want     []string
	}{
		{carrier.ScenarioDelivered, point, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(24, 7) + " " + ofd, at(24, 8) + " " + delivered}},
		{carrier.ScenarioPickupPoint, home, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(24, 8) + " " + atPoint, at(26, 8) + " " + delivered}},
		{carrier.ScenarioNotCollected, point, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(24, 8) + " " + atPoint,
			at(31, 8) + " " + sentBack + "/NOT_COLLECTED", at(32, 9) + " " + atMerchant}}, // 1 and 2 December
		{carrier.ScenarioFailedAttempt, home, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(24, 7) + " " + ofd, at(24, 8) + " " + failed,
			at(25, 7) + " " + ofd, at(25, 8) + " " + delivered}},
		{carrier.ScenarioDelayed, home, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(25, 7) + " " + delay, at(26, 7) + " " + ofd, at(26, 8) + " " + delivered}},
		{carrier.ScenarioLost, shipment.DeliveryMailbox, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(28, 16) + " " + terminated + "/LOST"}},
		{carrier.ScenarioReturnToSender, home, out, []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(24, 7) + " " + ofd, at(24, 8) + " " + failed,
			at(25, 7) + " " + ofd, at(25, 8) + " " + failed, at(26, 8) + " " + sentBack, at(27, 9) + " " + atMerchant}},
		{carrier.ScenarioNoUpdates, home, out, nil},
		{carrier.ScenarioReturnDroppedOff, home, out, []string{
			at(23, 10) + " " + sub, at(23, 17) + " " + onRoute, at(24, 9) + " " + atMerchant}},
		{carrier.ScenarioReturnDroppedOff, home, ret, []string{
			at(23, 10) + " " + sub, at(23, 17) + " " + onRoute, at(24, 9) + " " + atMerchant}},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %s", tt.scenario, tt.dir, tt.typ), func(t *testing.T) {
			e := newSim(t, carrier.SimulatorOptions{Seed: 7, Scenarios: true, Rates: &carrier.DefaultRates})
			req := bookingReq(i, tt.typ, tt.dir)
			req.Scenario = string(tt.scenario)
			tn := e.book(t, req)
			r := e.route(t, tn)
			if r.Scenario != tt.scenario {
				t.Errorf("scenario %q, want %q", r.Scenario, tt.scenario)
			}
			if diff := cmp.Diff(tt.want, journey(r)); diff != "" {
				t.Fatalf("journey (-want +got):\n%s", diff)
			}
			if len(r.Steps) > 0 {
				est := r.Steps[0].Estimate
				earliest, latest := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 25, 23, 59, 59, 0, time.UTC)
				if est == nil || !est.Earliest.Equal(earliest) || !est.Latest.Equal(latest) {
					t.Errorf("estimate %+v, want Tuesday to Wednesday", est)
				}
			}
			// Dispatch reports the journey as it falls due, and nothing
			// after it.
			reported := 0
			for _, s := range r.Steps {
				e.clock.Set(s.At)
				n, err := e.sim.Dispatch(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				reported += n
			}
			e.clock.Advance(30 * 24 * time.Hour)
			if n, err := e.sim.Dispatch(t.Context()); err != nil || n != 0 {
				t.Errorf("Dispatch after the journey: %d, %v; want 0", n, err)
			}
			if reported != len(r.Steps) {
				t.Errorf("reported %d steps, want %d", reported, len(r.Steps))
			}
			if _, ok, err := e.sim.NextDue(t.Context()); err != nil || ok {
				t.Errorf("NextDue after the journey: %v, %v", ok, err)
			}
		})
	}
}

// The table documents every code once, the nine scenarios and then the
// three faults, each with a summary.
func TestScenariosTable(t *testing.T) {
	var got []string
	for _, s := range carrier.Scenarios() {
		if s.Summary == "" {
			t.Errorf("%s has no summary", s.Code)
		}
		got = append(got, fmt.Sprintf("%s %v", s.Code, s.Fault))
	}
	want := []string{"DELIVERED false", "PICKUP_POINT false", "NOT_COLLECTED false", "FAILED_ATTEMPT false", "DELAYED false",
		"LOST false", "RETURN_TO_SENDER false", "NO_UPDATES false", "RETURN_DROPPED_OFF false",
		"BOOKING_REJECTED true", "CARRIER_UNAVAILABLE true", "LABEL_TIMEOUT true"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}

// count is how many records a collection holds.
func count(t *testing.T, s storage.Store, coll string) int {
	t.Helper()
	n := 0
	err := s.View(t.Context(), func(tx storage.Tx) error {
		for _, err := range tx.Scan(coll, storage.Range{}) {
			if err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A fault answers instead of a booking, with its kind, and books
// nothing; an unknown code is refused naming the field and the codes.
func TestSimulatorFaultsPerBooking(t *testing.T) {
	tests := []struct {
		code     string
		kind     deliverykit.Kind
		deadline bool
		message  string
	}{
		{"BOOKING_REJECTED", deliverykit.KindFailedPrecondition, false, "the carrier rejected the booking: the receiver's address is outside its service area (test fault BOOKING_REJECTED)"},
		{"CARRIER_UNAVAILABLE", deliverykit.KindUnavailable, false, "carrier: unavailable (test fault CARRIER_UNAVAILABLE)"},
		{"LABEL_TIMEOUT", deliverykit.KindUnavailable, true, "carrier: the label service did not answer in time (test fault LABEL_TIMEOUT): context deadline exceeded"},
		{"lost", deliverykit.KindInvalidArgument, false, "invalid request: meta.test_scenario: must be one of DELIVERED, PICKUP_POINT, NOT_COLLECTED, FAILED_ATTEMPT, DELAYED, LOST, RETURN_TO_SENDER, NO_UPDATES, RETURN_DROPPED_OFF, BOOKING_REJECTED, CARRIER_UNAVAILABLE, LABEL_TIMEOUT"},
	}
	for i, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			e := newSim(t, carrier.SimulatorOptions{Scenarios: true})
			req := bookingReq(i, shipment.DeliveryDelivery, shipment.DirectionOutbound)
			req.Scenario = tt.code
			_, err := e.sim.Book(t.Context(), req)
			if err == nil {
				t.Fatal("booked")
			}
			if k := deliverykit.KindOf(err); k != tt.kind {
				t.Errorf("kind %s, want %s", k, tt.kind)
			}
			if got := errors.Is(err, context.DeadlineExceeded); got != tt.deadline {
				t.Errorf("deadline exceeded %v, want %v", got, tt.deadline)
			}
			if err.Error() != tt.message {
				t.Errorf("message %q, want %q", err.Error(), tt.message)
			}
			for _, c := range []string{"carrier.demo.bookings", "carrier.sim.routes", "carrier.sim.due"} {
				if n := count(t, e.store, c); n != 0 {
					t.Errorf("%d records in %s, want none", n, c)
				}
			}
		})
	}
}

// A site's faults fail its bookings until they are cleared; then the
// same booking succeeds. Other sites book meanwhile.
func TestSimulatorSiteFaults(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Scenarios: true})
	ctx := t.Context()
	if err := e.sim.SetFaults(ctx, "site-1", []carrier.Fault{carrier.FaultCarrierUnavailable, carrier.FaultLabelTimeout, carrier.FaultCarrierUnavailable}); err != nil {
		t.Fatal(err)
	}
	got, err := e.sim.Faults(ctx, "site-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]carrier.Fault{carrier.FaultCarrierUnavailable, carrier.FaultLabelTimeout}, got); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
	req := bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound)
	req.Scenario = string(carrier.ScenarioLost)
	if _, err := e.sim.Book(ctx, req); !errors.Is(err, deliverykit.ErrUnavailable) {
		t.Fatalf("booking on a faulty site: %v, want unavailable", err)
	}
	if n := count(t, e.store, "carrier.demo.bookings"); n != 0 {
		t.Errorf("%d bookings on a faulty site, want none", n)
	}
	other := bookingReq(2, shipment.DeliveryDelivery, shipment.DirectionOutbound)
	other.Site, other.Key = "site-2", "site-2/shp_2-P1-D1"
	e.book(t, other)
	if err := e.sim.SetFaults(ctx, "site-1", nil); err != nil {
		t.Fatal(err)
	}
	if got, err := e.sim.Faults(ctx, "site-1"); err != nil || got != nil {
		t.Errorf("faults after clearing: %v, %v", got, err)
	}
	tn := e.book(t, req)
	if r := e.route(t, tn); r.Scenario != carrier.ScenarioLost {
		t.Errorf("scenario %q after the fault cleared, want LOST", r.Scenario)
	}
}

func TestSimulatorSetFaultsRefusals(t *testing.T) {
	on := newSim(t, carrier.SimulatorOptions{Scenarios: true}).sim
	off := newSim(t, carrier.SimulatorOptions{}).sim
	tests := []struct {
		name   string
		sim    *carrier.Simulator
		site   string
		faults []carrier.Fault
		kind   deliverykit.Kind
		field  string
	}{
		{"scenarios off", off, "site-1", []carrier.Fault{carrier.FaultLabelTimeout}, deliverykit.KindFailedPrecondition, ""},
		{"no site", on, "", []carrier.Fault{carrier.FaultLabelTimeout}, deliverykit.KindInvalidArgument, "site"},
		{"unknown", on, "site-1", []carrier.Fault{carrier.FaultLabelTimeout, "LOST"}, deliverykit.KindInvalidArgument, "faults[1]"},
		{"too many", on, "site-1", make([]carrier.Fault, 4), deliverykit.KindInvalidArgument, "faults"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.sim.SetFaults(t.Context(), tt.site, tt.faults)
			if k := deliverykit.KindOf(err); err == nil || k != tt.kind {
				t.Fatalf("%v: want %s", err, tt.kind)
			}
			var field string
			if vs := deliverykit.ViolationsOf(err); len(vs) > 0 {
				field = vs[0].Field
			}
			if field != tt.field {
				t.Errorf("field %q, want %q", field, tt.field)
			}
		})
	}
}

// Without Scenarios the magic values mean nothing: a scenario or fault
// code, or an unknown one, books the journey the same booking without a
// code gets.
func TestSimulatorIgnoresScenariosWhenOff(t *testing.T) {
	plain := newSim(t, carrier.SimulatorOptions{Seed: 3, Rates: &carrier.DefaultRates})
	want := plain.route(t, plain.book(t, bookingReq(1, shipment.DeliveryPickup, shipment.DirectionOutbound)))
	for _, code := range []string{"LOST", "NO_UPDATES", "BOOKING_REJECTED", "CARRIER_UNAVAILABLE", "nonsense"} {
		t.Run(code, func(t *testing.T) {
			e := newSim(t, carrier.SimulatorOptions{Seed: 3, Rates: &carrier.DefaultRates})
			req := bookingReq(1, shipment.DeliveryPickup, shipment.DirectionOutbound)
			req.Scenario = code
			got := e.route(t, e.book(t, req))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("route (-without code +with %s):\n%s", code, diff)
			}
		})
	}
}

// SetOutcome on a scenario's route plans the outcome instead, NO_UPDATES
// included.
func TestSimulatorSetOutcomeLeavesScenario(t *testing.T) {
	e := newSim(t, carrier.SimulatorOptions{Scenarios: true})
	req := bookingReq(1, shipment.DeliveryDelivery, shipment.DirectionOutbound)
	req.Scenario = string(carrier.ScenarioNoUpdates)
	tn := e.book(t, req)
	if err := e.sim.SetOutcome(t.Context(), tn, carrier.OutcomeOnTime); err != nil {
		t.Fatal(err)
	}
	r := e.route(t, tn)
	if diff := cmp.Diff([]string{sub, onRoute, ofd, delivered}, names(r)); diff != "" || r.Scenario != "" {
		t.Errorf("scenario %q, steps (-want +got):\n%s", r.Scenario, diff)
	}
	if !strings.HasPrefix(r.TrackingNumber, "CP") {
		t.Errorf("tracking number %s", r.TrackingNumber)
	}
}

func TestScenarioOfTrackingNumber(t *testing.T) {
	tests := []struct {
		tn   string
		want carrier.Scenario
	}{
		{"TESTLOST0001", carrier.ScenarioLost},
		{"TESTPICKUP_POINT-1", carrier.ScenarioPickupPoint},
		{"TESTDELIVERED", carrier.ScenarioDelivered},
		{"TESTRETURN_DROPPED_OFF42", carrier.ScenarioReturnDroppedOff},
		{"TESTRETURN_TO_SENDER", carrier.ScenarioReturnToSender},
		{"TESTNO_UPDATES_A", carrier.ScenarioNoUpdates},
		{"TESTlost0001", ""},
		{"TESTBOOKING_REJECTED1", ""}, // faults are for bookings only
		{"LOST0001", ""},
		{"XTESTLOST", ""},
		{"TEST", ""},
		{"CP000000001SE", ""},
	}
	for _, tt := range tests {
		got, ok := carrier.ScenarioOfTrackingNumber(tt.tn)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("ScenarioOfTrackingNumber(%q) = %q, %v; want %q", tt.tn, got, ok, tt.want)
		}
	}
}

// A parcel registered with tracking under a TEST<scenario> number travels
// as the scenario says, from its registration; once, however often the
// event comes. Other numbers, and every number without Scenarios, are
// left alone.
func TestSimulatorParcelRegistered(t *testing.T) {
	registered := func(tn string) event.Event {
		ev, err := event.New("evt_"+tn, "site-1", tn, monday, event.ParcelRegistered{TosID: "tos_1", OrderExternalID: "ORD-1", TrackingNumber: tn,
			ProductRef: "np-home", Direction: "OUTBOUND", DeliveryType: "PICKUP", RegisteredAt: monday})
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	tests := []struct {
		name      string
		scenarios bool
		tn        string
		want      []string // nil: no route
	}{
		{"lost", true, "TESTLOST0001", []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(28, 16) + " " + terminated + "/LOST"}},
		{"pickup point", true, "TESTPICKUP_POINT-1", []string{
			at(23, 16) + " " + sub, at(23, 18) + " " + onRoute, at(24, 8) + " " + atPoint, at(26, 8) + " " + delivered}},
		{"no scenario", true, "00370726201234567890", nil},
		{"scenarios off", false, "TESTLOST0001", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newSim(t, carrier.SimulatorOptions{Scenarios: tt.scenarios})
			for range 2 {
				if err := e.sim.HandleParcelRegistered(t.Context(), registered(tt.tn)); err != nil {
					t.Fatal(err)
				}
			}
			r, err := e.sim.Route(t.Context(), tt.tn)
			if tt.want == nil {
				if !errors.Is(err, deliverykit.ErrNotFound) {
					t.Errorf("route %+v, %v: want none", r, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, journey(r)); diff != "" {
				t.Errorf("journey (-want +got):\n%s", diff)
			}
			if n := count(t, e.store, "carrier.sim.due"); n != 1 {
				t.Errorf("%d due entries, want 1", n)
			}
		})
	}
}
