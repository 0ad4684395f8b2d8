package returns

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// This file is the return parcel: asked for with the return
// (event.ReturnShipmentRequested), booked by the shipments area, recorded
// when its parcel.booked arrives, and moving the return on as the carrier
// reports it (parcel.changed).

// LabelPDFs renders the labels of booked return parcels for the status
// page. shipment.Service implements it (LabelPDF).
type LabelPDFs interface {
	// LabelPDF renders the label of the booked parcel with the tracking
	// number as a PDF.
	LabelPDF(ctx context.Context, site, trackingNumber string) ([]byte, error)
}

// shipmentIDPrefix starts the external id of every return shipment.
const shipmentIDPrefix = "return-"

// ShipmentExternalID is the external id of the return shipment of return
// id: unique per site, as return ids are. The shipments area books it
// idempotently by this id, and its parcel.booked names it, which is how
// HandleParcelBooked knows the parcel is the return's.
func ShipmentExternalID(returnID uint64) string {
	return shipmentIDPrefix + strconv.FormatUint(returnID, 10)
}

// returnOfShipment is the return id whose ShipmentExternalID ext is.
func returnOfShipment(ext string) (uint64, bool) {
	n, ok := strings.CutPrefix(ext, shipmentIDPrefix)
	if !ok || n == "" || n[0] == '0' || n[0] == '+' {
		return 0, false
	}
	id, err := strconv.ParseUint(n, 10, 64)
	return id, err == nil
}

// requestShipment is the event asking for r's return parcel when r needs
// one: the site's policy names a return product, the order has a delivery
// address to send it from, the return awaits its parcel and none was asked
// for yet; nil otherwise. It marks r as asked; the caller stores r and
// adds the event (outbox.Add) in the same transaction.
func (s *Service) requestShipment(site string, o orderRecord, r *returnRecord, now time.Time) (*event.Event, error) {
	product := s.policy(site).ReturnProduct
	if product == "" || o.Address == nil || r.Status != StatusAwaitingReturn || r.ShipmentRequestedAt != nil || r.Label != nil {
		return nil, nil
	}
	a := o.Address
	addr := &deliverykit.Address{Name: a.Name, AddressLines: a.AddressLines, PostalCode: a.PostalCode, City: a.City, Country: a.Country}
	if c := a.Coordinates; c != nil {
		cp := *c
		addr.Coordinates = &cp
	}
	ev, err := event.New("", site, returnSubject(r.ID), now, event.ReturnShipmentRequested{
		ReturnID: returnSubject(r.ID), ShipmentExternalID: ShipmentExternalID(r.ID), OrderExternalID: o.ForeignID,
		ProductRef: product, Sender: deliverykit.Contact{Name: cmp.Or(a.Name, o.Email), Email: o.Email},
		SenderAddress: addr, RequestedAt: now,
	})
	if err != nil {
		return nil, err
	}
	at := now
	r.ShipmentRequestedAt = &at
	return &ev, nil
}

// requestMissingShipment asks for the return parcel of a return created
// before its site's policy named a return product (or before returns
// asked for parcels through events): the status page calls it, so the
// label is on its way the first time the customer looks.
func (s *Service) requestMissingShipment(ctx context.Context, site string, id uint64) error {
	now := s.now()
	return s.store.Update(ctx, func(tx storage.Tx) error {
		rit, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return err
		}
		oit, err := ordersColl.Get(tx, orderKey(site, rit.Value.OrderID))
		if err != nil {
			return err
		}
		r := rit.Value
		ev, err := s.requestShipment(site, oit.Value, &r, now)
		if err != nil || ev == nil {
			return err
		}
		r.UpdatedAt = now
		if _, err := returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version)); err != nil {
			return err
		}
		return outbox.Add(tx, *ev)
	})
}

// HandleParcelBooked is the outbox consumer of event.TypeParcelBooked for
// return parcels: a RETURN parcel whose shipment's external id is a
// return's (ShipmentExternalID) and whose order is that return's order
// becomes the return's label and one of its shipments (type C2B, foreignId
// the shipment's id, the carrier and the tracking number as
// trackingReference), and its tracking number finds the return in
// ReportReturnedItems, all in one transaction. Every other parcel is
// ignored. It is idempotent by tracking number. A tracking number already
// naming another return (given to MarkInTransit by hand) can never be
// recorded: InvalidArgument, so the outbox gives up on it at once.
func (s *Service) HandleParcelBooked(ctx context.Context, e event.Event) error {
	p, err := event.Decode[event.ParcelBooked](e)
	if err != nil {
		return err
	}
	id, ok := returnOfShipment(p.ShipmentExternalID)
	if p.Direction != event.DirectionReturn || !ok || p.TrackingNumber == "" {
		return nil
	}
	site := e.Site
	return s.store.Update(ctx, func(tx storage.Tx) error {
		rit, err := returnsColl.Get(tx, orderKey(site, id))
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		r := rit.Value
		if r.Order != nil && r.Order.ForeignID != p.OrderExternalID {
			return nil // a shipment someone named like a return's, for another order
		}
		for _, sh := range r.Shipments {
			if sh.TrackingReference == p.TrackingNumber {
				return nil
			}
		}
		ix, err := returnByTracking.Get(tx, storage.Key(site, p.TrackingNumber))
		switch {
		case err == nil && ix.Value.ID != r.ID:
			return deliverykit.Errorf(deliverykit.KindInvalidArgument, "returns: tracking number %s of return %d's parcel already names return %d", p.TrackingNumber, r.ID, ix.Value.ID)
		case errors.Is(err, deliverykit.ErrNotFound):
			if _, err := returnByTracking.Put(tx, storage.Key(site, p.TrackingNumber), idRecord{ID: r.ID}, storage.MustNotExist()); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		// A parcel booked again (its first delivery cancelled) replaces
		// the label; both stay among the shipments.
		r.Label = &labelRecord{TrackingNumber: p.TrackingNumber, CarrierName: p.CarrierName, Product: p.ProductRef,
			BookedAt: p.BookedAt.UTC().Truncate(time.Microsecond), ShipmentID: p.ShipmentID}
		r.Shipments = append(r.Shipments, shipmentRec{ID: uint64(len(r.Shipments) + 1), ForeignID: p.ShipmentID,
			Carrier: p.CarrierName, TrackingReference: p.TrackingNumber})
		r.UpdatedAt = s.now()
		_, err = returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version))
		return err
	})
}

// Carrier steps of a return parcel (tracking's step names) that move its
// return on: the carrier has the parcel, or it reached the merchant.
var (
	parcelTravelling = map[string]bool{"STEP_SUBMITTED_TO_CARRIER": true, "STEP_ON_ROUTE": true, "STEP_LINEHAUL_TO_CARRIER": true}
	parcelArrived    = map[string]bool{"STEP_DELIVERED_TO_MERCHANT": true}
)

// HandleParcelChanged is the outbox consumer of event.TypeParcelChanged
// for return parcels (a tracking number the return's parcel.booked or
// MarkInTransit recorded; every other parcel is ignored):
//
//   - a step saying the carrier has the parcel (submitted to the carrier,
//     on route) moves an AWAITING_RETURN return to IN_TRANSIT, as
//     MarkInTransit does (return.status_changed);
//   - delivered to the merchant, the return's unreported items are
//     AWAITING_INSPECTION (ItemAwaitingInspection) from the step's time,
//     returnedToWarehouseAt that time (return.items_received); a return
//     still AWAITING_RETURN moves to IN_TRANSIT first.
//
// Steps of a return past IN_TRANSIT, and steps seen before, change
// nothing, so it is idempotent.
func (s *Service) HandleParcelChanged(ctx context.Context, e event.Event) error {
	c, err := event.Decode[event.ParcelChanged](e)
	if err != nil {
		return err
	}
	travelling, arrived := parcelTravelling[c.Step], parcelArrived[c.Step]
	if !travelling && !arrived || c.TrackingNumber == "" {
		return nil
	}
	site, now := e.Site, s.now()
	return s.store.Update(ctx, func(tx storage.Tx) error {
		ix, err := returnByTracking.Get(tx, storage.Key(site, c.TrackingNumber))
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rit, err := returnsColl.Get(tx, orderKey(site, ix.Value.ID))
		if err != nil {
			return err
		}
		r := rit.Value
		if !r.open() {
			return nil
		}
		prev := r.Status
		var types []event.Type
		if r.Status == StatusAwaitingReturn {
			r.Status = StatusInTransit
			types = append(types, event.TypeReturnStatusChanged)
		}
		if arrived && r.ArrivedAt == nil {
			at := c.Time.UTC().Truncate(time.Microsecond)
			r.ArrivedAt = &at
			types = append(types, event.TypeReturnItemsReceived)
		}
		if len(types) == 0 {
			return nil
		}
		r.UpdatedAt = now
		if _, err := returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version)); err != nil {
			return err
		}
		oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		return s.emit(tx, site, oit.Value, r, prev, now, types...)
	})
}

// receivedAt is when line l of r reached the merchant: when its units
// were reported, else when the return parcel was delivered; nil before.
func receivedAt(r returnRecord, l returnLine) *time.Time {
	if l.ReturnedAt != nil {
		return l.ReturnedAt
	}
	return r.ArrivedAt
}
