package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Retention. A notification is kept Options.Retention.Tracking after it
// settled (sent, failed for good, or cancelled): the time index expiry
// has it under class "settled" at its SettledAt, written in the
// transaction that settles it (putDue). A settled notification is never
// written again (a retrigger is a new one), so its entry never moves. It
// goes with its entries in byOrder, byParcel, due and dedup.
//
// What notify knows of a parcel's progress (parcelStates) is kept as
// long after the parcel's last superseding step: class "parcel" at its
// MovedOnAt, moved by movedOn. The parcels waiting at a pickup point
// (waiting, remindersDue) leave when their reminder is made or the parcel
// moves on, and need no sweep.

// expiry is notify's time index (package retention).
var expiry = retention.Index{Name: "notify.expiry"}

// Classes of the time index.
const (
	classSettled = "settled"
	classParcel  = "parcel"
)

// settle gives r, when it is no longer open, its settle time (now, unless
// it has one) and its time index entry, inside tx.
func settle(tx storage.Tx, r *record, now time.Time) error {
	if r.open() {
		return nil
	}
	if r.SettledAt.IsZero() {
		r.SettledAt = now.UTC()
	}
	return expiry.Move(tx, storage.Key(r.Site, r.ID), retention.Entry{}, r.expiryEntry())
}

// expiryEntry is the notification's place in the time index: none while
// it is open. Notifications settled before SettledAt was kept count from
// when they were sent, else from when they were scheduled.
func (r *record) expiryEntry() retention.Entry {
	if r.open() {
		return retention.Entry{}
	}
	at := r.SettledAt
	if at.IsZero() {
		at = r.TriggeredAt
	}
	if at.IsZero() {
		at = r.ScheduledAt
	}
	return retention.Entry{Class: classSettled, At: at}
}

// parcelEntry is the time index entry of a parcel state moved on at t.
func parcelEntry(t time.Time) retention.Entry {
	if t.IsZero() {
		return retention.Entry{}
	}
	return retention.Entry{Class: classParcel, At: t}
}

// Sweep deletes, at most limit (≤ 0: no limit), the notifications settled
// longer than Options.Retention.Tracking before now (never when it is
// retention.Never), each with every index entry, and the parcel states
// whose last superseding step is as old, retention.Batch per transaction.
// It returns how many records it deleted. The first Sweep of a store
// written before notifications had a time index indexes them first
// (retention.Index.Backfill).
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, err
	}
	keep := retention.Resolve(s.opts.Retention.Tracking, retention.DefaultTracking)
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, []retention.Class{
		{Name: classSettled, Keep: keep}, {Name: classParcel, Keep: keep},
	}, deleteExpired)
	if err != nil {
		return n, fmt.Errorf("notify: %w", err)
	}
	return n, nil
}

// backfillParcels marks the backfill of parcel states apart from that of
// notifications (retention.Backfill keys its marks by name).
const backfillParcels = "notify.expiry.parcels"

func (s *Service) backfill(ctx context.Context) error {
	err := expiry.Backfill(ctx, s.store, notifications.Name, retention.EntryOf(notifications, func(r record) retention.Entry { return r.expiryEntry() }))
	if err != nil {
		return fmt.Errorf("notify: indexing stored notifications: %w", err)
	}
	err = retention.Backfill(ctx, s.store, backfillParcels, parcelStates.Name, func(tx storage.Tx, rec storage.Record) error {
		it, err := parcelStates.Decode(rec)
		if err != nil {
			return err
		}
		return expiry.Move(tx, rec.Key, retention.Entry{}, parcelEntry(it.Value.MovedOnAt))
	})
	if err != nil {
		return fmt.Errorf("notify: indexing stored parcel states: %w", err)
	}
	return nil
}

func deleteExpired(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	if e.Class == classParcel {
		return deleteParcelState(tx, key, e)
	}
	return deleteNotification(tx, key, e)
}

// deleteNotification deletes the notification at key, found by its entry
// e, with its entries in byOrder, byParcel, due and dedup.
func deleteNotification(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, ok, err := retention.Current(tx, notifications, key, e, func(r record) retention.Entry { return r.expiryEntry() })
	if !ok {
		return false, err
	}
	r := it.Value
	if err := notifications.Delete(tx, key, storage.VersionIs(it.Version)); err != nil {
		return false, err
	}
	if err := byOrder.Delete(tx, storage.Key(r.Site, r.ExternalID, r.ID), storage.AnyVersion); err != nil {
		return false, err
	}
	if r.TrackingNumber != "" {
		if err := byParcel.Delete(tx, storage.Key(r.Site, r.TrackingNumber, r.ID), storage.AnyVersion); err != nil {
			return false, err
		}
	}
	// A settled notification has no due entry: putDue took it off when
	// it settled.
	if r.RetriggerOf != "" {
		return true, nil // a retrigger has no dedup entry
	}
	// Its dedup entry: the key ends with the time of its cause, which
	// notifications stored before CauseAt was kept do not know, so the
	// parcel's entries of its name and channel are read (a handful).
	var mine []string
	for d, err := range dedup.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(r.Site, r.ExternalID, r.TrackingNumber, string(r.Name), string(r.Channel))}) {
		if err != nil {
			return false, err
		}
		if d.Value.ID == r.ID {
			mine = append(mine, d.Key)
		}
	}
	for _, k := range mine {
		if err := dedup.Delete(tx, k, storage.AnyVersion); err != nil {
			return false, err
		}
	}
	return true, nil
}

// deleteParcelState deletes the parcel state at key, found by its entry
// e, unless the parcel moved on since.
func deleteParcelState(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, ok, err := retention.Current(tx, parcelStates, key, e, func(p parcelState) retention.Entry { return parcelEntry(p.MovedOnAt) })
	if !ok {
		return false, err
	}
	return true, parcelStates.Delete(tx, key, storage.VersionIs(it.Version))
}
