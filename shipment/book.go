package shipment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// bookAt books delivery j of parcel i at its carrier; path is the
// delivery's path in the request, under which the carrier's violations
// of the delivery's own values are named.
func (s *Service) bookAt(ctx context.Context, site string, rec *shipmentRecord, i, j int, path string) (Booking, error) {
	sh := &rec.Shipment
	p := &sh.Parcels[i]
	d := &p.Deliveries[j]
	cid := rec.CarrierIDs[d.ID]
	prod, ok := s.opts.Products.Product(site, d.CarrierProductRef)
	if !ok {
		// The catalog changed since the shipment was created; book with
		// what the shipment recorded.
		prod = Product{Ref: d.CarrierProductRef, CarrierID: cid, CarrierName: d.CarrierName, Name: d.ProductName, DeliveryType: d.DeliveryType}
	}
	c := s.carrier(cid)
	if c == nil {
		return Booking{}, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "no carrier integration for carrier %s", cid)
	}
	req := BookingRequest{
		Key: carrierKey(site, d.ID), Site: site, Product: prod, DeliveryType: d.DeliveryType,
		Sender: legSender(sh, d), Receiver: legReceiver(sh, d), Pickup: d.Pickup,
		Weight: p.Weight, Dimensions: p.Dimensions, Reference: sh.Reference, Direction: sh.DirectionType,
		Scenario: d.Meta[MetaTestScenario],
	}
	b, err := c.Book(ctx, req)
	if err != nil {
		return Booking{}, carrierError(cid, "booking "+d.ID, underDelivery(err, path))
	}
	if b.TrackingNumber == "" {
		return Booking{}, deliverykit.Errorf(deliverykit.KindInternal, "carrier %s returned no tracking number for %s", cid, d.ID)
	}
	return b, nil
}

// deliveryPath is the path of delivery j of parcel i in a create request
// (or in the shipment, for shipments.bookParcels).
func deliveryPath(i, j int) string { return fmt.Sprintf("parcels[%d].deliveries[%d]", i, j) }

// underDelivery puts the fields of the delivery's own values that a
// carrier's violations name (meta.test_scenario) under the delivery's
// path in the request.
func underDelivery(err error, path string) error {
	var de *deliverykit.Error
	if !errors.As(err, &de) || len(de.Violations) == 0 {
		return err
	}
	out := *de
	out.Violations = slices.Clone(de.Violations)
	moved := false
	for k, v := range out.Violations {
		if strings.HasPrefix(v.Field, "meta.") {
			out.Violations[k].Field = path + "." + v.Field
			moved = true
		}
	}
	if !moved {
		return err
	}
	return &out
}

func legSender(sh *Shipment, d *Delivery) Sender {
	if d.Sender != nil {
		return *d.Sender
	}
	return sh.Sender
}

func legReceiver(sh *Shipment, d *Delivery) Receiver {
	if d.Receiver != nil {
		return *d.Receiver
	}
	return sh.Receiver
}

// applyBooking moves delivery j of parcel i to BOOKED with the carrier's
// booking, and queues it for the outbox: the write that stores it also
// writes its event.ParcelBooked (takeBooked, emitBooked). With
// Options.TrackingLink set, the delivery's tracking_link is a customer
// tracking page link whose token goes with the event.
func (s *Service) applyBooking(rec *shipmentRecord, i, j int, b Booking, now time.Time) {
	d := &rec.Shipment.Parcels[i].Deliveries[j]
	d.State = DeliveryBooked
	d.TrackingNumber = b.TrackingNumber
	d.TrackingLink = b.TrackingURL
	d.Label = s.labelFor(b.TrackingNumber, b.RoutingCode)
	d.BookedAt = &now
	rec.Unrecorded = append(rec.Unrecorded, d.ID)
	if s.opts.TrackingLink != nil {
		token := s.opts.IDs.NewID("tt_")
		d.TrackingLink = s.opts.TrackingLink(token)
		if rec.linkTokens == nil {
			rec.linkTokens = map[string]string{}
		}
		rec.linkTokens[d.ID] = token
	}
}

// linkUnreported gives the deliveries an earlier release booked but did
// not report a customer tracking link, as that release's report did.
func (s *Service) linkUnreported(rec *shipmentRecord) {
	if s.opts.TrackingLink == nil {
		return
	}
	for _, did := range rec.Unrecorded {
		i, j, ok := findDelivery(&rec.Shipment, func(d *Delivery) bool { return d.ID == did })
		if !ok {
			continue
		}
		token := s.opts.IDs.NewID("tt_")
		rec.Shipment.Parcels[i].Deliveries[j].TrackingLink = s.opts.TrackingLink(token)
		if rec.linkTokens == nil {
			rec.linkTokens = map[string]string{}
		}
		rec.linkTokens[did] = token
	}
}

// bookedParcels are the deliveries a write reports as booked, with the
// link tokens they were given.
type bookedParcels struct {
	ids    []string
	tokens map[string]string
}

// takeBooked moves the queued deliveries out of rec, before the write that
// stores rec: a retried transaction then emits them again from the same
// list, and the stored record keeps none.
func takeBooked(rec *shipmentRecord) bookedParcels {
	b := bookedParcels{ids: rec.Unrecorded, tokens: rec.linkTokens}
	rec.Unrecorded, rec.linkTokens = nil, nil
	return b
}

// emitBooked writes an event.ParcelBooked per booked delivery of sh.
func (s *Service) emitBooked(tx storage.Tx, site string, sh *Shipment, b bookedParcels, now time.Time) error {
	for _, did := range b.ids {
		i, j, ok := findDelivery(sh, func(d *Delivery) bool { return d.ID == did })
		if !ok {
			continue
		}
		// The subject is the parcel (its tracking number), as for its
		// later events (parcel.changed, delivery.picked_up), so that a
		// merchant's webhooks get them in order.
		d := &sh.Parcels[i].Deliveries[j]
		ev, err := event.New("", site, d.TrackingNumber, now, parcelBooked(sh, i, j, b.tokens[did], now))
		if err != nil {
			return err
		}
		if err := outbox.Add(tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// parcelBooked describes delivery j of parcel i of sh as booked: the
// shipment plays the tracking order (its external id, or its id when it
// has none) and the delivery the tracking parcel.
func parcelBooked(sh *Shipment, i, j int, token string, now time.Time) event.ParcelBooked {
	p := &sh.Parcels[i]
	d := &p.Deliveries[j]
	snd, rcv := legSender(sh, d), legReceiver(sh, d)
	out := event.ParcelBooked{
		ShipmentID: sh.ID, DeliveryID: d.ID, OrderExternalID: orderExternalID(sh), TosID: sh.TosID, Reference: sh.Reference,
		TrackingNumber: d.TrackingNumber, ProductRef: d.CarrierProductRef,
		Direction: string(sh.DirectionType), DeliveryType: string(d.DeliveryType),
		Sender:        deliverykit.Contact{Name: snd.Name, Email: snd.Email, Phone: snd.PhoneNumber},
		Receiver:      deliverykit.Contact{Name: rcv.Name, Email: rcv.Email, Phone: rcv.PhoneNumber},
		SenderAddress: snd.Address, ReceiverAddress: rcv.Address,
		LinkToken: token, BookedAt: now, ShipmentExternalID: sh.ExternalID, CarrierName: d.CarrierName,
	}
	if d.Pickup != nil {
		out.PickupAddress = d.Pickup.Address
	}
	for _, it := range p.LineItems {
		out.Currency = it.Currency
		out.Items = append(out.Items, event.Item{SKU: it.SKU, Name: it.Name, Quantity: int64(it.Quantity), Price: int64(it.Price), Discount: int64(it.Discount)})
	}
	return out
}

// pickupAt books the pickup of a booked delivery at its carrier.
func (s *Service) pickupAt(ctx context.Context, site string, rec *shipmentRecord, d *Delivery, w TimeSpan, addr *Address, instructions string) error {
	cid := rec.CarrierIDs[d.ID]
	c := s.carrier(cid)
	if c == nil {
		return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "no carrier integration for carrier %s", cid)
	}
	var a Address
	if addr != nil {
		a = *addr
	} else if d.Sender != nil && d.Sender.Address != nil {
		a = *d.Sender.Address
	} else if rec.Shipment.Sender.Address != nil {
		a = *rec.Shipment.Sender.Address
	}
	err := c.BookPickup(ctx, PickupRequest{Key: carrierKey(site, d.ID), Site: site, TrackingNumber: d.TrackingNumber, Window: w, Address: a, Instructions: instructions})
	if err != nil {
		return carrierError(cid, "booking the pickup of "+d.TrackingNumber, err)
	}
	return nil
}

// BookParcels books every CREATED delivery of a shipment: a tracking
// number, a label and a tracking link each (POST /shipments.bookParcels).
// The shipment moves from CREATED to BOOKED.
//
// Carrier calls happen before the transaction, keyed by delivery id, so a
// repeated call after a failure gets the same tracking numbers back. On a
// shipment that is already booked the call changes nothing, except that it
// reports deliveries an earlier release booked but did not report yet.
func (s *Service) BookParcels(ctx context.Context, site string, ref ShipmentRef) (*Shipment, error) {
	if err := checkSite(site, ref.SiteID); err != nil {
		return nil, err
	}
	if err := check(&ref, nil); err != nil {
		return nil, err
	}
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		return loadShipment(tx, site, ref.ShipmentID, "shipment_id")
	})
	if err != nil {
		return nil, err
	}
	rec := it.Value
	if err := shipmentAllow(&rec.Shipment, opShipBook); err != nil {
		return nil, err
	}
	now := s.opts.Clock.Now().UTC()
	changed := false
	for i := range rec.Shipment.Parcels {
		for j := range rec.Shipment.Parcels[i].Deliveries {
			if rec.Shipment.Parcels[i].Deliveries[j].State != DeliveryCreated {
				continue
			}
			b, err := s.bookAt(ctx, site, &rec, i, j, deliveryPath(i, j))
			if err != nil {
				return nil, err
			}
			s.applyBooking(&rec, i, j, b, now)
			changed = true
		}
	}
	if changed {
		sh := &rec.Shipment
		sh.State = derivedState(sh)
		if sh.BookedAt == nil {
			sh.BookedAt = &now
			sh.Documents = s.documentsFor(sh)
		}
		sh.UpdatedAt = now
	} else {
		s.linkUnreported(&rec)
	}
	if len(rec.Unrecorded) > 0 {
		sh := &rec.Shipment
		booked := takeBooked(&rec)
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			if err := putShipmentRecord(tx, it.Key, rec, storage.VersionIs(it.Version)); err != nil {
				return err
			}
			if err := s.emitBooked(tx, site, sh, booked, now); err != nil {
				return err
			}
			return indexTrackingNumbers(tx, site, sh)
		})
		if err != nil {
			return nil, concurrent(err)
		}
	}
	return &rec.Shipment, nil
}

// pickupTargets are the deliveries of sh a pickup booking for w changes:
// the one with tracking number tn, or, when tn is empty, every one that
// may have a pickup booked; those booked for w already are left out (a
// repeated call).
func pickupTargets(sh *Shipment, tn string, w TimeSpan) ([]*Delivery, error) {
	var all []*Delivery
	if tn != "" {
		i, j, _ := findDelivery(sh, func(d *Delivery) bool { return d.TrackingNumber == tn })
		d := &sh.Parcels[i].Deliveries[j]
		if _, err := deliveryMove(d, opBookPickup); err != nil {
			return nil, err
		}
		all = append(all, d)
	} else {
		if err := shipmentAllow(sh, opShipBookPickup); err != nil {
			return nil, err
		}
		for i := range sh.Parcels {
			for j := range sh.Parcels[i].Deliveries {
				d := &sh.Parcels[i].Deliveries[j]
				if _, err := deliveryMove(d, opBookPickup); err == nil {
					all = append(all, d)
				}
			}
		}
	}
	var out []*Delivery
	for _, d := range all {
		if d.State == DeliveryPickupBooked && d.PickupWindow != nil && d.PickupWindow.Start.Equal(w.Start) && d.PickupWindow.End.Equal(w.End) {
			continue // a repeated call
		}
		out = append(out, d)
	}
	return out, nil
}

// BookPickup books the carrier pickup of one delivery (by tracking number)
// or of every booked delivery of a shipment (POST /deliveries.bookPickup),
// and notifies the carriers. Deliveries already booked for the same window
// are left alone, so a repeated call changes nothing; another window
// replaces the earlier one. With Manifest, the day's parcels of the
// carriers are manifested first (see BookPickupRequest.Manifest).
func (s *Service) BookPickup(ctx context.Context, site string, req BookPickupRequest) (*Shipment, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	if err := exactlyOne([]string{"tracking_number", "shipment_id"}, req.TrackingNumber, req.ShipmentID); err != nil {
		return nil, err
	}
	var vs []deliverykit.FieldViolation
	var w TimeSpan
	if req.PickupWindow != nil {
		w, vs = window("pickup_window", req.PickupWindow)
	}
	if err := check(&req, vs); err != nil {
		return nil, err
	}
	if req.TrackingNumber != "" {
		if err := s.checkTrackingNumber("tracking_number", req.TrackingNumber); err != nil {
			return nil, err
		}
	}
	return s.bookPickups(ctx, site, req.TrackingNumber, req.ShipmentID, w, req.Address, req.Instructions, req.Manifest)
}

// bookPickups books the pickups; with closing (BookPickupRequest.Manifest)
// it first manifests the day's parcels of the carriers it books
// (closeForPickup).
func (s *Service) bookPickups(ctx context.Context, site, tn, shipmentID string, w TimeSpan, addr *Address, instructions string, closing bool) (*Shipment, error) {
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		if tn != "" {
			return loadByIndex(tx, byTracking, site, tn, "delivery", "tracking_number")
		}
		return loadShipment(tx, site, shipmentID, "shipment_id")
	})
	if err != nil {
		return nil, err
	}
	rec := it.Value
	sh := &rec.Shipment
	targets, err := pickupTargets(sh, tn, w)
	if err != nil {
		return nil, err
	}
	if closing && len(targets) > 0 && !w.Start.IsZero() {
		if it, err = s.closeForPickup(ctx, site, it, targets, w); err != nil {
			return nil, err
		}
		rec = it.Value
		sh = &rec.Shipment
		if targets, err = pickupTargets(sh, tn, w); err != nil {
			return nil, err
		}
	}
	now := s.opts.Clock.Now().UTC()
	changed := false
	for _, d := range targets {
		if err := s.pickupAt(ctx, site, &rec, d, w, addr, instructions); err != nil {
			return nil, err
		}
		win := w
		d.State, d.PickupWindow, d.PickupBookedAt = DeliveryPickupBooked, &win, &now
		changed = true
	}
	if !changed {
		return sh, nil
	}
	sh.State = derivedState(sh)
	sh.UpdatedAt = now
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		return putShipmentRecord(tx, it.Key, rec, storage.VersionIs(it.Version))
	})
	if err != nil {
		return nil, concurrent(err)
	}
	return sh, nil
}
