package tracking

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Retention. An order is kept Options.Retention.Tracking after its last
// activity: its registration, a parcel's registration, a carrier event
// (the delivery is one). Its time index entry (expiry, class "order") is
// at its ActiveAt and moves, in the transaction that writes the activity,
// when the activity is a day or more later (activityStep): a parcel with
// many events costs one more write of its order a day, not one per
// event. The sweep then reads the order's parcels, and an order whose
// parcels saw activity since its entry was written moves to that time
// instead of being deleted, so the order goes exactly
// Retention.Tracking after its last activity.
//
// An order goes with its parcels, every link token that names it (the
// order's own link, rotated ones that now say "expired", links handed out
// for booked parcels: the index orderTokens lists them all, written with
// each token), and its entries in ordersByExtID and ordersByEmail.

// expiry is the orders' time index (package retention).
var expiry = retention.Index{Name: "tracking.expiry"}

const classOrder = "order"

// activityStep is how much later than its entry an activity must be to
// move the entry at once; smaller moves wait for the sweep.
const activityStep = 24 * time.Hour

// orderTokens lists the link tokens of each order: key (site, tos_id,
// token), written in the transaction that writes the token.
var orderTokens = storage.Collection[struct{}]{Name: "tracking.order_tokens"}

// putToken stores a new link token and lists it under its order.
func putToken(tx storage.Tx, token string, t tokenRecord) error {
	if _, err := tokens.Put(tx, token, t, storage.MustNotExist()); err != nil {
		return err
	}
	_, err := orderTokens.Put(tx, storage.Key(t.Site, t.TosID, token), struct{}{}, storage.AnyVersion)
	return err
}

// activeAt is when the order's retention counts from as far as the order
// itself knows.
func (o *orderRecord) activeAt() time.Time {
	if o.ActiveAt.IsZero() {
		return o.CreatedAt
	}
	return o.ActiveAt
}

func (o *orderRecord) expiryEntry() retention.Entry {
	return retention.Entry{Class: classOrder, At: o.activeAt()}
}

// active moves the order's activity to now (never back) and its entry
// with it, inside tx; the caller writes o.
func (o *orderRecord) active(tx storage.Tx, key string, now time.Time) error {
	if !now.After(o.activeAt()) {
		return nil
	}
	old := o.expiryEntry()
	o.ActiveAt = now
	return expiry.Move(tx, key, old, o.expiryEntry())
}

// activeSince is active when now is at least activityStep after the
// order's activity; it reports whether it moved it (the caller then
// writes o).
func (o *orderRecord) activeSince(tx storage.Tx, key string, now time.Time) (bool, error) {
	if now.Sub(o.activeAt()) < activityStep {
		return false, nil
	}
	return true, o.active(tx, key, now)
}

// sweepState remembers that the backfills are done.
type sweepState struct{ backfilled retention.Once }

// Sweep deletes, at most limit (≤ 0: no limit), the orders that
// Options.Retention no longer keeps at now (Retention.Tracking after their
// last activity; never when it is retention.Never), each with its
// parcels, link tokens and index entries, retention.Batch orders per
// transaction, and returns how many orders it deleted. The first Sweep of
// a store written before orders had these indexes builds them first
// (retention.Backfill): the order→token list from the stored tokens,
// then the time index from the stored orders.
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.swept.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, err
	}
	keep := retention.Resolve(s.opts.Retention.Tracking, retention.DefaultTracking)
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, []retention.Class{{Name: classOrder, Keep: keep}}, deleteOrder)
	if err != nil {
		return n, fmt.Errorf("tracking: %w", err)
	}
	return n, nil
}

func (s *Service) backfill(ctx context.Context) error {
	err := retention.Backfill(ctx, s.store, orderTokens.Name, tokens.Name, func(tx storage.Tx, rec storage.Record) error {
		t, err := tokens.Decode(rec)
		if err != nil {
			return err
		}
		_, err = orderTokens.Put(tx, storage.Key(t.Value.Site, t.Value.TosID, rec.Key), struct{}{}, storage.AnyVersion)
		return err
	})
	if err != nil {
		return fmt.Errorf("tracking: listing the stored link tokens by order: %w", err)
	}
	err = expiry.Backfill(ctx, s.store, orders.Name, func(rec storage.Record) (retention.Entry, error) {
		it, err := orders.Decode(rec)
		if err != nil {
			return retention.Entry{}, err
		}
		return it.Value.expiryEntry(), nil
	})
	if err != nil {
		return fmt.Errorf("tracking: indexing stored orders: %w", err)
	}
	return nil
}

// deleteOrder deletes the order at key, found by its time index entry e,
// with its parcels, tokens and index entries. An order whose parcels were
// active after e moves to that time and stays.
func deleteOrder(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, err := orders.Get(tx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	o := it.Value
	if !o.expiryEntry().Same(e) {
		// Not the order's entry (it moved since): make sure the one it
		// has is there; the sweep deletes e.
		return false, expiry.Move(tx, key, retention.Entry{}, o.expiryEntry())
	}
	site, _, _ := strings.Cut(key, storage.KeySep)
	var ps []storage.Item[parcelRecord]
	last := o.activeAt()
	for _, ref := range o.Parcels {
		p, err := parcels.Get(tx, parcelKey(site, ref.TrackingNumber, ref.CarrierID))
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if p.Value.TosID != o.TosID {
			continue
		}
		ps = append(ps, p)
		for _, t := range []time.Time{p.Value.CreatedAt, p.Value.LastEventAt} {
			if t.After(last) {
				last = t
			}
		}
	}
	if last.After(e.At) && !(retention.Entry{Class: classOrder, At: last}).Same(e) {
		// Active since its entry was written: it moves (its entry e is
		// deleted by the sweep).
		o.ActiveAt = last
		if _, err := orders.Put(tx, key, o, storage.VersionIs(it.Version)); err != nil {
			return false, err
		}
		return false, expiry.Move(tx, key, retention.Entry{}, o.expiryEntry())
	}
	for _, p := range ps {
		if err := parcels.Delete(tx, p.Key, storage.VersionIs(p.Version)); err != nil {
			return false, err
		}
	}
	if err := orders.Delete(tx, key, storage.VersionIs(it.Version)); err != nil {
		return false, err
	}
	owned := func(id idRecord) bool { return id.TosID == o.TosID }
	if err := ordersByExtID.DeleteIf(tx, storage.Key(site, o.Request.ExternalID), owned); err != nil {
		return false, err
	}
	if email := strings.ToLower(receiverEmail(&o)); email != "" {
		if err := ordersByEmail.Delete(tx, storage.Key(site, email, o.TosID), storage.AnyVersion); err != nil {
			return false, err
		}
	}
	// The order's tokens: read first, deleted after the scan.
	var toks []string
	for ix, err := range orderTokens.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, o.TosID)}) {
		if err != nil {
			return false, err
		}
		toks = append(toks, ix.Key)
	}
	for _, ixKey := range toks {
		token := ixKey[strings.LastIndex(ixKey, storage.KeySep)+len(storage.KeySep):]
		if err := tokens.DeleteIf(tx, token, func(t tokenRecord) bool { return t.Site == site && t.TosID == o.TosID }); err != nil {
			return false, err
		}
		if err := orderTokens.Delete(tx, ixKey, storage.AnyVersion); err != nil {
			return false, err
		}
	}
	return true, nil
}
