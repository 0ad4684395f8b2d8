package shipment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// The pending index lists, per site and carrier, the deliveries that wait
// for a manifest (manifestable: booked, not collected, not cancelled, in
// no manifest), keyed site, carrier, shipment id, delivery id. A close
// reads the carrier's range of it instead of every shipment of the site,
// so its cost follows the parcels of the day, not the site's history.
//
// Every write of a shipment goes through putShipmentRecord, which brings
// the index in line with the record in the same transaction: booking adds
// entries, a cancellation, a collection or a manifest removes them. A
// store written before the index existed is indexed once, before the
// first close (pendingBackfill).
var pending = storage.Collection[idRecord]{Name: "shipment.pending"}

// pendingKeys are the pending index keys of a shipment record.
func pendingKeys(site string, rec *shipmentRecord) map[string]bool {
	var keys map[string]bool
	for i := range rec.Shipment.Parcels {
		for j := range rec.Shipment.Parcels[i].Deliveries {
			d := &rec.Shipment.Parcels[i].Deliveries[j]
			if !manifestable(d) {
				continue
			}
			if keys == nil {
				keys = map[string]bool{}
			}
			keys[storage.Key(site, rec.CarrierIDs[d.ID], rec.Shipment.ID, d.ID)] = true
		}
	}
	return keys
}

// putShipmentRecord writes rec at key under cond and brings the pending
// index in line with it. The index entries of the record it replaces are
// read from the stored record, not from the caller's copy: callers change
// their copy in place.
func putShipmentRecord(tx storage.Tx, key string, rec shipmentRecord, cond storage.Condition) error {
	site, _, _ := strings.Cut(key, storage.KeySep)
	var was map[string]bool
	if cond != storage.MustNotExist() { // else there is none to read
		old, err := shipments.Get(tx, key)
		switch {
		case err == nil:
			was = pendingKeys(site, &old.Value)
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
	}
	if _, err := shipments.Put(tx, key, rec, cond); err != nil {
		return err
	}
	return syncPending(tx, was, pendingKeys(site, &rec), rec.Shipment.ID)
}

// syncPending deletes the keys of was not in now and adds those of now
// not in was, in key order, so that concurrent writers touch the index in
// the same order.
func syncPending(tx storage.Tx, was, now map[string]bool, shipmentID string) error {
	for _, k := range slices.Sorted(maps.Keys(was)) {
		if !now[k] {
			if err := pending.Delete(tx, k, storage.Condition{}); err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(now)) {
		if !was[k] {
			if _, err := pending.Put(tx, k, idRecord{ShipmentID: shipmentID}, storage.AnyVersion); err != nil {
				return err
			}
		}
	}
	return nil
}

// pendingShipment is a shipment with deliveries waiting for a manifest,
// with their keys in the pending index.
type pendingShipment struct {
	ID   string
	Keys []string
}

// pendingShipments are the shipments of site with deliveries of carrier
// waiting for a manifest, in shipment id order, at most limit of them.
func pendingShipments(tx storage.Tx, site, carrier string, limit int) ([]pendingShipment, error) {
	var out []pendingShipment
	for it, err := range pending.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, carrier)}) {
		if err != nil {
			return nil, err
		}
		if n := len(out); n > 0 && out[n-1].ID == it.Value.ShipmentID {
			out[n-1].Keys = append(out[n-1].Keys, it.Key)
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, pendingShipment{ID: it.Value.ShipmentID, Keys: []string{it.Key}})
	}
	return out, nil
}

// dropStale deletes the keys of ps that the shipment's record (nil: it
// is gone) no longer backs. Writers keep the index in line in their
// transactions; this heals an entry a backfill on a store of weaker
// isolation wrote from an older snapshot.
func dropStale(tx storage.Tx, site string, ps pendingShipment, rec *shipmentRecord) (dropped bool, err error) {
	var backed map[string]bool
	if rec != nil {
		backed = pendingKeys(site, rec)
	}
	for _, k := range ps.Keys {
		if backed[k] {
			continue
		}
		if err := pending.Delete(tx, k, storage.Condition{}); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return dropped, err
		}
		dropped = true
	}
	return dropped, nil
}

// pendingBackfill indexes the waiting deliveries of shipments stored
// before the pending index existed, once per store (retention.Backfill
// keeps its position), before a close relies on the index. What it writes
// is what putShipmentRecord would, so writers may run meanwhile.
func (s *Service) pendingBackfill(ctx context.Context) error {
	err := retention.Backfill(ctx, s.store, pending.Name, shipments.Name, func(tx storage.Tx, rec storage.Record) error {
		it, err := shipments.Decode(rec)
		if err != nil {
			return err
		}
		site, _, _ := strings.Cut(rec.Key, storage.KeySep)
		return syncPending(tx, nil, pendingKeys(site, &it.Value), it.Value.Shipment.ID)
	})
	if err != nil {
		return fmt.Errorf("shipment: indexing the parcels waiting for a manifest: %w", err)
	}
	return nil
}
