package shipment

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// LabelPath is the path of the label endpoint; a delivery's label is at
// LabelPath + tracking number (?format=pdf or zpl).
const LabelPath = "/v1/som/labels/"

// Product is what shipment needs to know about a carrier product.
// Shipment does not own the delivery catalog; the caller adapts its catalog
// to Products.
type Product struct {
	// Ref is the carrier_product_ref clients send.
	Ref string
	// CarrierID selects the Carrier that books the product.
	CarrierID string
	// CarrierName and Name are printed on labels.
	CarrierName string
	Name        string
	// DeliveryType is the default of a delivery's delivery_type.
	DeliveryType DeliveryType
}

// Products looks carrier products up by reference. It is declared here, by
// its consumer; the example server adapts the delivery catalog to it.
type Products interface {
	Product(site, ref string) (Product, bool)
}

// StaticProducts is a Products backed by a map from reference to product,
// the same for every site. Do not modify it while a Service uses it.
type StaticProducts map[string]Product

// Product implements Products.
func (m StaticProducts) Product(_, ref string) (Product, bool) {
	p, ok := m[ref]
	return p, ok
}

// Carrier is a carrier integration. Every call is an external effect, made
// outside storage transactions, and must be idempotent on its Key: the
// service repeats calls with the same key when a client repeats a request,
// and a key must always yield the same booking, so that a retry never
// assigns a second tracking number.
type Carrier interface {
	// Book reserves a tracking number and returns what the label needs.
	Book(ctx context.Context, req BookingRequest) (Booking, error)
	// BookPickup asks the carrier to collect a booked delivery in the
	// window. Repeating it with the same window changes nothing; another
	// window replaces the earlier one.
	BookPickup(ctx context.Context, req PickupRequest) error
	// Cancel withdraws the booking made with the key. A key the carrier
	// does not know is not an error: cancelling is how the service cleans
	// up reservations of attempts that failed.
	Cancel(ctx context.Context, req CancelRequest) error
	// CheckTrackingNumber returns an error saying why s cannot be one of
	// this carrier's tracking numbers, or nil.
	CheckTrackingNumber(s string) error
}

// HandOverCarrier is a Carrier that collects a day's manifest at a
// booked pickup. Before BookPickup manifests the parcels waiting for the
// pickup's carrier, it tells the carrier which they are and the pickup's
// window: the carrier takes them over within it. Carriers without it
// collect manifested parcels as each was booked.
type HandOverCarrier interface {
	Carrier
	// HandOver plans the collection of the parcels in the window.
	// Repeating it changes nothing; a parcel the carrier does not know
	// or has collected already is left as it is.
	HandOver(ctx context.Context, req HandOverRequest) error
}

// HandOverRequest names the parcels of a manifest and the pickup that
// collects them.
type HandOverRequest struct {
	Site            string
	Window          TimeSpan
	TrackingNumbers []string
}

// BookingRequest is one delivery to book.
type BookingRequest struct {
	// Key identifies the delivery at the carrier: site + "/" + delivery
	// id. The same key must always return the same booking.
	Key          string
	Site         string
	Product      Product
	DeliveryType DeliveryType
	Sender       Sender
	Receiver     Receiver
	Pickup       *Pickup
	Weight       int32
	Dimensions   *Dimensions
	Reference    string
	// Direction is the shipment's: OUTBOUND, or RETURN for a parcel the
	// receiver of the outbound one sends back.
	Direction DirectionType
	// Scenario is the delivery's meta["test_scenario"] (MetaTestScenario):
	// the journey or fault a test carrier plays for it. Carriers that are
	// not test carriers ignore it, so a magic value means nothing on a
	// live site.
	Scenario string
}

// Booking is the carrier's answer to Book.
type Booking struct {
	TrackingNumber string
	// TrackingURL is the carrier's page for the parcel; it is the
	// delivery's tracking_link unless Options.TrackingLink is set.
	TrackingURL string
	// RoutingCode is the carrier's sorting code printed on the label.
	RoutingCode string
}

// PickupRequest asks a carrier to collect a delivery.
type PickupRequest struct {
	Key            string
	Site           string
	TrackingNumber string
	Window         TimeSpan
	Address        Address
	Instructions   string
}

// CancelRequest withdraws a booking. TrackingNumber is empty when the
// delivery was never booked (the service cleans up reservations).
type CancelRequest struct {
	Key            string
	Site           string
	TrackingNumber string
}

// Options configures a Service. Products and at least one carrier
// (Carriers or DefaultCarrier) are required.
type Options struct {
	Products Products
	// Carriers maps a Product.CarrierID to its integration.
	Carriers map[string]Carrier
	// DefaultCarrier books products whose carrier is not in Carriers.
	DefaultCarrier Carrier
	// TrackingLink, when set, makes the customer tracking page link of a
	// link token; every booked delivery then gets a token of its own (from
	// IDs), its tracking_link is that link, and the token goes with the
	// delivery's event.ParcelBooked, whose consumer (tracking) makes it
	// name the parcel's order. Unset, tracking_link is the carrier's page.
	TrackingLink func(token string) string
	// LabelBaseURL prefixes label URLs (scheme and host of the server);
	// empty leaves them relative.
	LabelBaseURL string
	// Logger receives failures of clean-up calls to carriers, which do not
	// fail the request. Default slog.Default().
	Logger *slog.Logger
	// Clock and IDs default to the system clock and RandomIDs.
	Clock deliverykit.Clock
	IDs   deliverykit.IDSource
	// Orders, when set, answers the orders a create request's tos_id
	// names (see CreateShipmentRequest.TosID); unset, a tos_id is
	// refused.
	Orders Orders
	// ReturnAddresses says where return parcels requested by the returns
	// area go (HandleReturnRequested). Default: Products, when it is one
	// (CatalogProducts is: the site's first warehouse).
	ReturnAddresses ReturnAddresses
	// Boxes are the boxes create requests with items are packed in.
	// Default: Products, when it is one (CatalogProducts is: the
	// catalog's boxes); else none, and every item is refused.
	Boxes Boxes
	// Retention is how long a shipment is kept after its last change
	// (retention.go); Sweep deletes it then. Default:
	// retention.DefaultShipments (two years); retention.Never keeps
	// shipments forever.
	Retention time.Duration
}

// Service manages shipments. It is safe for concurrent use.
type Service struct {
	store storage.Store
	opts  Options
	// backfilled is Sweep's first-sweep backfill (retention.go).
	backfilled retention.Once
	// pendingDone is the pending index's backfill, before the first
	// close (pending.go).
	pendingDone retention.Once
}

// New returns a Service on store.
func New(store storage.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("shipment: store is required")
	}
	if opts.Products == nil {
		return nil, errors.New("shipment: Options.Products is required")
	}
	if len(opts.Carriers) == 0 && opts.DefaultCarrier == nil {
		return nil, errors.New("shipment: Options.Carriers or Options.DefaultCarrier is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = deliverykit.SystemClock{}
	}
	if opts.IDs == nil {
		opts.IDs = deliverykit.RandomIDs{}
	}
	opts.LabelBaseURL = strings.TrimRight(opts.LabelBaseURL, "/")
	if opts.ReturnAddresses == nil {
		opts.ReturnAddresses, _ = opts.Products.(ReturnAddresses)
	}
	if opts.Boxes == nil {
		opts.Boxes, _ = opts.Products.(Boxes)
	}
	return &Service{store: store, opts: opts}, nil
}

// shipmentRecord is a shipment as the operations change it: the whole
// aggregate in one record, so every change to a shipment, its parcels and
// deliveries is one compare-and-set. It is stored as a storedShipment
// (records.go).
type shipmentRecord struct {
	Shipment Shipment
	// Request is the normalized create request, compared when the same
	// external_id is created again.
	Request json.RawMessage
	// CarrierIDs maps delivery id to the carrier that books it.
	CarrierIDs map[string]string
	// Unrecorded lists booked deliveries not yet reported in the outbox:
	// only records of earlier releases, which reported them after the
	// commit, have any (BookParcels reports them).
	Unrecorded []string
	// linkTokens are the link tokens of deliveries booked in this change;
	// never stored.
	linkTokens map[string]string
}

type idRecord struct {
	ShipmentID string `json:"shipment_id"`
}

var (
	byExternalID = storage.Collection[idRecord]{Name: "shipment.by_external_id"}
	byTracking   = storage.Collection[idRecord]{Name: "shipment.by_tracking_number"}
)

// Parcel and delivery ids derive from the shipment id and their position:
// shp_…-P2-D1 is the first delivery of the second parcel. Parcels are never
// removed, so positions are stable, the shipment of a delivery id is known
// without an index, and carrier keys repeat exactly when a request is
// repeated.
func parcelID(shipmentID string, n int) string { return shipmentID + "-P" + strconv.Itoa(n) }

func deliveryID(parcelID string, n int) string { return parcelID + "-D" + strconv.Itoa(n) }

func shipmentOfDelivery(id string) string {
	i := strings.LastIndex(id, "-P")
	if i <= 0 {
		return ""
	}
	return id[:i]
}

func carrierKey(site, deliveryID string) string { return site + "/" + deliveryID }

// carrier returns the integration of a carrier id.
func (s *Service) carrier(id string) Carrier {
	if c, ok := s.opts.Carriers[id]; ok {
		return c
	}
	return s.opts.DefaultCarrier
}

// checkTrackingNumber accepts a tracking number that one of the configured
// carriers could have issued.
func (s *Service) checkTrackingNumber(field, tn string) error {
	if tn == "" {
		return deliverykit.InvalidField(field, "required", "is required")
	}
	var first error
	for _, c := range s.opts.Carriers {
		err := c.CheckTrackingNumber(tn)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if c := s.opts.DefaultCarrier; c != nil {
		err := c.CheckTrackingNumber(tn)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return deliverykit.InvalidField(field, "tracking_number", first.Error())
}

func loadShipment(tx storage.Tx, site, id, field string) (storage.Item[shipmentRecord], error) {
	if id == "" {
		return storage.Item[shipmentRecord]{}, deliverykit.InvalidField(field, "required", "is required")
	}
	it, err := shipments.Get(tx, storage.Key(site, id))
	if errors.Is(err, storage.ErrNotFound) {
		return it, notFound("shipment", field)
	}
	return it, err
}

func loadByIndex(tx storage.Tx, idx storage.Collection[idRecord], site, value, what, field string) (storage.Item[shipmentRecord], error) {
	ref, err := idx.Get(tx, storage.Key(site, value))
	if errors.Is(err, storage.ErrNotFound) {
		return storage.Item[shipmentRecord]{}, notFound(what, field)
	}
	if err != nil {
		return storage.Item[shipmentRecord]{}, err
	}
	return loadShipment(tx, site, ref.Value.ShipmentID, field)
}

// view loads one shipment in a read-only transaction.
func (s *Service) view(ctx context.Context, load func(tx storage.Tx) (storage.Item[shipmentRecord], error)) (storage.Item[shipmentRecord], error) {
	var it storage.Item[shipmentRecord]
	err := s.store.View(ctx, func(tx storage.Tx) error {
		var err error
		it, err = load(tx)
		return err
	})
	return it, err
}

// findDelivery returns the parcel and delivery indexes of a delivery.
func findDelivery(sh *Shipment, match func(*Delivery) bool) (int, int, bool) {
	for i := range sh.Parcels {
		for j := range sh.Parcels[i].Deliveries {
			if match(&sh.Parcels[i].Deliveries[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// concurrent is the error of a compare-and-set lost to another request.
func concurrent(err error) error {
	if errors.Is(err, storage.ErrConflict) {
		return deliverykit.Errorf(deliverykit.KindConflict, "the shipment changed concurrently; repeat the call")
	}
	return err
}

// carrierError keeps a carrier's classified error and hides others as
// internal (the caller sees "internal error"; the cause is logged).
func carrierError(carrierID, what string, err error) error {
	var de *deliverykit.Error
	if errors.As(err, &de) {
		return err
	}
	return deliverykit.Errorf(deliverykit.KindInternal, "carrier %s: %s: %w", carrierID, what, err)
}

// labelFor is the label block of a booked delivery.
func (s *Service) labelFor(tn, routing string) *Label {
	u := s.opts.LabelBaseURL + LabelPath + tn
	return &Label{PDFURL: u + "?format=pdf", ZPLURL: u + "?format=zpl", RoutingCode: routing}
}
