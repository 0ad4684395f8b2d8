package shipment

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// plan is a validated create request with the products it names.
type plan struct {
	req      CreateShipmentRequest
	products [][]Product // per parcel, per delivery
	window   *TimeSpan   // createAndBook's pickup window
}

// checkParcel validates what tags cannot say about a parcel: the products
// exist and have a carrier, a PICKUP delivery names its pickup point.
// The problems are added to vs.
func (s *Service) checkParcel(vs *validation.Violations, site, field string, p *ParcelInput) []Product {
	if len(p.Deliveries) > MaxParcelDeliveries {
		return nil // the tags refuse the list without a look at it
	}
	prods := make([]Product, len(p.Deliveries))
	for j, d := range p.Deliveries {
		f := fmt.Sprintf("%s.deliveries[%d]", field, j)
		if d.CarrierProductRef == "" {
			continue // reported by the tags
		}
		prod, ok := s.opts.Products.Product(site, d.CarrierProductRef)
		if !ok {
			vs.Add(f+".carrier_product_ref", "known", "is not a carrier product of the site's catalog")
			continue
		}
		if s.carrier(prod.CarrierID) == nil {
			vs.Add(f+".carrier_product_ref", "carrier", "has no carrier integration for carrier "+prod.CarrierID)
		}
		prods[j] = prod
		typ := cmp.Or(d.DeliveryType, prod.DeliveryType)
		if typ == DeliveryPickup && d.Pickup == nil {
			vs.Add(f+".pickup", "required_if", "is required for a PICKUP delivery")
		}
	}
	return prods
}

func (s *Service) checkCreate(ctx context.Context, site string, req CreateShipmentRequest) (*plan, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	req, err := s.withOrder(ctx, site, req)
	if err != nil {
		return nil, err
	}
	req, vs, err := s.withPacking(site, req)
	if err != nil {
		return nil, err
	}
	req = withCustoms(withShippingMethod(req))
	pl := &plan{req: req}
	if len(req.Parcels) == 0 && len(req.Items) == 0 {
		vs.Add("parcels", "required", "is required (or items to pack)")
	}
	// Over the limit, the tags refuse the list with one violation; the
	// parcels are not looked at.
	if len(req.Parcels) <= MaxParcels {
		pl.products = make([][]Product, len(req.Parcels))
	}
	for i := range pl.products {
		pl.products[i] = s.checkParcel(&vs, site, fmt.Sprintf("parcels[%d]", i), &req.Parcels[i])
	}
	if req.Sender == nil {
		vs.Add("sender", "required", "is required")
	}
	if req.Receiver == nil {
		vs.Add("receiver", "required", "is required")
	}
	if req.OutboundShipmentID != "" && req.DirectionType != DirectionReturn {
		vs.Add("outbound_shipment_id", "direction", "is only allowed with direction_type RETURN")
	}
	checkCustoms(&vs, &req)
	if req.PickupWindow != nil {
		w, wvs := window("pickup_window", req.PickupWindow)
		vs = append(vs, wvs...)
		pl.window = &w
	}
	if err := check(&pl.req, vs); err != nil {
		return nil, err
	}
	if pl.req.DirectionType == "" {
		pl.req.DirectionType = DirectionOutbound
	}
	return pl, nil
}

// withShippingMethod gives every delivery that names no carrier product the
// request's shipping_method, and a parcel without deliveries one delivery
// with it. The caller's slices are left as they were.
func withShippingMethod(req CreateShipmentRequest) CreateShipmentRequest {
	if req.ShippingMethod == "" || len(req.Parcels) > MaxParcels {
		return req // over the limit, the tags refuse the parcels unseen
	}
	req.Parcels = slices.Clone(req.Parcels)
	for i := range req.Parcels {
		p := &req.Parcels[i]
		if len(p.Deliveries) == 0 {
			p.Deliveries = []DeliveryInput{{CarrierProductRef: req.ShippingMethod}}
			continue
		}
		p.Deliveries = slices.Clone(p.Deliveries)
		for j := range p.Deliveries {
			if p.Deliveries[j].CarrierProductRef == "" {
				p.Deliveries[j].CarrierProductRef = req.ShippingMethod
			}
		}
	}
	return req
}

// normalizedRequest is what is compared when an external_id is created
// again: the canonical JSON of the request's record, which leaves out the
// fields that do not describe the shipment.
func normalizedRequest(req CreateShipmentRequest) json.RawMessage {
	if req.DirectionType == "" {
		req.DirectionType = DirectionOutbound
	}
	return canonicalJSON(requestRecordOf(req))
}

// newParcel builds a parcel in state CREATED at position n (1-based).
func newParcel(shipmentID string, n int, in ParcelInput, prods []Product) (Parcel, map[string]string) {
	p := Parcel{
		ID: parcelID(shipmentID, n), ExternalID: in.ExternalID, Weight: in.Weight,
		Dimensions: in.Dimensions, LineItems: in.LineItems,
	}
	carriers := make(map[string]string, len(in.Deliveries))
	for j, d := range in.Deliveries {
		typ := cmp.Or(d.DeliveryType, prods[j].DeliveryType, DeliveryUnknown)
		id := deliveryID(p.ID, j+1)
		p.Deliveries = append(p.Deliveries, Delivery{
			ID: id, ShipmentID: shipmentID, ParcelID: p.ID, State: DeliveryCreated,
			CarrierProductRef: d.CarrierProductRef, CarrierName: prods[j].CarrierName, ProductName: prods[j].Name,
			DeliveryType: typ, Sender: d.Sender, Receiver: d.Receiver, Pickup: d.Pickup, Meta: maps.Clone(d.Meta),
		})
		carriers[id] = prods[j].CarrierID
	}
	return p, carriers
}

// newRecord builds a CREATED shipment from a plan.
func (s *Service) newRecord(site string, pl *plan, now time.Time) *shipmentRecord {
	req := pl.req
	sh := Shipment{
		ID: s.opts.IDs.NewID("shp_"), SiteID: site, ExternalID: req.ExternalID, State: ShipmentCreated,
		DirectionType: req.DirectionType, TosID: req.TosID, Reference: req.Reference, Attributes: req.Attributes,
		Sender: *req.Sender, Receiver: *req.Receiver, OutboundShipmentID: req.OutboundShipmentID,
		CreatedAt: now, UpdatedAt: now, Customs: req.Customs,
	}
	rec := &shipmentRecord{Request: normalizedRequest(req), CarrierIDs: map[string]string{}}
	for i, in := range req.Parcels {
		p, carriers := newParcel(sh.ID, i+1, in, pl.products[i])
		sh.Parcels = append(sh.Parcels, p)
		for k, v := range carriers {
			rec.CarrierIDs[k] = v
		}
	}
	rec.Shipment = sh
	return rec
}

// existing returns the shipment already created with the request's
// external_id: (nil, nil) when there is none, a Conflict when it was
// created with other content.
func existing(tx storage.Tx, site string, req CreateShipmentRequest) (*storage.Item[shipmentRecord], error) {
	if req.ExternalID == "" {
		return nil, nil
	}
	it, err := loadByIndex(tx, byExternalID, site, req.ExternalID, "shipment", "external_id")
	if errors.Is(err, deliverykit.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if string(it.Value.Request) != string(normalizedRequest(req)) {
		return nil, &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "external_id is already used by a shipment with other content",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "is already used by shipment " + it.Value.Shipment.ID}}}
	}
	return &it, nil
}

// insert stores a new shipment with its indexes and connects it to its
// outbound shipment.
func insert(tx storage.Tx, site string, rec *shipmentRecord) error {
	sh := &rec.Shipment
	if sh.OutboundShipmentID != "" {
		out, err := loadShipment(tx, site, sh.OutboundShipmentID, "outbound_shipment_id")
		if err != nil {
			return err
		}
		o := out.Value
		switch {
		case o.Shipment.DirectionType != DirectionOutbound:
			return deliverykit.InvalidField("outbound_shipment_id", "direction", "names a RETURN shipment")
		case o.Shipment.ReturnShipmentID != "":
			return &deliverykit.Error{Kind: deliverykit.KindFailedPrecondition, Message: "the outbound shipment already has a return shipment",
				Violations: []deliverykit.FieldViolation{{Field: "outbound_shipment_id", Rule: "unique", Message: "is already connected to " + o.Shipment.ReturnShipmentID}}}
		case o.Shipment.State == ShipmentCancelled:
			return wrongState("shipment", o.Shipment.ID, o.Shipment.State, "connecting a return shipment")
		}
		o.Shipment.ReturnShipmentID = sh.ID
		o.Shipment.UpdatedAt = sh.CreatedAt
		if err := putShipmentRecord(tx, out.Key, o, storage.VersionIs(out.Version)); err != nil {
			return err
		}
	}
	key := storage.Key(site, sh.ID)
	if err := putShipmentRecord(tx, key, *rec, storage.MustNotExist()); err != nil {
		return err
	}
	if err := expiry.Move(tx, key, retention.Entry{}, shipmentEntry(sh)); err != nil {
		return err
	}
	if sh.ExternalID != "" {
		if _, err := byExternalID.Put(tx, storage.Key(site, sh.ExternalID), idRecord{ShipmentID: sh.ID}, storage.MustNotExist()); err != nil {
			return err
		}
	}
	return indexTrackingNumbers(tx, site, sh)
}

// indexTrackingNumbers writes the tracking number index of every booked
// delivery that is not indexed yet.
func indexTrackingNumbers(tx storage.Tx, site string, sh *Shipment) error {
	for _, p := range sh.Parcels {
		for _, d := range p.Deliveries {
			if d.TrackingNumber == "" {
				continue
			}
			key := storage.Key(site, d.TrackingNumber)
			ref, err := byTracking.Get(tx, key)
			if err == nil {
				if ref.Value.ShipmentID != sh.ID {
					return deliverykit.Errorf(deliverykit.KindInternal, "carrier returned tracking number %s, already used by shipment %s", d.TrackingNumber, ref.Value.ShipmentID)
				}
				continue
			}
			if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			if _, err := byTracking.Put(tx, key, idRecord{ShipmentID: sh.ID}, storage.MustNotExist()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Create creates a shipment with its parcels and deliveries, all CREATED
// (POST /shipments.create). With an external_id it is idempotent: the same
// request again returns the first shipment; another request with that
// external_id is a Conflict.
func (s *Service) Create(ctx context.Context, site string, req CreateShipmentRequest) (*Shipment, error) {
	req.PickupWindow = nil // only createAndBook books pickups
	pl, err := s.checkCreate(ctx, site, req)
	if err != nil {
		return nil, err
	}
	rec := s.newRecord(site, pl, s.opts.Clock.Now().UTC())
	var out Shipment
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		old, err := existing(tx, site, pl.req)
		if err != nil || old != nil {
			if old != nil {
				out = old.Value.Shipment
			}
			return err
		}
		out = rec.Shipment
		return insert(tx, site, rec)
	})
	if err != nil {
		return nil, concurrent(err)
	}
	return &out, nil
}

// CreateAndBook creates a shipment, books every delivery and, when the
// request has a pickup_window, books their pickups, in one call
// (POST /shipments.createAndBook). It is atomic from the caller's view: the
// carrier calls come first, for a shipment that exists nowhere yet; only
// when all of them succeeded is the shipment stored, already booked, in
// one transaction. When anything fails, the bookings of this attempt are
// cancelled at the carriers (their keys belong to this attempt's fresh
// shipment id, so nothing else can share them) and nothing is stored.
//
// A repeated call with the same external_id continues with the stored
// shipment instead (booking and pickup are idempotent), so a retry never
// assigns a second tracking number.
func (s *Service) CreateAndBook(ctx context.Context, site string, req CreateShipmentRequest) (*Shipment, error) {
	pl, err := s.checkCreate(ctx, site, req)
	if err != nil {
		return nil, err
	}
	var old *storage.Item[shipmentRecord]
	if err := s.store.View(ctx, func(tx storage.Tx) error {
		old, err = existing(tx, site, pl.req)
		return err
	}); err != nil {
		return nil, err
	}
	if old != nil {
		return s.continueBooking(ctx, site, old.Value.Shipment.ID, pl.window)
	}

	now := s.opts.Clock.Now().UTC()
	rec := s.newRecord(site, pl, now)
	var done []CancelRequest // what to undo at the carriers
	undo := func() {
		for _, c := range done {
			if err := s.carrier(rec.CarrierIDs[shipmentDeliveryID(c.Key)]).Cancel(context.WithoutCancel(ctx), c); err != nil {
				s.opts.Logger.ErrorContext(ctx, "shipment: cancelling a booking of a failed createAndBook", "key", c.Key, "tracking_number", c.TrackingNumber, "err", err)
			}
		}
	}
	sh := &rec.Shipment
	for i := range sh.Parcels {
		for j := range sh.Parcels[i].Deliveries {
			d := &sh.Parcels[i].Deliveries[j]
			key := carrierKey(site, d.ID)
			b, err := s.bookAt(ctx, site, rec, i, j, deliveryPath(i, j))
			if err != nil {
				undo()
				return nil, err
			}
			done = append(done, CancelRequest{Key: key, Site: site, TrackingNumber: b.TrackingNumber})
			s.applyBooking(rec, i, j, b, now)
		}
	}
	// Pickups only once every booking succeeded: a failed booking then
	// costs no pickup order to withdraw.
	for i := range sh.Parcels {
		for j := range sh.Parcels[i].Deliveries {
			if pl.window == nil {
				break
			}
			d := &sh.Parcels[i].Deliveries[j]
			if err := s.pickupAt(ctx, site, rec, d, *pl.window, nil, ""); err != nil {
				undo()
				return nil, err
			}
			d.State, d.PickupWindow, d.PickupBookedAt = DeliveryPickupBooked, pl.window, &now
		}
	}
	sh.State = derivedState(sh)
	sh.BookedAt = &now
	sh.Documents = s.documentsFor(sh)
	booked := takeBooked(rec)
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if o, err := existing(tx, site, pl.req); err != nil || o != nil {
			if o != nil {
				// A concurrent call with the same external_id won.
				return deliverykit.Errorf(deliverykit.KindConflict, "shipment %s was created concurrently with the same external_id; repeat the call", o.Value.Shipment.ID)
			}
			return err
		}
		if err := insert(tx, site, rec); err != nil {
			return err
		}
		return s.emitBooked(tx, site, sh, booked, now)
	})
	if err != nil {
		undo()
		return nil, concurrent(err)
	}
	return sh, nil
}

// shipmentDeliveryID returns the delivery id of a carrier key.
func shipmentDeliveryID(key string) string {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '/' {
			return key[i+1:]
		}
	}
	return key
}

// continueBooking finishes a repeated createAndBook on the stored shipment.
func (s *Service) continueBooking(ctx context.Context, site, id string, w *TimeSpan) (*Shipment, error) {
	sh, err := s.BookParcels(ctx, site, ShipmentRef{ShipmentID: id})
	if err != nil || w == nil {
		return sh, err
	}
	return s.bookPickups(ctx, site, "", id, *w, nil, "", false)
}
