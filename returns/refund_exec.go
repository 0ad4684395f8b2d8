package returns

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
)

// RefundExecutor pays refund transactions out, for example through the
// merchant's payment provider. With one (Options.RefundExecutor), a new
// refund transaction is PENDING and the outbox consumer HandleRefundChanged
// hands it to the executor once the change that created it has committed;
// without one it is AWAITING_EXTERNAL_REFUND and the merchant pays it out
// and reports it.
//
// ExecuteRefund may be called more than once for the same request (the
// outbox delivers at least once; a crash after the payout but before its
// outcome is stored calls it again): it must be idempotent by
// RefundRequest.Key and answer the first outcome again.
type RefundExecutor interface {
	ExecuteRefund(ctx context.Context, req RefundRequest) (RefundOutcome, error)
}

// RefundRequest is one attempt to pay a refund transaction out.
type RefundRequest struct {
	Site           string
	RefundID       uint64
	ReturnID       uint64
	OrderForeignID string
	// Attempt is 1 for the first execution and one more after each
	// RetryRefund of a FAILED transaction.
	Attempt int
	// Key identifies the attempt (site, refund id and attempt): the
	// executor's idempotency key.
	Key      string
	Method   RefundMethod
	Currency string
	Amount   Amount
}

// RefundResult is what became of an executed refund.
type RefundResult string

// The results of an execution. Accepted leaves the transaction PENDING
// until it is reported (ReportRefundSucceeded or ReportRefundFailed: the
// merchant's endpoints, or the executor calling back).
const (
	RefundAccepted  RefundResult = "ACCEPTED"
	RefundSucceeded RefundResult = "SUCCEEDED"
	RefundDeclined  RefundResult = "FAILED"
)

// RefundOutcome is an executor's answer: the result, the payout's id at
// the executor (stored as the transaction's foreignId) and, for a failure,
// why.
type RefundOutcome struct {
	Result    RefundResult
	ForeignID string
	Reason    string
}

// RefundMethod is how the customer takes a refund.
type RefundMethod string

// The refund methods. A GIFT_CARD refund gets the policy's gift card
// addition.
const (
	RefundOriginalPayment RefundMethod = "ORIGINAL_PAYMENT"
	RefundGiftCard        RefundMethod = "GIFT_CARD"
)

// RefundReport is the merchant's report of a refund's outcome (POST
// .../success and .../failure): ForeignID is the merchant's own id of the
// payout, Reason why it failed.
type RefundReport struct {
	ForeignID string `json:"foreignId" validate:"max_ref"`
	Reason    string `json:"reason" validate:"max_text"`
}

// maxFailureReason bounds an executor's failure reason as stored; a
// merchant's report is bounded by validation (max_text).
const maxFailureReason = 2000

// paid reports whether s means the money went out.
func (s TransactionStatus) paid() bool { return s == TxRefunded || s == TxSuccess }

// newRefundStatus is the status of a new refund transaction.
func (s *Service) newRefundStatus() TransactionStatus {
	if s.executor != nil {
		return TxPending
	}
	return TxAwaitingExternalRefund
}

// refundMove is one refund transition: the statuses it may start from and
// what it does.
type refundMove struct {
	name string
	from []TransactionStatus
	// apply changes the transaction and reports whether the money went
	// out (its return's lines are then refunded and the return
	// completed).
	apply func(rf *refundRecord, now time.Time) (paid bool)
	// quiet stores the change without events: it is not a transition.
	quiet bool
}

// moveRefund applies m to refund transaction id in one transaction, with
// a refund.changed (and a return.status_changed when the return is
// completed). A transaction in any other state is a FailedPrecondition
// naming its state, and nothing changes. check, when set, is asked first
// with the stored transaction; false leaves it as it is, without an error
// (the executor's outcome for an attempt that is no longer current).
func (s *Service) moveRefund(ctx context.Context, site string, id uint64, m refundMove, check func(refundRecord) bool) (RefundEntry, bool, error) {
	now := s.now()
	var out RefundEntry
	moved := false
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		moved = false
		fit, err := refundsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return notFoundOr(err, "refund transaction")
		}
		rf := fit.Value
		if check != nil && !check(rf) {
			out, err = s.entry(tx, site, rf)
			return err
		}
		if !slices.Contains(m.from, rf.Status) {
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "refund transaction %d is %s; %s needs %s", id, rf.Status, m.name, joinStatuses(m.from))
		}
		paid := m.apply(&rf, now)
		rf.UpdatedAt = now
		if _, err := refundsColl.Put(tx, fit.Key, rf, storage.VersionIs(fit.Version)); err != nil {
			return err
		}
		rit, err := returnsColl.Get(tx, orderKey(site, rf.ReturnID))
		if err != nil {
			return err
		}
		r := rit.Value
		prev := r.Status
		changes := []event.Type{event.TypeRefundChanged}
		if paid {
			for i := range r.Lines {
				if r.Lines[i].Approved > 0 {
					r.Lines[i].Refunded = true
				}
			}
			if r.Status == StatusAwaitingRefund {
				r.Status, r.CompletedAt = StatusCompleted, &now
				changes = append(changes, event.TypeReturnStatusChanged)
			}
			r.UpdatedAt = now
			if _, err := returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version)); err != nil {
				return err
			}
		}
		oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		if !m.quiet {
			if err := s.emit(tx, site, oit.Value, r, prev, now, changes...); err != nil {
				return err
			}
		}
		moved = true
		out, err = s.entry(tx, site, rf)
		return err
	})
	return out, moved, err
}

func joinStatuses(ss []TransactionStatus) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, " or ")
}

func succeed(foreignID string) func(*refundRecord, time.Time) bool {
	return func(rf *refundRecord, now time.Time) bool {
		rf.Status, rf.RefundedAt, rf.FailureReason = TxSuccess, &now, ""
		if foreignID != "" {
			rf.ForeignID = foreignID
		}
		return true
	}
}

func fail(foreignID, reason string) func(*refundRecord, time.Time) bool {
	return func(rf *refundRecord, _ time.Time) bool {
		rf.Status, rf.FailureReason = TxFailed, truncate(reason, maxFailureReason)
		if foreignID != "" {
			rf.ForeignID = foreignID
		}
		return false
	}
}

// truncate cuts s to at most n bytes at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// ReportRefundSucceeded records that a refund was paid out (POST
// /merchant/refund/transaction/{id}/success, an extension):
// AWAITING_EXTERNAL_REFUND or PENDING → SUCCESS, with the merchant's
// foreignId. The return's approved lines become REFUNDED and the return
// COMPLETED, as with MarkRefunded.
func (s *Service) ReportRefundSucceeded(ctx context.Context, site string, id uint64, rep RefundReport) (RefundEntry, error) {
	if err := checkRefundReport(rep); err != nil {
		return RefundEntry{}, err
	}
	out, _, err := s.moveRefund(ctx, site, id, refundMove{name: "a reported success",
		from: []TransactionStatus{TxAwaitingExternalRefund, TxPending}, apply: succeed(rep.ForeignID)}, nil)
	return out, err
}

// ReportRefundFailed records that a refund could not be paid out (POST
// /merchant/refund/transaction/{id}/failure, an extension):
// AWAITING_EXTERNAL_REFUND or PENDING → FAILED, with the reason. The
// return stays AWAITING_REFUND; RetryRefund tries again.
func (s *Service) ReportRefundFailed(ctx context.Context, site string, id uint64, rep RefundReport) (RefundEntry, error) {
	if err := checkRefundReport(rep); err != nil {
		return RefundEntry{}, err
	}
	out, _, err := s.moveRefund(ctx, site, id, refundMove{name: "a reported failure",
		from: []TransactionStatus{TxAwaitingExternalRefund, TxPending}, apply: fail(rep.ForeignID, rep.Reason)}, nil)
	return out, err
}

// RetryRefund tries a FAILED refund again (POST
// /merchant/refund/transaction/{id}/retry, an extension): with a refund
// executor it is PENDING and executed again as a new attempt, without one
// AWAITING_EXTERNAL_REFUND for the merchant to pay out.
func (s *Service) RetryRefund(ctx context.Context, site string, id uint64) (RefundEntry, error) {
	next := s.newRefundStatus()
	out, _, err := s.moveRefund(ctx, site, id, refundMove{name: "a retry", from: []TransactionStatus{TxFailed},
		apply: func(rf *refundRecord, _ time.Time) bool {
			rf.Status, rf.FailureReason, rf.Attempt = next, "", max(rf.Attempt, 1)+1
			return false
		}}, nil)
	return out, err
}

func checkRefundReport(rep RefundReport) error {
	if err := checkStruct(rep); err != nil {
		return err
	}
	if hasNUL(rep.ForeignID) || hasNUL(rep.Reason) {
		return deliverykit.InvalidField("foreignId", "printable", "foreignId and reason must not contain NUL characters")
	}
	return nil
}

// HandleRefundChanged is the outbox consumer of event.TypeRefundChanged
// that drives the refund executor: every PENDING transaction of the
// event's return is executed, and the outcome stored (SUCCESS, FAILED, or
// left PENDING when the executor accepted it for later). Because it runs
// from the outbox, a refund is executed even when the process stops right
// after the change that made it; an error (the executor unreachable) is
// retried by the outbox. Without an executor it does nothing.
func (s *Service) HandleRefundChanged(ctx context.Context, e event.Event) error {
	if s.executor == nil {
		return nil
	}
	returnID, err := strconv.ParseUint(e.Subject, 10, 64)
	if err != nil {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "returns: refund.changed subject %q is not a return id", e.Subject)
	}
	var pending []RefundRequest
	err = s.store.View(ctx, func(tx storage.Tx) error {
		pending = pending[:0]
		rit, err := returnsColl.Get(tx, orderKey(e.Site, returnID))
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil // deleted by retention since: nothing is left to pay
		}
		if err != nil {
			return err
		}
		refunds, err := loadRefunds(tx, e.Site, rit.Value.RefundIDs)
		if err != nil {
			return err
		}
		var foreign string
		if rit.Value.Order != nil {
			foreign = rit.Value.Order.ForeignID
		} else {
			// A return stored before it kept its order's summary.
			oit, err := ordersColl.Get(tx, orderKey(e.Site, rit.Value.OrderID))
			if err != nil {
				return err
			}
			foreign = oit.Value.ForeignID
		}
		for _, rf := range refunds {
			if rf.Status != TxPending {
				continue
			}
			attempt := max(rf.Attempt, 1)
			pending = append(pending, RefundRequest{Site: e.Site, RefundID: rf.ID, ReturnID: rf.ReturnID, OrderForeignID: foreign,
				Attempt: attempt, Key: fmt.Sprintf("%s/%d/%d", e.Site, rf.ID, attempt), Method: cmpMethod(rf.Method),
				Currency: rf.Currency, Amount: Amount{Minor: rf.Amount, Scale: rf.Scale}})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, req := range pending {
		out, err := s.executor.ExecuteRefund(ctx, req)
		if err != nil {
			return fmt.Errorf("refund executor, refund %d: %w", req.RefundID, err)
		}
		if err := s.applyOutcome(ctx, req, out); err != nil {
			return err
		}
	}
	return nil
}

func cmpMethod(m RefundMethod) RefundMethod {
	if m == "" {
		return RefundOriginalPayment
	}
	return m
}

// applyOutcome stores an executor's outcome of req, if the transaction is
// still PENDING at req's attempt (a merchant's report may have come
// first; then the outcome is dropped).
func (s *Service) applyOutcome(ctx context.Context, req RefundRequest, out RefundOutcome) error {
	current := func(rf refundRecord) bool { return rf.Status == TxPending && max(rf.Attempt, 1) == req.Attempt }
	pending := []TransactionStatus{TxPending}
	var m refundMove
	switch out.Result {
	case RefundAccepted:
		if out.ForeignID == "" {
			return nil
		}
		// Keep the executor's id while the outcome is awaited.
		m = refundMove{name: "an accepted execution", from: pending, quiet: true, apply: func(rf *refundRecord, _ time.Time) bool {
			rf.ForeignID = truncate(out.ForeignID, 256)
			return false
		}}
	case RefundSucceeded:
		m = refundMove{name: "an executed refund", from: pending, apply: succeed(truncate(out.ForeignID, 256))}
	case RefundDeclined:
		m = refundMove{name: "a failed execution", from: pending, apply: fail(truncate(out.ForeignID, 256), out.Reason)}
	default:
		return fmt.Errorf("returns: refund executor answered %q for refund %d", out.Result, req.RefundID)
	}
	_, _, err := s.moveRefund(ctx, req.Site, req.RefundID, m, current)
	return err
}
