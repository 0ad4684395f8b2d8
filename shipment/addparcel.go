package shipment

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/storage"
)

// AddParcel adds a parcel to a shipment (POST /shipments.addParcel); a
// request without a parcel adds a duplicate of the shipment's first
// parcel (see AddParcelRequest). When the shipment is booked, the new
// parcel's deliveries are booked and labelled in the same call; when the
// shipment has a connected return shipment that is not cancelled, the
// parcel is added there too (as return_parcel, or by default as a copy
// carried by the products of the return shipment's first parcel), and
// booked if that one is booked. Both shipments change in one transaction.
//
// Carrier keys derive from the parcel's position, so a call repeated after
// a failure books the same keys and gets the same tracking numbers.
func (s *Service) AddParcel(ctx context.Context, site string, req AddParcelRequest) (*Shipment, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	prods, retProds, err := s.checkAddParcel(site, &req)
	if err != nil {
		return nil, err
	}
	out, ret, hasRet, err := s.loadWithReturn(ctx, site, req.ShipmentID)
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
	if req.Parcel == nil {
		if prods, err = s.duplicateFirst(site, &req, &out.Value.Shipment); err != nil {
			return nil, err
		}
	}
	var retIn ParcelInput
	if hasRet {
		if retIn, retProds, err = s.returnParcel(site, &req, &ret.Value.Shipment, retProds); err != nil {
			return nil, err
		}
	}
	now := s.opts.Clock.Now().UTC()
	outRec := out.Value
	if err := s.addTo(ctx, site, &outRec, "parcel", *req.Parcel, prods, now); err != nil {
		return nil, err
	}
	retRec := ret.Value
	if hasRet {
		if err := s.addTo(ctx, site, &retRec, "return_parcel", retIn, retProds, now); err != nil {
			return nil, err
		}
	}
	outBooked, retBooked := takeBooked(&outRec), takeBooked(&retRec)
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if err := putShipment(tx, site, out, outRec); err != nil {
			return err
		}
		if err := s.emitBooked(tx, site, &outRec.Shipment, outBooked, now); err != nil {
			return err
		}
		if !hasRet {
			return nil
		}
		if err := putShipment(tx, site, ret, retRec); err != nil {
			return err
		}
		return s.emitBooked(tx, site, &retRec.Shipment, retBooked, now)
	})
	if err != nil {
		return nil, concurrent(err)
	}
	return &outRec.Shipment, nil
}

// checkAddParcel validates the request and answers the carrier products
// of its parcel and of its return parcel, if it has one.
func (s *Service) checkAddParcel(site string, req *AddParcelRequest) (prods, retProds []Product, err error) {
	var vs validation.Violations
	if req.Parcel != nil {
		prods = s.checkParcel(&vs, site, "parcel", req.Parcel)
	}
	if req.ReturnParcel != nil {
		retProds = s.checkParcel(&vs, site, "return_parcel", req.ReturnParcel)
	}
	return prods, retProds, check(req, vs)
}

// duplicateFirst makes req's parcel a duplicate of sh's first parcel and
// answers its carrier products, checked as a requested parcel's are (the
// catalog may have changed since).
func (s *Service) duplicateFirst(site string, req *AddParcelRequest, sh *Shipment) ([]Product, error) {
	if len(sh.Parcels) == 0 {
		return nil, deliverykit.InvalidField("parcel", "required", "is required: the shipment has no parcel to duplicate")
	}
	first := sh.Parcels[0]
	in := ParcelInput{Weight: first.Weight, Deliveries: deliveryInputs(first)}
	if d := first.Dimensions; d != nil {
		dims := *d
		in.Dimensions = &dims
	}
	var vs validation.Violations
	prods := s.checkParcel(&vs, site, "parcel", &in)
	if len(vs) > 0 {
		return nil, deliverykit.Invalid(vs...)
	}
	req.Parcel = &in
	return prods, nil
}

// loadWithReturn reads a shipment and its connected return shipment, if
// it has one; live says the return shipment is there and not cancelled.
func (s *Service) loadWithReturn(ctx context.Context, site, id string) (out, ret storage.Item[shipmentRecord], live bool, err error) {
	err = s.store.View(ctx, func(tx storage.Tx) error {
		var err error
		if out, err = loadShipment(tx, site, id, "shipment_id"); err != nil {
			return err
		}
		if id := out.Value.Shipment.ReturnShipmentID; id != "" {
			if ret, err = loadShipment(tx, site, id, "shipment_id"); err != nil {
				return err
			}
			live = ret.Value.Shipment.State != ShipmentCancelled
		}
		return nil
	})
	return out, ret, live, err
}

// returnParcel is the parcel AddParcel adds to the connected return
// shipment ret, with its carrier products: the request's return_parcel
// (whose products retProds are), or else a copy of the parcel carried like
// ret's first parcel.
func (s *Service) returnParcel(site string, req *AddParcelRequest, ret *Shipment, retProds []Product) (ParcelInput, []Product, error) {
	if err := shipmentAllow(ret, opShipAddParcel); err != nil {
		return ParcelInput{}, nil, err
	}
	if req.ReturnParcel != nil {
		return *req.ReturnParcel, retProds, nil
	}
	in := returnCopy(*req.Parcel, ret.Parcels[0])
	var vs validation.Violations
	prods := s.checkParcel(&vs, site, "return_parcel", &in)
	if len(vs) > 0 {
		return ParcelInput{}, nil, deliverykit.Invalid(vs...)
	}
	return in, prods, nil
}

// putShipment writes rec over the shipment it was read as (it), if that is
// still the stored version, and indexes its tracking numbers.
func putShipment(tx storage.Tx, site string, it storage.Item[shipmentRecord], rec shipmentRecord) error {
	if err := putShipmentRecord(tx, it.Key, rec, storage.VersionIs(it.Version)); err != nil {
		return err
	}
	return indexTrackingNumbers(tx, site, &rec.Shipment)
}

// addTo appends a parcel to rec and, when rec is booked, books it; field
// is the parcel's path in the request.
func (s *Service) addTo(ctx context.Context, site string, rec *shipmentRecord, field string, in ParcelInput, prods []Product, now time.Time) error {
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
		b, err := s.bookAt(ctx, site, rec, i, j, fmt.Sprintf("%s.deliveries[%d]", field, j))
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
	return ParcelInput{ExternalID: in.ExternalID, Weight: in.Weight, Dimensions: in.Dimensions, LineItems: in.LineItems,
		Deliveries: deliveryInputs(like)}
}

// deliveryInputs are the deliveries of p as a new parcel's: the same
// carrier products, delivery types, legs' ends and pickup points.
func deliveryInputs(p Parcel) []DeliveryInput {
	var out []DeliveryInput
	for _, d := range p.Deliveries {
		out = append(out, DeliveryInput{
			CarrierProductRef: d.CarrierProductRef, DeliveryType: d.DeliveryType,
			Sender: d.Sender, Receiver: d.Receiver, Pickup: d.Pickup, Meta: maps.Clone(d.Meta),
		})
	}
	return out
}
