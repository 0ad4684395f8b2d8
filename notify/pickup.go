package notify

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
)

// Pickup reminders. A parcel delivered to a pickup point waits there for
// its receiver: Observe notes it (notify.waiting) when the step
// STEP_DELIVERED_TO_PICKUP_POINT arrives and forgets it when any later
// step does (collected, sent back, …). RemindPickups, which Step calls
// every round, makes one PICKUP_REMINDER notification per channel for each
// parcel still waiting Options.PickupReminder after its arrival; Dispatch
// sends it like any other.

// triggerAtPickupPoint is the step after which a parcel waits for its
// receiver.
const triggerAtPickupPoint = "STEP_DELIVERED_TO_PICKUP_POINT"

// waitingRecord is a parcel waiting at a pickup point: what its reminder
// needs.
type waitingRecord struct {
	Site           string    `json:"site"`
	ExternalID     string    `json:"external_id"`
	TosID          string    `json:"tos_id,omitempty"`
	TrackingNumber string    `json:"tracking_number"`
	ArrivedAt      time.Time `json:"arrived_at"`
	RemindAt       time.Time `json:"remind_at"`
	ReceiverName   string    `json:"receiver_name,omitempty"`
	Email          string    `json:"email,omitempty"`
	Phone          string    `json:"phone,omitempty"`
	TrackingLink   string    `json:"tracking_link,omitempty"`
	Locale         string    `json:"locale,omitempty"`
}

var (
	// waiting holds the parcels at pickup points (site, external id,
	// tracking number).
	waiting = storage.Collection[waitingRecord]{Name: "notify.waiting"}
	// remindersDue indexes them by reminder time (remind at, site,
	// external id, tracking number), for RemindPickups.
	remindersDue = queue.NewIndex[marker]("notify.reminders_due")
)

func waitingKey(site, ext, tn string) string { return storage.Key(site, ext, tn) }

func reminderDueKey(w *waitingRecord) string {
	return queue.Key(w.RemindAt, w.Site, w.ExternalID, w.TrackingNumber)
}

// CatalogPickupReminders is the pickup reminder delay of each site from
// its catalog's notifications.pickup_reminder_days (see
// catalog.Catalog.PickupReminderDays), for Options.PickupReminder. A site
// without a catalog gets DefaultPickupReminderDelay.
func CatalogPickupReminders(catalogs map[string]*catalog.Catalog) func(site string) time.Duration {
	return func(site string) time.Duration {
		c := catalogs[site]
		if c == nil {
			return DefaultPickupReminderDelay
		}
		return time.Duration(c.PickupReminderDays()) * 24 * time.Hour
	}
}

// PickupReminderAfter is how long a parcel of the site waits at a pickup
// point before its receiver is reminded; 0 means never.
func (s *Service) PickupReminderAfter(site string) time.Duration {
	return max(s.opts.PickupReminder(site), 0)
}

// waits reports whether ev is a step of a parcel waiting at a pickup
// point.
func (s *Service) waits(ctx context.Context, ev *Event) (bool, error) {
	if ev.TrackingNumber == "" || !strings.HasPrefix(ev.Trigger, "STEP_") {
		return false, nil
	}
	_, found, err := s.waitingAt(ctx, waitingKey(ev.Site, ev.ExternalID, ev.TrackingNumber))
	return found, err
}

// waitingAt reads the parcel waiting at key; false when none is.
func (s *Service) waitingAt(ctx context.Context, key string) (w waitingRecord, found bool, err error) {
	err = s.store.View(ctx, func(tx storage.Tx) error {
		it, err := waiting.Get(tx, key)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		w, found = it.Value, err == nil
		return err
	})
	return w, found, err
}

// notePickup records what a step means for the parcel's wait at a pickup
// point, in tx: arrival starts it, a later step ends it.
func (s *Service) notePickup(tx storage.Tx, ev *Event) error {
	if ev.TrackingNumber == "" || !strings.HasPrefix(ev.Trigger, "STEP_") {
		return nil
	}
	key := waitingKey(ev.Site, ev.ExternalID, ev.TrackingNumber)
	old, err := waiting.Get(tx, key)
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return err
	default:
		if ev.Time.Before(old.Value.ArrivedAt) {
			return nil // an earlier step, reported late
		}
		if ev.Trigger == triggerAtPickupPoint && ev.Time.Equal(old.Value.ArrivedAt) {
			return nil // the arrival again
		}
		// The parcel moved on (or arrived again): its wait ends.
		if err := remindersDue.Collection.Delete(tx, reminderDueKey(&old.Value), storage.AnyVersion); err != nil {
			return err
		}
		if err := waiting.Delete(tx, key, storage.AnyVersion); err != nil {
			return err
		}
	}
	after := s.PickupReminderAfter(ev.Site)
	if ev.Trigger != triggerAtPickupPoint || after == 0 {
		return nil
	}
	st, err := parcelStates.Get(tx, storage.Key(ev.Site, ev.ExternalID, ev.TrackingNumber))
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if st.Value.MovedOnAt.After(ev.Time) {
		return nil // reported late: the parcel has moved on since
	}
	w := waitingRecord{Site: ev.Site, ExternalID: ev.ExternalID, TosID: ev.TosID, TrackingNumber: ev.TrackingNumber,
		ArrivedAt: ev.Time.UTC(), RemindAt: ev.Time.Add(after).UTC(), ReceiverName: ev.ReceiverName,
		Email: ev.Email, Phone: ev.Phone, TrackingLink: ev.TrackingLink, Locale: ev.Locale}
	if _, err := waiting.Put(tx, key, w, storage.AnyVersion); err != nil {
		return err
	}
	_, err = remindersDue.Collection.Put(tx, reminderDueKey(&w), marker{}, storage.AnyVersion)
	return err
}

// RemindPickups makes the PICKUP_REMINDER notifications of the parcels
// that have waited at a pickup point for the site's reminder delay at
// now, at most Options.Batch of them, and returns how many parcels it
// reminded of. Each reminder is PENDING, scheduled at the end of the
// wait, for Dispatch to send. Step calls both. A parcel is reminded of
// once: a second call, or another process calling it, makes nothing more.
func (s *Service) RemindPickups(ctx context.Context, now time.Time) (int, error) {
	return queue.Drain(ctx, s.store, remindersDue, now, s.opts.Batch, func(e queue.Entry[marker]) (string, bool) {
		return e.Key, len(strings.Split(e.Key, storage.KeySep)) == 4
	}, func(dk string) (int, error) {
		parts := strings.Split(dk, storage.KeySep)
		key := waitingKey(parts[1], parts[2], parts[3])
		w, found, err := s.waitingAt(ctx, key)
		if err != nil {
			return 0, err
		}
		ev := Event{Site: w.Site, TosID: w.TosID, ExternalID: w.ExternalID, TrackingNumber: w.TrackingNumber,
			Time: w.ArrivedAt, ReceiverName: w.ReceiverName, Email: w.Email, Phone: w.Phone,
			TrackingLink: w.TrackingLink, Locale: w.Locale}
		var recs []record
		if found && reminderDueKey(&w) == dk {
			recs = s.records(&ev, NamePickupReminder, w.RemindAt)
		}
		made := false
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			made = false
			if err := remindersDue.Collection.Delete(tx, dk, storage.AnyVersion); err != nil {
				return err
			}
			it, err := waiting.Get(tx, key)
			if errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if !found || reminderDueKey(&it.Value) != dk {
				// Its wait changed meanwhile: the new wait has its own
				// due entry.
				return nil
			}
			if err := waiting.Delete(tx, key, storage.VersionIs(it.Version)); err != nil {
				return err
			}
			made = len(recs) > 0
			return s.store1(tx, &ev, recs)
		})
		return queue.One(made, err)
	})
}
