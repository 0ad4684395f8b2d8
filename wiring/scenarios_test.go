package wiring_test

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
)

// A shipment delivery's meta.test_scenario, on a simulator with
// Scenarios, decides what tracking shows once the clock has moved on: a
// LOST parcel ends with the LOST exception, a NO_UPDATES parcel gets no
// step and turns to the carrier's fallback after 48 hours.
func TestScenarioReachesTracking(t *testing.T) {
	tests := []struct {
		scenario   string
		steps      []string
		exceptions []string
		fallback   bool
	}{
		{"LOST", []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_TERMINATED"}, []string{"LOST"}, false},
		{"DELIVERED", []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_CONSUMER"}, nil, false},
		{"NO_UPDATES", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			booked := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC) // a Monday
			clock := deliverykit.NewManualClock(booked)
			svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
				Simulate: &carrier.SimulatorOptions{Scenarios: true}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			sh, err := svcs.Shipment.CreateAndBook(ctx, "demo-site", shipment.CreateShipmentRequest{ExternalID: "ORD-1", ShippingMethod: "north-parcel-point",
				Sender: &shipment.Sender{Name: "Demo Outdoor Warehouse", Address: &shipment.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm", Country: "SE"}},
				Receiver: &shipment.Receiver{Name: "Alva Berg", Email: "alva@example.com",
					Address: &shipment.Address{AddressLines: []string{"Storgatan 5"}, PostalCode: "753 20", City: "Uppsala", Country: "SE"}},
				Parcels: []shipment.ParcelInput{{Weight: 1200, Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "north-parcel-point",
					Meta:   map[string]string{shipment.MetaTestScenario: tt.scenario},
					Pickup: &shipment.Pickup{ID: "np-se-101", Address: &shipment.Address{AddressLines: []string{"Sergels torg 12"}, PostalCode: "111 57", City: "Stockholm", Country: "SE"}}}}}}})
			if err != nil {
				t.Fatal(err)
			}
			tn := sh.Parcels[0].Deliveries[0].TrackingNumber
			route, err := svcs.Simulator.Route(ctx, tn)
			if err != nil {
				t.Fatal(err)
			}
			runSimulator(t, svcs, clock, nil)
			parcel := func() tracking.PrivateParcel {
				t.Helper()
				res, err := svcs.Tracking.Orders(ctx, "demo-site", tracking.OrdersQuery{ExternalID: "ORD-1"})
				if err != nil || len(res.Orders) != 1 || len(res.Orders[0].Parcels) != 1 {
					t.Fatalf("tracking orders %+v, %v", res, err)
				}
				return res.Orders[0].Parcels[0]
			}
			if tt.fallback {
				clock.Set(booked.Add(48*time.Hour - time.Second))
				if parcel().CarrierFallbackEnabled {
					t.Errorf("carrier_fallback_enabled before 48 hours")
				}
				clock.Set(booked.Add(48 * time.Hour))
			}
			p := parcel()
			var steps, exceptions []string
			for _, s := range p.Progress {
				steps = append(steps, string(s.Step))
			}
			for _, x := range p.Exceptions {
				exceptions = append(exceptions, string(x.Status))
			}
			if diff := cmp.Diff(tt.steps, steps); diff != "" {
				t.Errorf("progress (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.exceptions, exceptions); diff != "" {
				t.Errorf("exceptions (-want +got):\n%s", diff)
			}
			if p.CarrierFallbackEnabled != tt.fallback {
				t.Errorf("carrier_fallback_enabled %v, want %v", p.CarrierFallbackEnabled, tt.fallback)
			}
			if tt.scenario == "LOST" {
				submitted, lost := route.Steps[0].At, route.Steps[len(route.Steps)-1].At
				if lost.Sub(submitted) != 5*24*time.Hour || p.Exceptions[0].CreatedAt != lost.Format(time.RFC3339) {
					t.Errorf("lost at %v (exception %s), submitted at %v: want 5 days after", lost, p.Exceptions[0].CreatedAt, submitted)
				}
			}
		})
	}
}

// A site's CARRIER_UNAVAILABLE fault fails the booking of a return's
// parcel, which the outbox retries: while the fault is on, every retry
// fails (and, past the outbox's attempts, the event is dead); once it is
// cleared, the next retry books the parcel.
func TestScenarioFaultRetriedThroughOutbox(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test", Logger: quiet,
		Simulate: &carrier.SimulatorOptions{Scenarios: true}, Outbox: outbox.Options{MaxAttempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	checkoutOrder(t, e, "order-88")
	if err := svcs.Simulator.SetFaults(ctx, "demo-site", []carrier.Fault{carrier.FaultCarrierUnavailable}); err != nil {
		t.Fatal(err)
	}
	status, body := e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-88",
		"email": "lukasz@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1}]}`)
	if status != 201 {
		t.Fatalf("customer return: %d %v", status, body)
	}
	id := strconv.FormatFloat(body["id"].(float64), 'f', -1, 64)
	type state struct {
		Booked        bool
		Pending, Dead int
	}
	look := func() state {
		t.Helper()
		stats, err := svcs.Outbox.Stats(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		return state{Booked: bookedReturn(t, svcs, id), Pending: stats.Pending, Dead: stats.Dead}
	}
	round := func() state {
		t.Helper()
		clock.Advance(time.Hour) // past any backoff
		if _, err := svcs.Outbox.Dispatch(ctx); err != nil {
			t.Fatal(err)
		}
		return look()
	}
	got := []state{look(), round(), round()}
	dead, err := svcs.Outbox.Dead(ctx, "demo-site", "", 10)
	if err != nil || len(dead) != 1 {
		t.Fatalf("dead events %+v, %v", dead, err)
	}
	// Retried while the fault is on: it fails again.
	if err := svcs.Outbox.Retry(ctx, "demo-site", dead[0].Event.ID); err != nil {
		t.Fatal(err)
	}
	got = append(got, round())
	if err := svcs.Simulator.SetFaults(ctx, "demo-site", nil); err != nil {
		t.Fatal(err)
	}
	got = append(got, round())
	want := []state{
		{Pending: 1},   // failed right after the commit
		{Pending: 1},   // failed again
		{Dead: 1},      // the third failure: dead
		{Pending: 1},   // retried by hand, failed again
		{Booked: true}, // the fault cleared: booked
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after each round (-want +got):\n%s", diff)
	}
}

// bookedReturn reports whether the return's parcel is booked.
func bookedReturn(t *testing.T, svcs *wiring.Services, id string) bool {
	t.Helper()
	sh, err := svcs.Shipment.Get(t.Context(), "demo-site", shipment.GetShipmentQuery{ExternalID: "return-" + id})
	return err == nil && len(sh.Parcels) == 1 && sh.Parcels[0].Deliveries[0].TrackingNumber != ""
}

// A parcel the merchant registers with tracking (area A) under a
// TEST<scenario> number travels as the scenario says on a simulator with
// Scenarios: TESTLOST0001 ends with the LOST exception five days after
// its hand-over. Without Scenarios the number means nothing.
func TestScenarioOfRegisteredParcel(t *testing.T) {
	for _, scenarios := range []bool{true, false} {
		t.Run("scenarios "+strconv.FormatBool(scenarios), func(t *testing.T) {
			clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
			svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
				Simulate: &carrier.SimulatorOptions{Scenarios: scenarios}})
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			tos, err := svcs.Tracking.CreateOrder(ctx, "demo-site", tracking.CreateTrackingOrderRequest{ExternalID: "SO-1", CarrierProductRef: "north-parcel-home",
				DeliveryType: tracking.OrderDeliveryDelivery, Sender: &tracking.Sender{Name: "Shop"}, Receiver: &tracking.Receiver{Name: "Alva Berg"},
				Destination: &tracking.Destination{Address: &deliverykit.Address{Street: "Storgatan", StreetNumber: "5", PostalCode: "753 20", City: "Uppsala", Country: "SE"}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := svcs.Tracking.CreateParcel(ctx, "demo-site", tracking.CreateParcelRequest{TosID: tos, TrackingNumber: "TESTLOST0001",
				CarrierProductRef: "north-parcel-home", DirectionType: tracking.DirectionOutbound}); err != nil {
				t.Fatal(err)
			}
			runSimulator(t, svcs, clock, nil)
			res, err := svcs.Tracking.Orders(ctx, "demo-site", tracking.OrdersQuery{ExternalID: "SO-1"})
			if err != nil || len(res.Orders) != 1 || len(res.Orders[0].Parcels) != 1 {
				t.Fatalf("tracking orders %+v, %v", res, err)
			}
			p := res.Orders[0].Parcels[0]
			var steps, exceptions []string
			for _, s := range p.Progress {
				steps = append(steps, s.Time+" "+string(s.Step))
			}
			for _, x := range p.Exceptions {
				exceptions = append(exceptions, x.CreatedAt+" "+string(x.Status))
			}
			type seen struct{ Steps, Exceptions []string }
			want := seen{}
			if scenarios {
				// The demo catalog collects at 15:00 in Stockholm (14:00 UTC).
				want = seen{
					Steps:      []string{"2026-11-23T14:00:00Z STEP_SUBMITTED_TO_CARRIER", "2026-11-23T16:00:00Z STEP_ON_ROUTE", "2026-11-28T14:00:00Z STEP_TERMINATED"},
					Exceptions: []string{"2026-11-28T14:00:00Z LOST"},
				}
			}
			if diff := cmp.Diff(want, seen{steps, exceptions}); diff != "" {
				t.Errorf("tracking (-want +got):\n%s", diff)
			}
		})
	}
}

// Over HTTP, meta.test_scenario picks the journey or the fault the same
// way: a scenario books (meta shown back), an unknown code is 400 naming
// it, a rejection is 400 with the carrier's reason, an unavailable
// carrier or label service is 503; without Scenarios every code books.
func TestScenarioOverHTTP(t *testing.T) {
	tests := []struct {
		code      string
		scenarios bool
		status    int
		want      any // the violated field, the error, or the meta shown
	}{
		{"LOST", true, 200, map[string]any{"test_scenario": "LOST"}},
		{"lost", true, 400, "parcels[0].deliveries[0].meta.test_scenario"},
		{"BOOKING_REJECTED", true, 400, "failed precondition: the carrier rejected the booking: the receiver's address is outside its service area (test fault BOOKING_REJECTED)"},
		{"CARRIER_UNAVAILABLE", true, 503, "unavailable: service unavailable, try again later"},
		{"LABEL_TIMEOUT", true, 503, "unavailable: service unavailable, try again later"},
		{"BOOKING_REJECTED", false, 200, map[string]any{"test_scenario": "BOOKING_REJECTED"}},
	}
	for _, tt := range tests {
		t.Run(tt.code+" "+strconv.FormatBool(tt.scenarios), func(t *testing.T) {
			cfg := config.Demo()
			clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
			svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
				Simulate: &carrier.SimulatorOptions{Scenarios: tt.scenarios}})
			if err != nil {
				t.Fatal(err)
			}
			e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
			bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
			status, body := e.do("POST", "/v1/som/shipments.createAndBook", bearer, `{"external_id": "ORD-1", "shipping_method": "north-parcel-home",
			  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
			  "receiver": {"name": "Alva Berg", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
			  "parcels": [{"weight": 1200, "deliveries": [{"meta": {"test_scenario": "`+tt.code+`"}}]}]}`)
			if status != tt.status {
				t.Fatalf("createAndBook: %d %v, want %d", status, body, tt.status)
			}
			var got any
			switch {
			case status == 200:
				got = get(body, "parcels", 0, "deliveries", 0, "meta")
			case tt.status == 400 && strings.HasPrefix(tt.want.(string), "parcels"):
				got = get(body, "details", 0, "field")
			default:
				got = body["error"]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s\n%v", diff, body)
			}
		})
	}
}
