// Package carrier holds the built-in carriers of the shipment area, which
// stand in for real carrier integrations in the example server and in
// tests while behaving like one where the shipment service relies on it:
// every call is idempotent on its key, and a key always yields the same
// tracking number, also after a restart when the store is a file.
//
// Demo books deliveries by issuing UPU S10 tracking numbers, records
// pickups and cancellations in a storage.Store, and validates S10 numbers
// on input; it reports nothing afterwards.
//
// Simulator books as Demo does and makes the parcels travel: in the
// booking's transaction it plans the parcel's route from the product's
// timetable (the checkout's calendar, through Timetables) and seeded
// randomness, and its Dispatch reports each step as it falls due, as an
// event.CarrierEventReported written to the outbox, where tracking
// records it as it records POST /parcel.event:
//
//	sim, _ := carrier.NewSimulator(dispatcher.Store(), carrier.SimulatorOptions{Timetables: tt, Seed: 1})
//	_, _ = sim.Step(ctx) // every second or so: wiring.Services.Run does it
//
// A route ends as its Outcome says: on time mostly, else late, after a
// failed attempt, sent back, lost, or collected after the pickup reminder
// (Rates); SetOutcome decides it for one parcel.
//
// A test site's simulator (SimulatorOptions.Scenarios) plays the Scenario
// a booking names (BookingRequest.Scenario) or a parcel registered with
// tracking under a TEST<code> number (HandleParcelRegistered), and
// answers with a Fault instead of booking when the booking or its site
// (SetFaults) asks for one; Scenarios lists the codes and their exact
// journeys. Without the option, these values mean nothing.
package carrier

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"unicode"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
)

// DemoOptions configures a Demo carrier.
type DemoOptions struct {
	// Service is the S10 service indicator, two upper-case letters.
	// Default "CP" (parcels).
	Service string
	// Country is the two-letter code ending every number. Default "SE".
	Country string
	// TrackingURL is the carrier's tracking page with "{tracking_number}"
	// where the number goes; empty for none.
	TrackingURL string
}

// Demo is the demo carrier. It is safe for concurrent use.
type Demo struct {
	store storage.Store
	opts  DemoOptions
}

// Booking is what the demo carrier knows about one key.
type Booking struct {
	Key            string             `json:"key"`
	TrackingNumber string             `json:"tracking_number"`
	ProductRef     string             `json:"product_ref"`
	RoutingCode    string             `json:"routing_code,omitempty"`
	Pickup         *shipment.TimeSpan `json:"pickup,omitempty"`
	PickupAddress  *shipment.Address  `json:"pickup_address,omitempty"`
	Cancelled      bool               `json:"cancelled,omitempty"`
}

var (
	bookings = storage.Collection[Booking]{Name: "carrier.demo.bookings"}
	numbers  = storage.Collection[string]{Name: "carrier.demo.numbers"} // tracking number → key
)

// NewDemo returns a demo carrier keeping its bookings in store (the
// collections "carrier.demo.*").
func NewDemo(store storage.Store, opts DemoOptions) (*Demo, error) {
	if store == nil {
		return nil, errors.New("carrier: store is required")
	}
	opts.Service = cmp.Or(opts.Service, "CP")
	opts.Country = cmp.Or(opts.Country, "SE")
	if !upper2(opts.Service) || !upper2(opts.Country) {
		return nil, errors.New("carrier: Service and Country must be two upper-case letters")
	}
	return &Demo{store: store, opts: opts}, nil
}

// Book implements shipment.Carrier: the first call with a key issues the
// next S10 number; later calls return the same booking. A cancelled key
// booked again gets a new number.
func (c *Demo) Book(ctx context.Context, req shipment.BookingRequest) (shipment.Booking, error) {
	if req.Key == "" {
		return shipment.Booking{}, deliverykit.E(deliverykit.KindInternal, "carrier: booking without a key")
	}
	var b Booking
	err := c.store.Update(ctx, func(tx storage.Tx) (err error) {
		b, err = c.book(tx, req)
		return err
	})
	if err != nil {
		return shipment.Booking{}, err
	}
	return c.answer(b), nil
}

// book finds the live booking of req.Key in tx, or issues the next S10
// number for it.
func (c *Demo) book(tx storage.Tx, req shipment.BookingRequest) (Booking, error) {
	it, err := bookings.Get(tx, req.Key)
	if err == nil && !it.Value.Cancelled {
		return it.Value, nil
	}
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return Booking{}, err
	}
	seq, err := bookings.NextSequence(tx)
	if err != nil {
		return Booking{}, err
	}
	tn, err := FormatS10(c.opts.Service, uint32(seq%100_000_000), c.opts.Country)
	if err != nil {
		return Booking{}, err
	}
	b := Booking{Key: req.Key, TrackingNumber: tn, ProductRef: req.Product.Ref, RoutingCode: routingCode(req)}
	if _, err := bookings.Put(tx, req.Key, b, storage.AnyVersion); err != nil {
		return Booking{}, err
	}
	_, err = numbers.Put(tx, tn, req.Key, storage.AnyVersion)
	return b, err
}

// answer is a booking as Book returns it.
func (c *Demo) answer(b Booking) shipment.Booking {
	return shipment.Booking{TrackingNumber: b.TrackingNumber, TrackingURL: c.link(b.TrackingNumber), RoutingCode: b.RoutingCode}
}

// routingCode is the sorting code printed on the label: the destination
// country and the first three digits of its postal code.
func routingCode(req shipment.BookingRequest) string {
	a := req.Receiver.Address
	if req.Pickup != nil && req.Pickup.Address != nil {
		a = req.Pickup.Address
	}
	if a == nil || a.Country == "" {
		return ""
	}
	digits := strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return r
		}
		return -1
	}, a.PostalCode)
	if len(digits) > 3 {
		digits = digits[:3]
	}
	if digits == "" {
		return a.Country
	}
	return a.Country + "-" + digits
}

func (c *Demo) link(tn string) string {
	if c.opts.TrackingURL == "" {
		return ""
	}
	return strings.ReplaceAll(c.opts.TrackingURL, "{tracking_number}", tn)
}

// BookPickup implements shipment.Carrier: it records the window (a new one
// replaces the old).
func (c *Demo) BookPickup(ctx context.Context, req shipment.PickupRequest) error {
	return c.store.Update(ctx, func(tx storage.Tx) error { return c.bookPickup(tx, req) })
}

func (c *Demo) bookPickup(tx storage.Tx, req shipment.PickupRequest) error {
	it, err := bookings.Get(tx, req.Key)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (it.Value.Cancelled || it.Value.TrackingNumber != req.TrackingNumber)) {
		return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "carrier: no live booking %s for tracking number %s", req.Key, req.TrackingNumber)
	}
	if err != nil {
		return err
	}
	b := it.Value
	w, addr := req.Window, req.Address
	b.Pickup, b.PickupAddress = &w, &addr
	_, err = bookings.Put(tx, req.Key, b, storage.VersionIs(it.Version))
	return err
}

// Cancel implements shipment.Carrier. Unknown keys are not an error.
func (c *Demo) Cancel(ctx context.Context, req shipment.CancelRequest) error {
	return c.store.Update(ctx, func(tx storage.Tx) error {
		_, err := c.cancel(tx, req)
		return err
	})
}

// cancel cancels the live booking of req.Key and returns its tracking
// number; "" when there was none.
func (c *Demo) cancel(tx storage.Tx, req shipment.CancelRequest) (string, error) {
	it, err := bookings.Get(tx, req.Key)
	if errors.Is(err, storage.ErrNotFound) {
		return "", nil
	}
	if err != nil || it.Value.Cancelled {
		return "", err
	}
	b := it.Value
	b.Cancelled = true
	_, err = bookings.Put(tx, req.Key, b, storage.VersionIs(it.Version))
	return b.TrackingNumber, err
}

// CheckTrackingNumber implements shipment.Carrier: s must be an S10 number.
func (c *Demo) CheckTrackingNumber(s string) error { return CheckS10(s) }

// Lookup returns what the carrier knows about a tracking number: the
// booking, its pickup and whether it was cancelled. It is how tests and
// the demo see that the carrier was notified.
func (c *Demo) Lookup(ctx context.Context, trackingNumber string) (Booking, error) {
	var b Booking
	err := c.store.View(ctx, func(tx storage.Tx) error {
		key, err := numbers.Get(tx, trackingNumber)
		if err != nil {
			return err
		}
		it, err := bookings.Get(tx, key.Value)
		if err != nil {
			return err
		}
		b = it.Value
		if b.TrackingNumber != trackingNumber {
			// The key was cancelled and booked again: this number
			// belongs to the cancelled booking.
			b = Booking{Key: key.Value, TrackingNumber: trackingNumber, Cancelled: true}
		}
		return nil
	})
	return b, err
}

var _ shipment.Carrier = (*Demo)(nil)
