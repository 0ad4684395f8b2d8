package wiring_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
)

// With Simulate, a booked parcel travels by itself: each step the
// simulator reports reaches tracking (as POST /parcel.event would), the
// first confirms the shipment's pickup, and the customer is notified.
func TestSimulatedParcelTravels(t *testing.T) {
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	sender := notify.NewLogSender(quiet)
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		Senders:  map[notify.Channel]notify.Sender{notify.ChannelEmail: sender},
		Simulate: &carrier.SimulatorOptions{Rates: &carrier.Rates{}}})
	if err != nil {
		t.Fatal(err)
	}
	if svcs.Simulator == nil {
		t.Fatal("no simulator")
	}
	ctx := t.Context()
	sh, err := svcs.Shipment.CreateAndBook(ctx, "demo-site", shipment.CreateShipmentRequest{ExternalID: "ORD-1", ShippingMethod: "north-parcel-point",
		Sender: &shipment.Sender{Name: "Demo Outdoor Warehouse", Address: &shipment.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm", Country: "SE"}},
		Receiver: &shipment.Receiver{Name: "Alva Berg", Email: "alva@example.com",
			Address: &shipment.Address{AddressLines: []string{"Storgatan 5"}, PostalCode: "753 20", City: "Uppsala", Country: "SE"}},
		Parcels: []shipment.ParcelInput{{Weight: 1200, Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "north-parcel-point",
			Pickup: &shipment.Pickup{ID: "np-se-101", Address: &shipment.Address{AddressLines: []string{"Sergels torg 12"}, PostalCode: "111 57", City: "Stockholm", Country: "SE"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber
	route, err := svcs.Simulator.Route(ctx, tn)
	if err != nil {
		t.Fatal(err)
	}
	// The route follows the demo catalog: collected at the 15:00
	// cut-off (Stockholm), delivered within the product's 1–3 days.
	sto, _ := time.LoadLocation("Europe/Stockholm")
	if est := route.Steps[0].Estimate; !est.Earliest.Equal(time.Date(2026, 11, 24, 0, 0, 0, 0, sto)) || !est.Latest.Equal(time.Date(2026, 11, 26, 23, 59, 59, 0, sto)) {
		t.Errorf("estimate %v – %v, want Tuesday to Thursday", est.Earliest, est.Latest)
	}
	for {
		at, ok, err := svcs.Simulator.NextDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		clock.Set(at)
		if _, err := svcs.Simulator.Dispatch(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := svcs.Notify.Dispatch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	res, err := svcs.Tracking.Parcels(ctx, "demo-site", tracking.ParcelsQuery{TrackingNumber: tn})
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, p := range res.Parcels[0].ProgressHistory {
		got = append(got, p.Time+" "+string(p.Step))
	}
	for _, s := range route.Steps {
		want = append(want, s.At.Format(time.RFC3339)+" "+s.Step)
	}
	slices.Reverse(want) // progress_history is newest first
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tracking progress (-route +tracking):\n%s", diff)
	}
	d, err := svcs.Shipment.GetDelivery(ctx, "demo-site", tn)
	if err != nil {
		t.Fatal(err)
	}
	if d.State != shipment.DeliveryPickedUp || !d.PickedUpAt.Equal(route.Steps[0].At) {
		t.Errorf("delivery %s picked up at %v, want PICKED_UP at %v", d.State, d.PickedUpAt, route.Steps[0].At)
	}
	var sent []notify.Name
	for _, m := range sender.Sent() {
		sent = append(sent, m.Name)
	}
	if diff := cmp.Diff([]notify.Name{notify.NameSubmittedToCarrier, notify.NameReadyForPickup, notify.NameDeliveredToConsumer}, sent); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

// Without Simulate the demo carrier books and nothing moves.
func TestNoSimulatorByDefault(t *testing.T) {
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if svcs.Simulator != nil {
		t.Error("a simulator without Simulate")
	}
}
