package shipment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Retention. A shipment is kept Options.Retention after its last change
// (its updated_at: booking, a pickup, a carrier event, a cancellation),
// whatever its state: merchants need shipments for their bookkeeping, and
// one not changed for that long has reached its end. Its entry in the time
// index expiry (package retention, class "shipment") is written at its
// creation, and the writes that change it leave the entry where it is: the
// sweep reads a shipment whose entry is due and moves the entry to its
// updated_at when that is later, so the shipment goes exactly
// Options.Retention after its last change at the cost of one write per
// sweep that finds it changed, not one per change.
//
// A shipment goes with its entries in byExternalID, byTracking and pending. The
// shipment it is connected to (return_shipment_id, outbound_shipment_id)
// keeps the id, which then reads as NotFound.

// expiry is the shipments' time index.
var expiry = retention.Index{Name: "shipment.expiry"}

const classShipment = "shipment"

// classManifest is the class of manifests in expiry: a manifest is kept
// Options.Retention after it was made, as long as the shipments it lists
// are at least, and never changes.
const classManifest = "manifest"

// shipmentEntry is where a shipment's entry belongs: its last change.
func shipmentEntry(sh *Shipment) retention.Entry {
	at := sh.UpdatedAt
	if at.Before(sh.CreatedAt) {
		at = sh.CreatedAt
	}
	return retention.Entry{Class: classShipment, At: at}
}

// Sweep deletes, at most limit (≤ 0: no limit), the shipments that
// Options.Retention no longer keeps at now (none when it is
// retention.Never), with their index entries, retention.Batch per
// transaction, and returns how many it deleted. The first Sweep of a
// store written before shipments had the index indexes them first
// (retention.Backfill).
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, err
	}
	keep := retention.Resolve(s.opts.Retention, retention.DefaultShipments)
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, []retention.Class{{Name: classShipment, Keep: keep}, {Name: classManifest, Keep: keep}},
		func(tx storage.Tx, key string, e retention.Entry) (bool, error) {
			if e.Class == classManifest {
				return true, manifests.Delete(tx, key, storage.Condition{})
			}
			return deleteShipment(tx, key, e)
		})
	if err != nil {
		return n, fmt.Errorf("shipment: %w", err)
	}
	return n, nil
}

func (s *Service) backfill(ctx context.Context) error {
	err := expiry.Backfill(ctx, s.store, shipments.Name, func(rec storage.Record) (retention.Entry, error) {
		it, err := shipments.Decode(rec)
		if err != nil {
			return retention.Entry{}, err
		}
		return shipmentEntry(&it.Value.Shipment), nil
	})
	if err != nil {
		return fmt.Errorf("shipment: indexing the stored shipments: %w", err)
	}
	return nil
}

// deleteShipment is the sweep's retention.DeleteFunc: the shipment at key
// with its index entries, unless it changed after its entry e, in which
// case its entry moves to its last change.
func deleteShipment(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, err := shipments.Get(tx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	site, _, _ := strings.Cut(key, storage.KeySep)
	sh := &it.Value.Shipment
	if cur := shipmentEntry(sh); !cur.Same(e) {
		// Changed since: the sweep deletes e, the entry moves.
		return false, expiry.Move(tx, key, retention.Entry{}, cur)
	}
	if err := shipments.Delete(tx, key, storage.VersionIs(it.Version)); err != nil {
		return false, err
	}
	if err := syncPending(tx, pendingKeys(site, &it.Value), nil, sh.ID); err != nil {
		return false, err
	}
	// Index entries another shipment took over are left to it.
	unindex := func(k string) error {
		ref, err := byTracking.Get(tx, k)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil || ref.Value.ShipmentID != sh.ID {
			return err
		}
		return byTracking.Delete(tx, k, storage.VersionIs(ref.Version))
	}
	for _, p := range sh.Parcels {
		for _, d := range p.Deliveries {
			if d.TrackingNumber == "" {
				continue
			}
			if err := unindex(storage.Key(site, d.TrackingNumber)); err != nil {
				return false, err
			}
		}
	}
	if sh.ExternalID != "" {
		k := storage.Key(site, sh.ExternalID)
		ref, err := byExternalID.Get(tx, k)
		if err == nil && ref.Value.ShipmentID == sh.ID {
			err = byExternalID.Delete(tx, k, storage.VersionIs(ref.Version))
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return false, err
		}
	}
	return true, nil
}
