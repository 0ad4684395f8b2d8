package tracking

import (
	"iter"
	"maps"
	"slices"

	"github.com/deliverykit/deliverykit/internal/versioncache"
	"github.com/deliverykit/deliverykit/storage"
)

// ReadCacheBytes is the memory budget of each of a Service's two caches
// of decoded records (orders, and parcels) that GET /parcels reads: a few
// thousand orders, the ones whose parcels are being looked up now.
const ReadCacheBytes = 2 << 20

// readCache maps a record's key to its decoded value at one stored
// version (package versioncache), within ReadCacheBytes. Cached values are
// shared by every read and must not be modified: the readers copy the
// struct and only read what it points to.
type readCache[V any] struct {
	versioncache.Cache[string, *V]
}

// readEntryBytes is what an entry holds besides its decoded value, which
// is estimated at twice its encoded size (as checkout's cache does).
const readEntryBytes = 256

// get returns the value decoded from rec of the collection coll, from the
// cache when rec's version was decoded before, else by decode (reading
// the record when rec comes without its value), keeping the result. Only
// records read in a View may be passed: a version seen inside an Update
// may be rolled back and drawn again for another value.
func (c *readCache[V]) get(tx storage.Tx, coll string, rec storage.Record, decode func(storage.Record) (storage.Item[V], error)) (storage.Item[V], error) {
	if v, version, ok := c.Get(rec.Key); ok && version == rec.Version {
		return storage.Item[V]{Key: rec.Key, Value: *v, Version: rec.Version}, nil
	}
	if rec.Value == nil {
		// Listed without its value (scanVersions): read it, at the
		// same version in this View's snapshot.
		var err error
		if rec, err = tx.Get(coll, rec.Key); err != nil {
			return storage.Item[V]{}, err
		}
	}
	it, err := decode(rec)
	if err != nil {
		return it, err
	}
	v := it.Value
	c.Put(rec.Key, rec.Version, int64(readEntryBytes+len(rec.Key)+2*len(rec.Value)), &v)
	return it, nil
}

// parcelVersions lists the parcel records of a tracking number, without
// their values where the store can (scanVersions).
func parcelVersions(tx storage.Tx, site, trackingNumber string) ([]storage.Record, error) {
	var out []storage.Record
	for rec, err := range scanVersions(tx, parcels.Name, storage.Range{Prefix: storage.KeyPrefix(site, trackingNumber), Limit: parcelsPerNumber}) {
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// cachedOrder is orders.Get through the Service's cache of decoded
// orders; for reads in a View only.
func (s *Service) cachedOrder(tx storage.Tx, key string) (storage.Item[orderRecord], error) {
	rec, err := tx.Get(orders.Name, key)
	if err != nil {
		return storage.Item[orderRecord]{}, err
	}
	return s.orderCache.get(tx, orders.Name, rec, orders.Decode)
}

// scanVersions lists records without their values where the store can
// (storage.VersionScanner), else with them.
func scanVersions(tx storage.Tx, coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	if vs, ok := tx.(storage.VersionScanner); ok {
		return vs.ScanVersions(coll, r)
	}
	return tx.Scan(coll, r)
}

// owned returns tp with its own copy of everything it points to that may
// come from the records it was made of: the records are the caches',
// shared by every read, and a caller of Parcels may modify its answer.
// Strings are shared: they cannot be modified.
func owned(tp TrackingParcel) TrackingParcel {
	tp.CurrentProgress = ownedProgress(tp.CurrentProgress)
	if tp.Destination != nil {
		l := *tp.Destination
		l.Address = ownedAddress(l.Address)
		if l.OperationalHours != nil {
			h := *l.OperationalHours
			h.FreeText = slices.Clone(h.FreeText)
			l.OperationalHours = &h
		}
		l.PickupInstructionsText = maps.Clone(l.PickupInstructionsText)
		tp.Destination = &l
	}
	if tp.ProgressHistory != nil {
		h := make([]ProgressItem, len(tp.ProgressHistory))
		for i := range tp.ProgressHistory {
			h[i] = *ownedProgress(&tp.ProgressHistory[i])
		}
		tp.ProgressHistory = h
	}
	tp.Receiver = ownedPtr(tp.Receiver)
	if tp.Alerts != nil {
		as := make([]Alert, len(tp.Alerts))
		for i, a := range tp.Alerts {
			a.AwaitingSupplier = ownedEstimate(a.AwaitingSupplier)
			a.Linehaul = ownedEstimate(a.Linehaul)
			a.DeliveryAttemptFailed = ownedPtr(a.DeliveryAttemptFailed)
			a.DeliveryDelayed = ownedPtr(a.DeliveryDelayed)
			a.DeliveryDelayedFromCarrier = ownedPtr(a.DeliveryDelayedFromCarrier)
			a.EstimatedDeliveryTimeUpdated = ownedPtr(a.EstimatedDeliveryTimeUpdated)
			a.OutForDelivery = ownedPtr(a.OutForDelivery)
			a.SubmissionDelayed = ownedPtr(a.SubmissionDelayed)
			as[i] = a
		}
		tp.Alerts = as
	}
	tp.EstimatedDeliveryTime = ownedPtr(tp.EstimatedDeliveryTime)
	return tp
}

func ownedPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	cp := *p
	return &cp
}

func ownedProgress(p *ProgressItem) *ProgressItem {
	if p == nil {
		return nil
	}
	cp := *p
	cp.EstimatedTime = ownedPtr(cp.EstimatedTime)
	return &cp
}

func ownedEstimate(e *EstimatePayload) *EstimatePayload {
	if e == nil {
		return nil
	}
	cp := *e
	cp.EstimatedTime = ownedPtr(cp.EstimatedTime)
	cp.EstimatedTimeRange = ownedPtr(cp.EstimatedTimeRange)
	return &cp
}

func ownedAddress(a *Address) *Address {
	if a == nil {
		return nil
	}
	cp := *a
	cp.AddressLines = slices.Clone(cp.AddressLines)
	cp.Coordinates = ownedPtr(cp.Coordinates)
	return &cp
}
