package returns

import (
	"context"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
)

// refundSortFields are the refund transaction properties sort accepts.
var refundSortFields = []string{"id", "createdAt", "status", "amountToRefund"}

// ListRefunds returns a page of the site's refund transactions, optionally
// only those with the given status. A status filter reads all of the
// site's transactions (they are few next to orders); without one, id order
// is served from one page of an ordered scan.
func (s *Service) ListRefunds(ctx context.Context, site string, status TransactionStatus, pr PageRequest) (Page[RefundEntry], error) {
	var filter func(refundRecord) bool
	switch status {
	case "":
	case TxAwaitingExternalRefund, TxPending, TxSuccess, TxFailed, TxRefunded:
		filter = func(r refundRecord) bool { return r.Status == status }
	default:
		return Page[RefundEntry]{}, deliverykit.InvalidField("status", "oneof", "must be AWAITING_EXTERNAL_REFUND, PENDING, SUCCESS, FAILED or REFUNDED, not "+strconv.Quote(string(status)))
	}
	w, err := newWindow(pr, refundSortFields)
	if err != nil {
		return Page[RefundEntry]{}, err
	}
	var content []RefundEntry
	var total int64
	err = s.store.View(ctx, func(tx storage.Tx) error {
		rows, n, err := s.refunds.list(tx, site, w, filter, func(r refundRecord, f string) (string, int64, time.Time) {
			switch f {
			case "createdAt":
				return "", 0, r.CreatedAt
			case "status":
				return string(r.Status), 0, time.Time{}
			case "amountToRefund":
				return "", r.Amount, time.Time{}
			}
			return "", int64(r.ID), time.Time{}
		})
		if err != nil {
			return err
		}
		total = n
		content = make([]RefundEntry, len(rows))
		for i, r := range rows {
			if content[i], err = s.entry(tx, site, r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Page[RefundEntry]{}, err
	}
	return envelope(w, content, total), nil
}

// entry builds a refund entry with its order's current refund status.
func (s *Service) entry(tx storage.Tx, site string, r refundRecord) (RefundEntry, error) {
	oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
	if err != nil {
		return RefundEntry{}, err
	}
	refunds, err := loadRefunds(tx, site, oit.Value.RefundIDs)
	if err != nil {
		return RefundEntry{}, err
	}
	return s.refundEntry(oit.Value, r, refundStatusOf(refunds)), nil
}

// MarkRefunded records that the merchant paid a refund transaction out:
// AWAITING_EXTERNAL_REFUND → REFUNDED. Its return's approved lines become
// REFUNDED and the return COMPLETED (a refund.changed, then a
// return.status_changed). A transaction that is already
// REFUNDED is a FailedPrecondition saying so, one in another state a
// FailedPrecondition naming it, and nothing changes.
func (s *Service) MarkRefunded(ctx context.Context, site string, id uint64) (RefundEntry, error) {
	now := s.now()
	var out RefundEntry
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		fit, err := refundsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return notFoundOr(err, "refund transaction")
		}
		rf := fit.Value
		if rf.Status == TxRefunded {
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "refund transaction %d is already %s", id, rf.Status)
		}
		if rf.Status != TxAwaitingExternalRefund {
			// PENDING is the executor's to settle; SUCCESS is final;
			// FAILED is retried first.
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "refund transaction %d is %s; marking it refunded needs AWAITING_EXTERNAL_REFUND", id, rf.Status)
		}
		rf.Status, rf.RefundedAt = TxRefunded, &now
		rf.UpdatedAt = now
		if _, err := refundsColl.Put(tx, fit.Key, rf, storage.VersionIs(fit.Version)); err != nil {
			return err
		}
		rit, err := returnsColl.Get(tx, orderKey(site, rf.ReturnID))
		if err != nil {
			return err
		}
		r := rit.Value
		for i := range r.Lines {
			if r.Lines[i].Approved > 0 {
				r.Lines[i].Refunded = true
			}
		}
		prev := r.Status
		changes := []event.Type{event.TypeRefundChanged}
		if r.Status == StatusAwaitingRefund {
			r.Status, r.CompletedAt = StatusCompleted, &now
			changes = append(changes, event.TypeReturnStatusChanged)
		}
		r.UpdatedAt = now
		if _, err := returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version)); err != nil {
			return err
		}
		oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		if err := s.emit(tx, site, oit.Value, r, prev, now, changes...); err != nil {
			return err
		}
		out, err = s.entry(tx, site, rf)
		return err
	})
	return out, err
}
