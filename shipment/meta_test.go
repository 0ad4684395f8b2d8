package shipment_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A delivery's meta is bounded: entries, key and value lengths, each
// refused naming the delivery's meta.
func TestDeliveryMetaBounds(t *testing.T) {
	entries := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("k%02d", i)] = "v"
		}
		return m
	}
	long := strings.Repeat("k", 65)
	tests := []struct {
		name string
		meta map[string]string
		want []deliverykit.FieldViolation // nil: accepted
	}{
		{"none", nil, nil},
		{"16 entries", entries(16), nil},
		{"longest key and value", map[string]string{strings.Repeat("k", 64): strings.Repeat("v", 256)}, nil},
		{"17 entries", entries(17), []deliverykit.FieldViolation{{Field: "parcels[0].deliveries[0].meta", Rule: "max", Message: "must have at most 16 entries"}}},
		{"key too long", map[string]string{long: "v"}, []deliverykit.FieldViolation{{Field: "parcels[0].deliveries[0].meta[" + long + "]", Rule: "max", Message: "must be at most 64 characters long"}}},
		{"value too long", map[string]string{"note": strings.Repeat("v", 257)}, []deliverykit.FieldViolation{{Field: "parcels[0].deliveries[0].meta[note]", Rule: "max", Message: "must be at most 256 characters long"}}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := parcel("np-home")
			p.Deliveries[0].Meta = tt.meta
			sh, err := f.svc.Create(ctx, site, request(fmt.Sprintf("EXT-%d", i), p))
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.meta, sh.Parcels[0].Deliveries[0].Meta); diff != "" {
					t.Errorf("meta (-sent +shown):\n%s", diff)
				}
				return
			}
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("%v: want invalid argument", err)
			}
			if diff := cmp.Diff(tt.want, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// recordingCarrier is the demo carrier, remembering the scenario of each
// booking.
type recordingCarrier struct {
	*carrier.Demo
	mu        sync.Mutex
	scenarios []string
}

func (c *recordingCarrier) Book(ctx context.Context, req shipment.BookingRequest) (shipment.Booking, error) {
	c.mu.Lock()
	c.scenarios = append(c.scenarios, req.Key+" "+req.Scenario)
	c.mu.Unlock()
	return c.Demo.Book(ctx, req)
}

// Meta is kept with the delivery (stored, read back, copied to a parcel
// added like it), and its test_scenario reaches the carrier with the
// booking.
func TestDeliveryMetaKeptAndScenarioBooked(t *testing.T) {
	var rc *recordingCarrier
	f := newFixtureWith(t, func(o *shipment.Options) {
		demo, err := carrier.NewDemo(memory.New(), carrier.DemoOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rc = &recordingCarrier{Demo: demo}
		o.Carriers = map[string]shipment.Carrier{"north": rc}
	})
	p := parcel("np-home", "np-point")
	p.Deliveries[0].Meta = map[string]string{shipment.MetaTestScenario: "LOST", "note": "fragile"}
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-1", p)))
	sh = must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	got := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID}))
	if diff := cmp.Diff(map[string]string{"test_scenario": "LOST", "note": "fragile"}, got.Parcels[0].Deliveries[0].Meta); diff != "" {
		t.Errorf("stored meta (-want +got):\n%s", diff)
	}
	if m := got.Parcels[0].Deliveries[1].Meta; m != nil {
		t.Errorf("meta %v of a delivery sent without", m)
	}
	d1, d2 := sh.Parcels[0].Deliveries[0].ID, sh.Parcels[0].Deliveries[1].ID
	want := []string{site + "/" + d1 + " LOST", site + "/" + d2 + " "}
	if diff := cmp.Diff(want, rc.scenarios); diff != "" {
		t.Errorf("bookings (-want +got):\n%s", diff)
	}
}

// A test carrier's refusals answer the client: an unknown scenario names
// the delivery's meta.test_scenario, a rejection is a failed precondition
// with the carrier's reason, and nothing is booked.
func TestDeliveryScenarioRefused(t *testing.T) {
	tests := []struct {
		code  string
		kind  deliverykit.Kind
		field string
	}{
		{"NOPE", deliverykit.KindInvalidArgument, "parcels[0].deliveries[1].meta.test_scenario"},
		{"BOOKING_REJECTED", deliverykit.KindFailedPrecondition, ""},
		{"CARRIER_UNAVAILABLE", deliverykit.KindUnavailable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			store := memory.New()
			sim, err := carrier.NewSimulator(store, carrier.SimulatorOptions{Scenarios: true, Clock: deliverykit.NewManualClock(t0)})
			if err != nil {
				t.Fatal(err)
			}
			f := newFixtureWithOn(t, store, func(o *shipment.Options) { o.Carriers = map[string]shipment.Carrier{"north": sim} })
			p := parcel("np-home", "np-point")
			p.Deliveries[1].Meta = map[string]string{shipment.MetaTestScenario: tt.code}
			_, err = f.svc.CreateAndBook(ctx, site, request("EXT-1", p))
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
			if n := len(f.booked(t)); n != 0 {
				t.Errorf("%d parcels reported booked, want none", n)
			}
		})
	}
}

// A parcel added to a booked shipment is booked at once: a refused
// scenario is named under the request's parcel.
func TestAddParcelScenarioRefused(t *testing.T) {
	store := memory.New()
	sim, err := carrier.NewSimulator(store, carrier.SimulatorOptions{Scenarios: true, Clock: deliverykit.NewManualClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWithOn(t, store, func(o *shipment.Options) { o.Carriers = map[string]shipment.Carrier{"north": sim} })
	sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("EXT-1")))
	p := parcel("np-home")
	p.Deliveries[0].Meta = map[string]string{shipment.MetaTestScenario: "NOPE"}
	_, err = f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: sh.ID, Parcel: &p})
	if diff := cmp.Diff([]string{"parcel.deliveries[0].meta.test_scenario oneof"}, violationFields(err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func violationFields(err error) []string {
	var out []string
	for _, v := range deliverykit.ViolationsOf(err) {
		out = append(out, v.Field+" "+v.Rule)
	}
	return out
}
