package returns

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Retention. A return is deleted Options.Retention after its last change
// (returnRecord.UpdatedAt, its refunds' included), whatever its state,
// with its refunds, the ranks of both, its status-page tokens, its
// tracking-reference entries, its id in its order's lists and its
// complaint photos. The order stays: it is the merchant's import, and its
// lines still count the units that were returned.
//
// The merchant lists page by gapless ranks (list.go), so a site's returns
// go in rank order only: the sweep deletes the site's first live return
// while it is past its retention and stops at the first that is not. A
// return can thus stay longer than its own retention, until every older
// return of its site has gone; none goes earlier. The time index expiry
// (package retention, class "site") therefore has one entry per site with
// returns rather than one per return: its key is the site, its time at or
// before the last change of the site's first live return. The entry is
// written when a return is made that is its site's first live one; other
// writes leave it, and the sweep moves a due entry to the first return's
// last change when that is later (as the shipments' sweep does), so a
// change costs no index write.
//
// Refunds are deleted with their return; a refund is not always its
// site's oldest, so its rank is removed by ranked.remove, which shifts the
// few older live ranks instead of leaving a gap.
//
// Photos are not records of the store (Blobs): the transaction that
// deletes a return lists its photos in photoTrash, and the sweep deletes
// those blobs after it commits, then their list entries, so that a crash
// between the two leaves the list to the next sweep, never a photo with
// no record naming it.

// expiry is the returns' time index: one entry per site.
var expiry = retention.Index{Name: "returns.expiry"}

const classSite = "site"

// photoTrash lists the blob keys of the photos of deleted returns until
// their blobs are deleted: Key(uuid).
var photoTrash = storage.Collection[struct{}]{Name: "returns.photo_trash"}

// listToken records token in returnTokens, in the transaction that writes
// it to returnByToken.
func listToken(tx storage.Tx, site string, returnID uint64, token string) error {
	_, err := returnTokens.Put(tx, storage.Key(site, storage.Uint64Key(returnID), token), struct{}{}, storage.AnyVersion)
	return err
}

// indexFirst gives the site an entry in expiry when r, just inserted, is
// its first live return (the site had none, or all were deleted).
func (s *Service) indexFirst(tx storage.Tx, site string, r *returnRecord) error {
	f, err := s.returns.first(tx, site)
	if err != nil || r.Rank != f.Deleted+1 {
		return err
	}
	return expiry.Move(tx, site, retention.Entry{}, retention.Entry{Class: classSite, At: r.CreatedAt})
}

// lastChange is the return's last change: UpdatedAt, or on returns and
// refunds stored before it existed, the latest time they record.
func lastChange(r *returnRecord, refunds []refundRecord) time.Time {
	at := r.UpdatedAt
	later := func(t time.Time) {
		if t.After(at) {
			at = t
		}
	}
	laterP := func(t *time.Time) {
		if t != nil {
			later(*t)
		}
	}
	later(r.CreatedAt)
	laterP(r.CompletedAt)
	laterP(r.ShipmentRequestedAt)
	laterP(r.ArrivedAt)
	if r.Label != nil {
		later(r.Label.BookedAt)
	}
	for _, l := range r.Lines {
		laterP(l.ReturnedAt)
		if c := l.Complaint; c != nil {
			later(c.CreatedAt)
			laterP(c.DecidedAt)
			for _, im := range c.Images {
				later(im.UploadedAt)
			}
		}
	}
	for _, rf := range refunds {
		later(rf.CreatedAt)
		later(rf.UpdatedAt)
		laterP(rf.RefundedAt)
	}
	return at
}

// Sweep deletes, at most limit (≤ 0: no limit), the returns that
// Options.Retention no longer keeps at now (none when it is
// retention.Never), each site's in rank order, retention.Batch per
// transaction, and returns how many it deleted. The first Sweep of a
// store written before returns were swept indexes the stored ones first.
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, err
	}
	if err := s.emptyTrash(ctx); err != nil {
		return 0, err
	}
	keep := retention.Resolve(s.retention, retention.DefaultReturns)
	if keep <= 0 {
		return 0, nil
	}
	cutoff := now.Add(-keep)
	end := expiry.Key(retention.Entry{Class: classSite, At: cutoff}, "\xff")
	total := 0
	for limit <= 0 || total < limit {
		var key string
		err := s.store.View(ctx, func(tx storage.Tx) error {
			key = ""
			for rec, err := range tx.Scan(expiry.Name, storage.Range{Prefix: storage.KeyPrefix(classSite), Limit: 1}) {
				if err != nil {
					return err
				}
				if rec.Key <= end {
					key = rec.Key
				}
			}
			return nil
		})
		if err != nil || key == "" {
			return total, wrapSweep(err)
		}
		budget := retention.Batch
		if limit > 0 {
			budget = min(budget, limit-total)
		}
		var n int
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			n, err = s.sweepSite(tx, key, cutoff, budget)
			return err
		})
		total += n
		if err != nil {
			return total, wrapSweep(err)
		}
		if err := s.emptyTrash(ctx); err != nil {
			return total, err
		}
	}
	return total, nil
}

func wrapSweep(err error) error {
	if err != nil {
		return fmt.Errorf("returns: sweeping returns: %w", err)
	}
	return nil
}

// sweepSite deletes, inside tx, up to budget of the first live returns of
// the site of the due expiry entry key while they are past cutoff, and
// leaves the site's entry at its first live return's last change (none
// when it has none left). An entry swept since it was read is skipped.
func (s *Service) sweepSite(tx storage.Tx, key string, cutoff time.Time, budget int) (int, error) {
	e, site, err := expiry.Parse(classSite, key)
	if err != nil {
		return 0, err
	}
	if _, err := tx.Get(expiry.Name, key); errors.Is(err, storage.ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	if err := expiry.Remove(tx, site, e); err != nil {
		return 0, err
	}
	deleted := 0
	for {
		first, last, err := s.returns.bounds(tx, site)
		if err != nil || last <= first {
			return deleted, err // no return left: no entry until one is made
		}
		id, err := s.returns.idAtRank(tx, site, first+1)
		if err != nil {
			return deleted, err
		}
		it, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return deleted, fmt.Errorf("return %d of site %q, its first: %w", id, site, err)
		}
		r := it.Value
		refunds, err := loadRefunds(tx, site, r.RefundIDs)
		if err != nil {
			return deleted, err
		}
		at := lastChange(&r, refunds)
		if at.After(cutoff) || deleted == budget {
			// Kept, or left to the next transaction (its entry is due).
			return deleted, expiry.Move(tx, site, retention.Entry{}, retention.Entry{Class: classSite, At: at})
		}
		if err := s.deleteReturn(tx, site, &r, refunds); err != nil {
			return deleted, fmt.Errorf("deleting return %d of site %q: %w", id, site, err)
		}
		deleted++
	}
}

// deleteReturn deletes r, the site's first live return, with its refunds
// and every key the area keeps for it, inside tx.
func (s *Service) deleteReturn(tx storage.Tx, site string, r *returnRecord, refunds []refundRecord) error {
	for _, rf := range refunds {
		if err := refundsColl.Delete(tx, orderKey(site, rf.ID), storage.AnyVersion); err != nil {
			return err
		}
		if err := s.refunds.remove(tx, site, rf.ID); err != nil {
			return err
		}
	}
	if err := returnsColl.Delete(tx, orderKey(site, r.ID), storage.AnyVersion); err != nil {
		return err
	}
	if err := s.returns.remove(tx, site, r.ID); err != nil {
		return err
	}
	// Tokens: every one listed, and the current one (returns made before
	// the list had theirs listed by the backfill).
	prefix := storage.KeyPrefix(storage.Key(site, storage.Uint64Key(r.ID)))
	var tokens []string
	var listed []string
	for it, err := range returnTokens.Scan(tx, storage.Range{Prefix: prefix}) {
		if err != nil {
			return err
		}
		listed = append(listed, it.Key)
		tokens = append(tokens, it.Key[len(prefix):])
	}
	if !slices.Contains(tokens, r.Token) {
		tokens = append(tokens, r.Token)
	}
	for _, tok := range tokens {
		t, err := returnByToken.Get(tx, tok)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if t.Value.Site == site && t.Value.ReturnID == r.ID {
			if err := returnByToken.Delete(tx, tok, storage.VersionIs(t.Version)); err != nil {
				return err
			}
		}
	}
	for _, k := range listed {
		if err := returnTokens.Delete(tx, k, storage.AnyVersion); err != nil {
			return err
		}
	}
	// Tracking references another return took over are left to it.
	refs := make([]string, 0, len(r.Shipments)+1)
	for _, sh := range r.Shipments {
		refs = append(refs, sh.TrackingReference)
	}
	if r.Label != nil {
		refs = append(refs, r.Label.TrackingNumber)
	}
	for _, ref := range refs {
		if ref == "" {
			continue
		}
		k := storage.Key(site, ref)
		ix, err := returnByTracking.Get(tx, k)
		if err == nil && ix.Value.ID == r.ID {
			err = returnByTracking.Delete(tx, k, storage.VersionIs(ix.Version))
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	for _, l := range r.Lines {
		if l.Complaint == nil {
			continue
		}
		for _, im := range l.Complaint.Images {
			if _, err := photoTrash.Put(tx, im.UUID, struct{}{}, storage.AnyVersion); err != nil {
				return err
			}
		}
	}
	oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	o := oit.Value
	o.ReturnIDs = slices.DeleteFunc(o.ReturnIDs, func(id uint64) bool { return id == r.ID })
	o.RefundIDs = slices.DeleteFunc(o.RefundIDs, func(id uint64) bool { return slices.Contains(r.RefundIDs, id) })
	_, err = ordersColl.Put(tx, oit.Key, o, storage.VersionIs(oit.Version))
	return err
}

// emptyTrash deletes the photos of deleted returns, then their entries in
// photoTrash, retention.Batch at a time.
func (s *Service) emptyTrash(ctx context.Context) error {
	for {
		var keys []string
		err := s.store.View(ctx, func(tx storage.Tx) error {
			keys = keys[:0]
			for it, err := range photoTrash.Scan(tx, storage.Range{Limit: retention.Batch}) {
				if err != nil {
					return err
				}
				keys = append(keys, it.Key)
			}
			return nil
		})
		if err != nil || len(keys) == 0 {
			return wrapTrash(err)
		}
		for _, k := range keys {
			if err := s.blobs.DeleteBlob(ctx, k); err != nil && !errors.Is(err, deliverykit.ErrNotFound) {
				return wrapTrash(err)
			}
		}
		err = s.store.Update(ctx, func(tx storage.Tx) error {
			for _, k := range keys {
				if err := photoTrash.Delete(tx, k, storage.AnyVersion); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || len(keys) < retention.Batch {
			return wrapTrash(err)
		}
	}
}

func wrapTrash(err error) error {
	if err != nil {
		return fmt.Errorf("returns: deleting the photos of deleted returns: %w", err)
	}
	return nil
}

// backfill indexes, once, the sites of the returns stored before returns
// were swept (an entry at time zero, which the first sweep moves to the
// first return's last change), and lists their tokens.
func (s *Service) backfill(ctx context.Context) error {
	err := retention.Backfill(ctx, s.store, expiry.Name, returnsColl.Name, func(tx storage.Tx, rec storage.Record) error {
		site, _, _ := strings.Cut(rec.Key, storage.KeySep)
		return expiry.Move(tx, site, retention.Entry{}, retention.Entry{Class: classSite})
	})
	if err == nil {
		err = retention.Backfill(ctx, s.store, returnTokens.Name, returnByToken.Name, func(tx storage.Tx, rec storage.Record) error {
			it, err := returnByToken.Decode(rec)
			if err != nil {
				return err
			}
			return listToken(tx, it.Value.Site, it.Value.ReturnID, rec.Key)
		})
	}
	if err != nil {
		return fmt.Errorf("returns: indexing the stored returns: %w", err)
	}
	return nil
}
