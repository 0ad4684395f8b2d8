package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Retention. A settled (delivered or dead) delivery has an entry in the
// time index expiry (package retention), class "settled", at its
// SettledAt, written in the transaction that settles it; Sweep deletes it
// Options.Retention later, with its entries in deliveryIDs and, when it is
// the event's latest delivery, byEvent. Pending deliveries have no entry:
// they are kept until they settle. The retention sweeper
// (wiring.Services.Run) calls Sweep, as it does every area's.

// expiry is the settled deliveries' time index.
var expiry = retention.Index{Name: "webhook.retention"}

const classSettled = "settled"

// oldExpiry is the time index deliveries settled before this one had
// (key: expiry time, seq). The first Sweep indexes their deliveries anew
// and deletes its entries.
var oldExpiry = storage.Collection[ref]{Name: "webhook.expiry"}

func settledEntry(r record) retention.Entry {
	if !r.settled() || r.SettledAt.IsZero() {
		return retention.Entry{}
	}
	return retention.Entry{Class: classSettled, At: r.SettledAt}
}

// settle indexes r, settled at now, inside the transaction that stores it.
func settle(tx storage.Tx, r *record) error {
	return expiry.Move(tx, deliveryKey(r.Site, r.Endpoint, r.Seq), retention.Entry{}, settledEntry(*r))
}

// Sweep deletes, at most limit (≤ 0: no limit), the deliveries settled
// Options.Retention or longer before now (none when it is
// retention.Never), retention.Batch per transaction, and returns how many
// it deleted. The first Sweep of a store written before deliveries had
// this index indexes the settled ones first (retention.Backfill).
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, err
	}
	keep := max(s.opts.Retention, 0)
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, []retention.Class{{Name: classSettled, Keep: keep}}, deleteDelivery)
	if err != nil {
		return n, fmt.Errorf("webhook: %w", err)
	}
	return n, nil
}

func (s *Service) backfill(ctx context.Context) error {
	if err := expiry.Backfill(ctx, s.store, deliveries.Name, retention.EntryOf(deliveries, settledEntry)); err != nil {
		return fmt.Errorf("webhook: indexing the stored settled deliveries: %w", err)
	}
	err := retention.Backfill(ctx, s.store, oldExpiry.Name+".dropped", oldExpiry.Name, func(tx storage.Tx, rec storage.Record) error {
		return tx.Delete(oldExpiry.Name, rec.Key, storage.AnyVersion)
	})
	if err != nil {
		return fmt.Errorf("webhook: deleting the former expiry index: %w", err)
	}
	return nil
}

// deleteDelivery is the sweep's retention.DeleteFunc: the delivery at key,
// if it is still settled at e, with its id and, when it is the event's
// latest delivery, the event's entry (an older one leaves it to the
// newer).
func deleteDelivery(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, ok, err := retention.Current(tx, deliveries, key, e, settledEntry)
	if !ok {
		return false, err
	}
	r := it.Value
	if err := deliveries.Delete(tx, key, storage.AnyVersion); err != nil {
		return false, err
	}
	if r.ID != "" {
		if err := deliveryIDs.Delete(tx, storage.Key(r.Site, r.Endpoint, r.ID), storage.AnyVersion); err != nil {
			return false, err
		}
	}
	err = byEvent.DeleteIf(tx, storage.Key(r.Site, r.Endpoint, r.EventID), func(latest uint64) bool { return latest == r.Seq })
	return err == nil, err
}
