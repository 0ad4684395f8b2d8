package shipment_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

var testProducts = shipment.StaticProducts{
	"np-home":  {Ref: "np-home", CarrierID: "north", CarrierName: "North Parcel", Name: "Home Delivery", DeliveryType: shipment.DeliveryDelivery},
	"np-point": {Ref: "np-point", CarrierID: "north", CarrierName: "North Parcel", Name: "Service Point", DeliveryType: shipment.DeliveryPickup},
	"wh-leg":   {Ref: "wh-leg", CarrierID: "north", CarrierName: "North Parcel", Name: "Warehouse Linehaul", DeliveryType: shipment.DeliveryInwarehouse},
	"nowhere":  {Ref: "nowhere", CarrierID: "ghost", CarrierName: "Ghost", Name: "No Integration", DeliveryType: shipment.DeliveryDelivery},
}

// spyCarrier wraps the demo carrier, records every call and fails the
// calls the test asks it to.
type spyCarrier struct {
	*carrier.Demo
	mu         sync.Mutex
	calls      []string
	failBookAt int // fail the n-th Book call (1-based); 0 never
	books      int
	failPickup bool
	failCancel bool
}

var errCarrierDown = errors.New("carrier is down")

func (c *spyCarrier) log(s string) {
	c.mu.Lock()
	c.calls = append(c.calls, s)
	c.mu.Unlock()
}

func (c *spyCarrier) Book(ctx context.Context, req shipment.BookingRequest) (shipment.Booking, error) {
	c.mu.Lock()
	c.books++
	fail := c.books == c.failBookAt
	c.mu.Unlock()
	if fail {
		c.log("book-failed " + req.Key)
		return shipment.Booking{}, errCarrierDown
	}
	b, err := c.Demo.Book(ctx, req)
	c.log("book " + req.Key + " " + b.TrackingNumber)
	return b, err
}

func (c *spyCarrier) BookPickup(ctx context.Context, req shipment.PickupRequest) error {
	if c.failPickup {
		c.log("pickup-failed " + req.TrackingNumber)
		return errCarrierDown
	}
	c.log("pickup " + req.TrackingNumber + " " + req.Window.Start.Format(time.RFC3339))
	return c.Demo.BookPickup(ctx, req)
}

func (c *spyCarrier) Cancel(ctx context.Context, req shipment.CancelRequest) error {
	if c.failCancel {
		return errCarrierDown
	}
	c.log("cancel " + req.Key + " " + req.TrackingNumber)
	return c.Demo.Cancel(ctx, req)
}

func (c *spyCarrier) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

// booked returns the parcels the service reported booked, in the order it
// wrote them to the outbox.
func (f *fixture) booked(t testing.TB) []event.ParcelBooked {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []event.ParcelBooked
	for _, ev := range evs {
		if ev.Type != event.TypeParcelBooked {
			continue
		}
		p, err := event.Decode[event.ParcelBooked](ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// numbers returns the tracking numbers of the parcels reported booked.
func (f *fixture) numbers(t testing.TB) []string {
	var out []string
	for _, p := range f.booked(t) {
		out = append(out, p.TrackingNumber)
	}
	return out
}

type fixture struct {
	svc     *shipment.Service
	store   storage.Store
	carrier *spyCarrier
	clock   *deliverykit.ManualClock
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, memory.New())
}

// newFixtureOn is newFixture on store.
func newFixtureOn(t testing.TB, store storage.Store) *fixture {
	t.Helper()
	return newFixtureWithOn(t, store, nil)
}

// newFixtureWith is newFixture with the options tweak changes.
func newFixtureWith(t testing.TB, tweak func(*shipment.Options)) *fixture {
	t.Helper()
	return newFixtureWithOn(t, memory.New(), tweak)
}

func newFixtureWithOn(t testing.TB, store storage.Store, tweak func(*shipment.Options)) *fixture {
	t.Helper()
	t.Cleanup(func() { store.Close() })
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{TrackingURL: "https://carrier.test/t/{tracking_number}"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: store, carrier: &spyCarrier{Demo: demo}, clock: deliverykit.NewManualClock(t0)}
	opts := shipment.Options{
		Products: testProducts,
		Carriers: map[string]shipment.Carrier{"north": f.carrier},
		// Tokens are sequential ids here; in production they are random.
		TrackingLink: func(token string) string { return "https://track.test/" + token },
		Clock:        f.clock,
		IDs:          &deliverykit.SequentialIDs{},
	}
	if tweak != nil {
		tweak(&opts)
	}
	f.svc, err = shipment.New(store, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const site = "site-1"

var ctx = context.Background()

func sender() *shipment.Sender {
	return &shipment.Sender{Name: "Demo Outdoor Warehouse", Address: &shipment.Address{
		AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm", Country: "SE"}}
}

func receiver() *shipment.Receiver {
	return &shipment.Receiver{Name: "Alva Berg", Email: "alva@example.com", Address: &shipment.Address{
		Street: "Storgatan", StreetNumber: "5", PostalCode: "753 20", City: "Uppsala", Country: "SE"}}
}

func parcel(refs ...string) shipment.ParcelInput {
	p := shipment.ParcelInput{Weight: 1250, Dimensions: &shipment.Dimensions{Length: 300, Width: 200, Height: 100},
		LineItems: []shipment.LineItem{{SKU: "TENT-2", Name: "Tent", Quantity: 1, Price: 129900, Currency: "SEK"}}}
	for _, r := range refs {
		d := shipment.DeliveryInput{CarrierProductRef: r}
		if r == "np-point" {
			d.Pickup = &shipment.Pickup{ID: "SP-1001", Address: &shipment.Address{Street: "Torget 1", PostalCode: "753 10", City: "Uppsala", Country: "SE"}}
		}
		p.Deliveries = append(p.Deliveries, d)
	}
	return p
}

// request is a valid create request: one parcel with one home delivery
// unless parcels are given.
func request(ext string, parcels ...shipment.ParcelInput) shipment.CreateShipmentRequest {
	if len(parcels) == 0 {
		parcels = []shipment.ParcelInput{parcel("np-home")}
	}
	return shipment.CreateShipmentRequest{ExternalID: ext, Reference: "ORD-1001", Sender: sender(), Receiver: receiver(), Parcels: parcels}
}

func pickupWindow() *shipment.DateTimeRangeStrict {
	return &shipment.DateTimeRangeStrict{Start: "2026-11-21T09:00:00Z", End: "2026-11-21T12:00:00Z"}
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// states lists the delivery states of a shipment in order.
func states(sh *shipment.Shipment) []shipment.DeliveryState {
	var out []shipment.DeliveryState
	for _, p := range sh.Parcels {
		for _, d := range p.Deliveries {
			out = append(out, d.State)
		}
	}
	return out
}

// numbers lists the tracking numbers of a shipment in order.
func numbers(sh *shipment.Shipment) []string {
	var out []string
	for _, p := range sh.Parcels {
		for _, d := range p.Deliveries {
			out = append(out, d.TrackingNumber)
		}
	}
	return out
}

func kindOf(err error) string {
	if err == nil {
		return "ok"
	}
	return deliverykit.KindOf(err).String()
}
