package shipment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// Get returns a shipment by exactly one of its id, its external id or the
// tracking number of one of its deliveries (GET /shipments.get).
func (s *Service) Get(ctx context.Context, site string, q GetShipmentQuery) (*Shipment, error) {
	if err := exactlyOne([]string{"id", "external_id", "tracking_number"}, q.ID, q.ExternalID, q.TrackingNumber); err != nil {
		return nil, err
	}
	if q.TrackingNumber != "" {
		if err := s.checkTrackingNumber("tracking_number", q.TrackingNumber); err != nil {
			return nil, err
		}
	}
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		switch {
		case q.ID != "":
			return loadShipment(tx, site, q.ID, "id")
		case q.ExternalID != "":
			return loadByIndex(tx, byExternalID, site, q.ExternalID, "shipment", "external_id")
		}
		return loadByIndex(tx, byTracking, site, q.TrackingNumber, "delivery", "tracking_number")
	})
	if err != nil {
		return nil, err
	}
	return &it.Value.Shipment, nil
}

// GetDelivery returns the delivery with the tracking number
// (GET /deliveries.get). Its shipment_id and parcel_id lead to the rest.
func (s *Service) GetDelivery(ctx context.Context, site, trackingNumber string) (*Delivery, error) {
	if err := s.checkTrackingNumber("tracking_number", trackingNumber); err != nil {
		return nil, err
	}
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		return loadByIndex(tx, byTracking, site, trackingNumber, "delivery", "tracking_number")
	})
	if err != nil {
		return nil, err
	}
	i, j, ok := findDelivery(&it.Value.Shipment, func(d *Delivery) bool { return d.TrackingNumber == trackingNumber })
	if !ok {
		return nil, notFound("delivery", "tracking_number")
	}
	d := it.Value.Shipment.Parcels[i].Deliveries[j]
	return &d, nil
}

// change runs a read-check-call-write cycle on one shipment: load reads it,
// plan checks the state and names the carrier calls to make, the calls run
// outside any transaction, and apply changes the record, which is written
// with a compare-and-set on the version read, together with the events
// apply answers (in the outbox, in the same transaction). A lost race is a
// Conflict, and writes no event.
func (s *Service) change(ctx context.Context, site string,
	load func(tx storage.Tx) (storage.Item[shipmentRecord], error),
	plan func(rec *shipmentRecord) ([]func(context.Context) error, error),
	apply func(rec *shipmentRecord, now time.Time) ([]event.Event, error),
) (*Shipment, error) {
	it, err := s.view(ctx, load)
	if err != nil {
		return nil, err
	}
	rec := it.Value
	calls, err := plan(&rec)
	if err != nil {
		return nil, err
	}
	for _, call := range calls {
		if err := call(ctx); err != nil {
			return nil, err
		}
	}
	now := s.opts.Clock.Now().UTC()
	evs, err := apply(&rec, now)
	if err != nil {
		return nil, err
	}
	rec.Shipment.UpdatedAt = now
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if err := putShipmentRecord(tx, it.Key, rec, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		// evs are values made before the transaction: a retried
		// transaction adds them again, and the outbox gives them their
		// ids inside it, so only the committed run's events exist.
		for _, ev := range evs {
			if err := outbox.Add(tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, concurrent(err)
	}
	return &rec.Shipment, nil
}

// cancelCall withdraws a delivery at its carrier. A delivery that was
// never booked is cancelled too, by key: that clears a reservation left by
// a booking attempt that failed halfway.
func (s *Service) cancelCall(site string, rec *shipmentRecord, d Delivery) func(context.Context) error {
	cid := rec.CarrierIDs[d.ID]
	return func(ctx context.Context) error {
		c := s.carrier(cid)
		if c == nil {
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "no carrier integration for carrier %s", cid)
		}
		if err := c.Cancel(ctx, CancelRequest{Key: carrierKey(site, d.ID), Site: site, TrackingNumber: d.TrackingNumber}); err != nil {
			return carrierError(cid, "cancelling "+d.ID, err)
		}
		return nil
	}
}

// CancelDelivery cancels one delivery, named by tracking number or, before
// booking, by id (POST /deliveries.cancel). Only a delivery the carrier has
// not picked up can be cancelled. When the last live delivery of a
// shipment is cancelled, the shipment is CANCELLED too.
func (s *Service) CancelDelivery(ctx context.Context, site string, ref DeliveryRef) (*Shipment, error) {
	if err := checkSite(site, ref.SiteID); err != nil {
		return nil, err
	}
	if err := check(&ref, nil); err != nil {
		return nil, err
	}
	if err := exactlyOne([]string{"tracking_number", "delivery_id"}, ref.TrackingNumber, ref.DeliveryID); err != nil {
		return nil, err
	}
	if ref.TrackingNumber != "" {
		if err := s.checkTrackingNumber("tracking_number", ref.TrackingNumber); err != nil {
			return nil, err
		}
	}
	match := func(d *Delivery) bool { return d.ID == ref.DeliveryID }
	if ref.TrackingNumber != "" {
		match = func(d *Delivery) bool { return d.TrackingNumber == ref.TrackingNumber }
	}
	var pi, dj int
	return s.change(ctx, site,
		func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
			if ref.TrackingNumber != "" {
				return loadByIndex(tx, byTracking, site, ref.TrackingNumber, "delivery", "tracking_number")
			}
			sid := shipmentOfDelivery(ref.DeliveryID)
			if sid == "" {
				return storage.Item[shipmentRecord]{}, notFound("delivery", "delivery_id")
			}
			it, err := loadShipment(tx, site, sid, "delivery_id")
			if errors.Is(err, deliverykit.ErrNotFound) {
				return it, notFound("delivery", "delivery_id")
			}
			return it, err
		},
		func(rec *shipmentRecord) ([]func(context.Context) error, error) {
			var ok bool
			if pi, dj, ok = findDelivery(&rec.Shipment, match); !ok {
				return nil, notFound("delivery", "delivery_id")
			}
			d := rec.Shipment.Parcels[pi].Deliveries[dj]
			if _, err := deliveryMove(&d, opCancel); err != nil {
				return nil, err
			}
			if d.ManifestID != "" {
				return nil, manifested(&d)
			}
			return []func(context.Context) error{s.cancelCall(site, rec, d)}, nil
		},
		func(rec *shipmentRecord, now time.Time) ([]event.Event, error) {
			sh := &rec.Shipment
			d := &sh.Parcels[pi].Deliveries[dj]
			d.State, d.CancelledAt = DeliveryCancelled, &now
			if sh.State = derivedState(sh); sh.State == ShipmentCancelled {
				sh.CancelledAt = &now
			}
			return nil, nil
		})
}

// CancelShipment cancels a shipment and every live delivery of it at the
// carriers (POST /shipments.cancel). A shipment any of whose deliveries the
// carrier has picked up cannot be cancelled.
func (s *Service) CancelShipment(ctx context.Context, site string, ref ShipmentRef) (*Shipment, error) {
	if err := checkSite(site, ref.SiteID); err != nil {
		return nil, err
	}
	if err := check(&ref, nil); err != nil {
		return nil, err
	}
	return s.change(ctx, site,
		func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
			return loadShipment(tx, site, ref.ShipmentID, "shipment_id")
		},
		func(rec *shipmentRecord) ([]func(context.Context) error, error) {
			sh := &rec.Shipment
			if err := shipmentAllow(sh, opShipCancel); err != nil {
				return nil, err
			}
			var calls []func(context.Context) error
			for _, p := range sh.Parcels {
				for _, d := range p.Deliveries {
					if d.State == DeliveryCancelled {
						continue
					}
					if _, err := deliveryMove(&d, opCancel); err != nil {
						return nil, err
					}
					if d.ManifestID != "" {
						return nil, manifested(&d)
					}
					calls = append(calls, s.cancelCall(site, rec, d))
				}
			}
			return calls, nil
		},
		func(rec *shipmentRecord, now time.Time) ([]event.Event, error) {
			sh := &rec.Shipment
			for i := range sh.Parcels {
				for j := range sh.Parcels[i].Deliveries {
					if d := &sh.Parcels[i].Deliveries[j]; d.State != DeliveryCancelled {
						d.State, d.CancelledAt = DeliveryCancelled, &now
					}
				}
			}
			sh.State, sh.CancelledAt = ShipmentCancelled, &now
			return nil, nil
		})
}

// ConfirmPickup records that the carrier collected a delivery: it moves
// to PICKED_UP and can no longer be cancelled (extension endpoint
// POST /deliveries.confirmPickup, for carrier integrations). The first
// confirmation writes an event.DeliveryPickedUp (subject: the tracking
// number) in the same transaction; a repeated one changes nothing and
// writes none.
func (s *Service) ConfirmPickup(ctx context.Context, site string, req ConfirmPickupRequest) (*Shipment, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	if err := check(&req, nil); err != nil {
		return nil, err
	}
	if err := s.checkTrackingNumber("tracking_number", req.TrackingNumber); err != nil {
		return nil, err
	}
	var at time.Time
	if req.PickedUpAt != "" {
		at, _ = time.Parse(time.RFC3339Nano, req.PickedUpAt) // checked by the tags
		at = at.UTC()
	}
	var pi, dj int
	return s.change(ctx, site,
		func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
			return loadByIndex(tx, byTracking, site, req.TrackingNumber, "delivery", "tracking_number")
		},
		func(rec *shipmentRecord) ([]func(context.Context) error, error) {
			pi, dj, _ = findDelivery(&rec.Shipment, func(d *Delivery) bool { return d.TrackingNumber == req.TrackingNumber })
			_, err := deliveryMove(&rec.Shipment.Parcels[pi].Deliveries[dj], opConfirmPickup)
			return nil, err
		},
		func(rec *shipmentRecord, now time.Time) ([]event.Event, error) {
			d := &rec.Shipment.Parcels[pi].Deliveries[dj]
			if d.State == DeliveryPickedUp {
				return nil, nil // a repeated scan: reported already
			}
			if at.IsZero() {
				at = now
			}
			d.State, d.PickedUpAt = DeliveryPickedUp, &at
			rec.Shipment.State = derivedState(&rec.Shipment)
			ev, err := event.New("", site, d.TrackingNumber, at, deliveryPickedUp(&rec.Shipment, d))
			if err != nil {
				return nil, err
			}
			return []event.Event{ev}, nil
		})
}

// Update changes a shipment (POST /shipments.update). Before booking,
// sender, receiver, reference and attributes may change; once booked, the
// labels are printed and tracking knows the parties, so only attributes
// may change (sending the current value of another field is accepted); a
// cancelled shipment does not change.
func (s *Service) Update(ctx context.Context, site string, req UpdateShipmentRequest) (*Shipment, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	if err := check(&req, nil); err != nil {
		return nil, err
	}
	return s.change(ctx, site,
		func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
			return loadShipment(tx, site, req.ShipmentID, "shipment_id")
		},
		func(rec *shipmentRecord) ([]func(context.Context) error, error) {
			sh := &rec.Shipment
			if err := shipmentAllow(sh, opShipUpdate); err != nil {
				return nil, err
			}
			if sh.State == ShipmentCreated {
				return nil, crossesUndeclared(sh, req)
			}
			var vs validation.Violations
			frozen := func(field string, changed bool) {
				if changed {
					vs.Addf(field, "state", "cannot change once the shipment is %s", sh.State)
				}
			}
			frozen("sender", req.Sender != nil && !sameJSON(*req.Sender, sh.Sender))
			frozen("receiver", req.Receiver != nil && !sameJSON(*req.Receiver, sh.Receiver))
			frozen("reference", req.Reference != nil && *req.Reference != sh.Reference)
			if len(vs) > 0 {
				return nil, &deliverykit.Error{Kind: deliverykit.KindFailedPrecondition,
					Message: fmt.Sprintf("shipment %s is %s: only attributes may change", sh.ID, sh.State), Violations: vs}
			}
			return nil, nil
		},
		func(rec *shipmentRecord, _ time.Time) ([]event.Event, error) {
			sh := &rec.Shipment
			if req.Sender != nil {
				sh.Sender = *req.Sender
			}
			if req.Receiver != nil {
				sh.Receiver = *req.Receiver
			}
			if req.Reference != nil {
				sh.Reference = *req.Reference
			}
			if req.Attributes != nil {
				sh.Attributes = maps.Clone(*req.Attributes)
			}
			return nil, nil
		})
}

// crossesUndeclared refuses an update of a shipment without a customs
// declaration that would make it cross a customs border: a declaration is
// given when the shipment is created, and an update cannot add one.
func crossesUndeclared(sh *Shipment, req UpdateShipmentRequest) error {
	if sh.Customs != nil || (req.Sender == nil && req.Receiver == nil) {
		return nil
	}
	snd, rcv := sh.Sender, sh.Receiver
	if req.Sender != nil {
		snd = *req.Sender
	}
	if req.Receiver != nil {
		rcv = *req.Receiver
	}
	if !requiresDeclaration(&snd, &rcv) {
		return nil
	}
	field := "receiver"
	if req.Receiver == nil {
		field = "sender"
	}
	return deliverykit.InvalidField(field+".address.country", "customs",
		"crosses a customs border and the shipment has no customs declaration: create a new shipment with customs")
}

// deliveryPickedUp describes delivery d of sh as collected by its carrier.
func deliveryPickedUp(sh *Shipment, d *Delivery) event.DeliveryPickedUp {
	p := event.DeliveryPickedUp{
		ShipmentID: sh.ID, DeliveryID: d.ID, OrderExternalID: orderExternalID(sh),
		TrackingNumber: d.TrackingNumber, ProductRef: d.CarrierProductRef,
	}
	if d.PickedUpAt != nil {
		p.PickedUpAt = d.PickedUpAt.UTC()
	}
	return p
}

// sameJSON compares two values as they are stored.
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(ja, jb)
}
