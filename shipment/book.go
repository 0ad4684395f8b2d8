package shipment

import (
	"context"
	"slices"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// bookAt books delivery j of parcel i at its carrier.
func (s *Service) bookAt(ctx context.Context, site string, rec *shipmentRecord, i, j int) (Booking, error) {
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
		Weight: p.Weight, Dimensions: p.Dimensions, Reference: sh.Reference,
	}
	b, err := c.Book(ctx, req)
	if err != nil {
		return Booking{}, carrierError(cid, "booking "+d.ID, err)
	}
	if b.TrackingNumber == "" {
		return Booking{}, deliverykit.Errorf(deliverykit.KindInternal, "carrier %s returned no tracking number for %s", cid, d.ID)
	}
	return b, nil
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
// booking and queues it for the Recorder.
func (s *Service) applyBooking(rec *shipmentRecord, i, j int, b Booking, now time.Time) {
	d := &rec.Shipment.Parcels[i].Deliveries[j]
	d.State = DeliveryBooked
	d.TrackingNumber = b.TrackingNumber
	d.TrackingLink = b.TrackingURL
	d.Label = s.labelFor(b.TrackingNumber, b.RoutingCode)
	d.BookedAt = &now
	if s.opts.Recorder != nil {
		rec.Unrecorded = append(rec.Unrecorded, d.ID)
	}
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
// registers with tracking any delivery the Recorder failed to take before.
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
			b, err := s.bookAt(ctx, site, &rec, i, j)
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
		}
		sh.UpdatedAt = now
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			if _, err := shipments.Put(tx, it.Key, rec, storage.VersionIs(it.Version)); err != nil {
				return err
			}
			return indexTrackingNumbers(tx, site, sh)
		})
		if err != nil {
			return nil, concurrent(err)
		}
	}
	return s.record(ctx, site, rec.Shipment.ID)
}

// record registers the shipment's unrecorded deliveries with the Recorder,
// after the booking committed, and stores the tracking links it returns.
// It returns the shipment as stored afterwards. When the Recorder fails,
// the deliveries it did take are still stored and the error says to
// repeat shipments.bookParcels, which records the rest.
func (s *Service) record(ctx context.Context, site, id string) (*Shipment, error) {
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		return loadShipment(tx, site, id, "shipment_id")
	})
	if err != nil {
		return nil, err
	}
	if len(it.Value.Unrecorded) == 0 || s.opts.Recorder == nil {
		return &it.Value.Shipment, nil
	}
	sh := &it.Value.Shipment
	links := map[string]string{}
	var recErr error
	for _, did := range it.Value.Unrecorded {
		i, j, ok := findDelivery(sh, func(d *Delivery) bool { return d.ID == did })
		if !ok {
			continue
		}
		d := &sh.Parcels[i].Deliveries[j]
		ext := sh.ExternalID
		if ext == "" {
			ext = sh.ID
		}
		link, err := s.opts.Recorder.RecordBookedParcel(ctx, site, BookedParcel{
			ShipmentID: sh.ID, OrderExternalID: ext, Reference: sh.Reference, DirectionType: sh.DirectionType,
			TrackingNumber: d.TrackingNumber, CarrierProductRef: d.CarrierProductRef, DeliveryType: d.DeliveryType,
			Sender: legSender(sh, d), Receiver: legReceiver(sh, d), Pickup: d.Pickup,
			LineItems: sh.Parcels[i].LineItems, ParcelIndex: i, DeliveryIndex: j,
		})
		if err != nil {
			recErr = deliverykit.Errorf(deliverykit.KindOf(err), "delivery %s is booked, but registering it for tracking failed (repeat shipments.bookParcels): %w", d.TrackingNumber, err)
			break
		}
		links[did] = link
	}
	var out Shipment
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		cur, err := loadShipment(tx, site, id, "shipment_id")
		if err != nil {
			return err
		}
		r := cur.Value
		r.Unrecorded = slices.DeleteFunc(r.Unrecorded, func(did string) bool {
			link, ok := links[did]
			if !ok {
				return false
			}
			if i, j, found := findDelivery(&r.Shipment, func(d *Delivery) bool { return d.ID == did }); found && link != "" {
				r.Shipment.Parcels[i].Deliveries[j].TrackingLink = link
			}
			return true
		})
		out = r.Shipment
		if len(links) == 0 {
			return nil
		}
		_, err = shipments.Put(tx, cur.Key, r, storage.VersionIs(cur.Version))
		return err
	})
	if err != nil {
		return nil, err
	}
	if recErr != nil {
		return nil, recErr
	}
	return &out, nil
}

// BookPickup books the carrier pickup of one delivery (by tracking number)
// or of every booked delivery of a shipment (POST /deliveries.bookPickup),
// and notifies the carriers. Deliveries already booked for the same window
// are left alone, so a repeated call changes nothing; another window
// replaces the earlier one.
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
	return s.bookPickups(ctx, site, req.TrackingNumber, req.ShipmentID, w, req.Address, req.Instructions)
}

func (s *Service) bookPickups(ctx context.Context, site, tn, shipmentID string, w TimeSpan, addr *Address, instructions string) (*Shipment, error) {
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
	var targets []*Delivery
	if tn != "" {
		i, j, _ := findDelivery(sh, func(d *Delivery) bool { return d.TrackingNumber == tn })
		d := &sh.Parcels[i].Deliveries[j]
		if _, err := deliveryMove(d, opBookPickup); err != nil {
			return nil, err
		}
		targets = append(targets, d)
	} else {
		if err := shipmentAllow(sh, opShipBookPickup); err != nil {
			return nil, err
		}
		for i := range sh.Parcels {
			for j := range sh.Parcels[i].Deliveries {
				d := &sh.Parcels[i].Deliveries[j]
				if _, err := deliveryMove(d, opBookPickup); err == nil {
					targets = append(targets, d)
				}
			}
		}
	}
	now := s.opts.Clock.Now().UTC()
	changed := false
	for _, d := range targets {
		if d.State == DeliveryPickupBooked && d.PickupWindow != nil && d.PickupWindow.Start.Equal(w.Start) && d.PickupWindow.End.Equal(w.End) {
			continue // a repeated call
		}
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
		_, err := shipments.Put(tx, it.Key, rec, storage.VersionIs(it.Version))
		return err
	})
	if err != nil {
		return nil, concurrent(err)
	}
	return sh, nil
}
