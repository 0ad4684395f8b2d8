package shipment

import (
	"context"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/storage"
)

// AddParcel adds a parcel to a shipment (POST /shipments.addParcel). When
// the shipment is booked, the new parcel's deliveries are booked and
// labelled in the same call; when the shipment has a connected return
// shipment that is not cancelled, the parcel is added there too (as
// return_parcel, or by default as a copy carried by the products of the
// return shipment's first parcel), and booked if that one is booked. Both
// shipments change in one transaction.
//
// Carrier keys derive from the parcel's position, so a call repeated after
// a failure books the same keys and gets the same tracking numbers.
func (s *Service) AddParcel(ctx context.Context, site string, req AddParcelRequest) (*Shipment, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	var vs validation.Violations
	var prods, retProds []Product
	if req.Parcel != nil {
		prods = s.checkParcel(&vs, site, "parcel", req.Parcel)
	}
	if req.ReturnParcel != nil {
		retProds = s.checkParcel(&vs, site, "return_parcel", req.ReturnParcel)
	}
	if err := check(&req, vs); err != nil {
		return nil, err
	}
	var out, ret storage.Item[shipmentRecord]
	hasRet := false
	err := s.store.View(ctx, func(tx storage.Tx) error {
		var err error
		if out, err = loadShipment(tx, site, req.ShipmentID, "shipment_id"); err != nil {
			return err
		}
		if id := out.Value.Shipment.ReturnShipmentID; id != "" {
			if ret, err = loadShipment(tx, site, id, "shipment_id"); err != nil {
				return err
			}
			hasRet = ret.Value.Shipment.State != ShipmentCancelled
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := shipmentAllow(&out.Value.Shipment, opShipAddParcel); err != nil {
		return nil, err
	}
	// The same bound as shipments.create: a record holds the whole
	// shipment, and every change rewrites it.
	for _, sh := range []*Shipment{&out.Value.Shipment, &ret.Value.Shipment} {
		if len(sh.Parcels) >= MaxParcels {
			return nil, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "shipment %s already has %d parcels, the most a shipment may have", sh.ID, MaxParcels)
		}
	}
	var retIn ParcelInput
	if hasRet {
		if err := shipmentAllow(&ret.Value.Shipment, opShipAddParcel); err != nil {
			return nil, err
		}
		if req.ReturnParcel != nil {
			retIn = *req.ReturnParcel
		} else {
			retIn = returnCopy(*req.Parcel, ret.Value.Shipment.Parcels[0])
			var rvs validation.Violations
			if retProds = s.checkParcel(&rvs, site, "return_parcel", &retIn); len(rvs) > 0 {
				return nil, deliverykit.Invalid(rvs...)
			}
		}
	}
	now := s.opts.Clock.Now().UTC()
	outRec := out.Value
	if err := s.addTo(ctx, site, &outRec, *req.Parcel, prods, now); err != nil {
		return nil, err
	}
	retRec := ret.Value
	if hasRet {
		if err := s.addTo(ctx, site, &retRec, retIn, retProds, now); err != nil {
			return nil, err
		}
	}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if _, err := shipments.Put(tx, out.Key, outRec, storage.VersionIs(out.Version)); err != nil {
			return err
		}
		if err := indexTrackingNumbers(tx, site, &outRec.Shipment); err != nil {
			return err
		}
		if !hasRet {
			return nil
		}
		if _, err := shipments.Put(tx, ret.Key, retRec, storage.VersionIs(ret.Version)); err != nil {
			return err
		}
		return indexTrackingNumbers(tx, site, &retRec.Shipment)
	})
	if err != nil {
		return nil, concurrent(err)
	}
	// Both shipments are committed; register both with tracking even when
	// the first registration fails (the error says what to repeat).
	sh, err := s.record(ctx, site, outRec.Shipment.ID)
	if hasRet {
		if _, rerr := s.record(ctx, site, retRec.Shipment.ID); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return nil, err
	}
	return sh, nil
}

// addTo appends a parcel to rec and, when rec is booked, books it.
func (s *Service) addTo(ctx context.Context, site string, rec *shipmentRecord, in ParcelInput, prods []Product, now time.Time) error {
	sh := &rec.Shipment
	p, carriers := newParcel(sh.ID, len(sh.Parcels)+1, in, prods)
	sh.Parcels = append(sh.Parcels, p)
	for k, v := range carriers {
		rec.CarrierIDs[k] = v
	}
	sh.UpdatedAt = now
	if sh.State != ShipmentBooked {
		return nil
	}
	i := len(sh.Parcels) - 1
	for j := range sh.Parcels[i].Deliveries {
		b, err := s.bookAt(ctx, site, rec, i, j)
		if err != nil {
			return err
		}
		s.applyBooking(rec, i, j, b, now)
	}
	return nil
}

// returnCopy is the default parcel for a connected return shipment: the
// same goods, carried like the return shipment's first parcel.
func returnCopy(in ParcelInput, like Parcel) ParcelInput {
	out := ParcelInput{ExternalID: in.ExternalID, Weight: in.Weight, Dimensions: in.Dimensions, LineItems: in.LineItems}
	for _, d := range like.Deliveries {
		out.Deliveries = append(out.Deliveries, DeliveryInput{
			CarrierProductRef: d.CarrierProductRef, DeliveryType: d.DeliveryType,
			Sender: d.Sender, Receiver: d.Receiver, Pickup: d.Pickup,
		})
	}
	return out
}
