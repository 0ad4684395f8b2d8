package returns

import (
	"cmp"
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// policy returns the site's policy, the zero Policy when there is none.
func (s *Service) policy(site string) Policy {
	if s.policies == nil {
		return Policy{}
	}
	p, _ := s.policies.Policy(site)
	return p
}

func errNoOrderForCustomer() error {
	// One answer whether the site, the order or the e-mail is wrong, so
	// the endpoint cannot be used to learn which orders exist.
	return deliverykit.E(deliverykit.KindNotFound, "no order with this foreignOrderId and email")
}

// CreateReturn starts a return for a customer: the order is found by
// in.SiteID and in.ForeignOrderID and must carry in.Email (compared without
// regard to case), or the answer is NotFound, the same whichever part was
// wrong. A line can be returned up to its bought quantity minus what is
// already on returns (units declined at inspection can be asked for
// again). The return gets the policy's costs, a calculated refund and the
// status AWAITING_RETURN.
//
// The endpoint is public, so an unknown order and a wrong e-mail are not
// only the same answer but the same work (see customerOrder): the time of
// the answer does not tell a caller whether an order exists.
func (s *Service) CreateReturn(ctx context.Context, in CustomerReturnInput) (Return, error) {
	if err := checkStruct(in); err != nil {
		return Return{}, err
	}
	site := in.SiteID
	if hasNUL(site) || hasNUL(in.ForeignOrderID) {
		return Return{}, errNoOrderForCustomer()
	}
	pol := s.policy(site)
	now := s.now()
	token := s.ids.NewID("rt_")
	digest := emailDigest(in.Email)
	picks, err := s.reasonPicks(in)
	if err != nil {
		return Return{}, err
	}
	var out Return
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		oit, err := s.customerOrder(tx, site, in.ForeignOrderID, digest)
		if err != nil {
			return err
		}
		r, o, err := newReturn(oit.Value, in, pol, now)
		if err != nil {
			return err
		}
		applyPicks(r.Lines, picks)
		r.Token = token
		if r.ID, r.Rank, err = s.returns.next(tx, site); err != nil {
			return err
		}
		// The return parcel is asked for with the return: both commit or
		// neither (returns/shipments.go).
		ship, err := s.requestShipment(site, oit.Value, &r, now)
		if err != nil {
			return err
		}
		r.UpdatedAt = now
		if err := s.returns.insert(tx, site, r.ID, r.Rank, r); err != nil {
			return err
		}
		if err := s.indexFirst(tx, site, &r); err != nil {
			return err
		}
		if _, err := returnByToken.Put(tx, token, tokenRecord{Site: site, ReturnID: r.ID, ExpiresAt: now.Add(s.linkLifetime)}, storage.MustNotExist()); err != nil {
			return err
		}
		if err := listToken(tx, site, r.ID, token); err != nil {
			return err
		}
		o.ReturnIDs = append(o.ReturnIDs, r.ID)
		if _, err := ordersColl.Put(tx, oit.Key, o, storage.VersionIs(oit.Version)); err != nil {
			return err
		}
		if err := s.emit(tx, site, o, r, "", now, event.TypeReturnCreated); err != nil {
			return err
		}
		if ship != nil {
			if err := outbox.Add(tx, *ship); err != nil {
				return err
			}
		}
		out, err = s.returnView(tx, site, o, r)
		return err
	})
	return out, err
}

// newReturn decides a customer's return of order o under the site's
// policy at now: whether the order still takes returns, which lines and
// how many units (at most what was bought minus what is already on a
// return), the costs and the refund estimate. It answers the return
// record without its id, rank and token, and the order with the units
// counted as on their way back. It reads and writes nothing, so the
// Update that calls it may run it again.
func newReturn(o orderRecord, in CustomerReturnInput, pol Policy, now time.Time) (returnRecord, orderRecord, error) {
	if pol.Disabled {
		return returnRecord{}, o, deliverykit.E(deliverykit.KindFailedPrecondition, "the merchant does not take returns")
	}
	if pol.WindowDays > 0 && now.After(o.CreatedAt.AddDate(0, 0, pol.WindowDays)) {
		return returnRecord{}, o, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the return window of %d days for this order has passed", pol.WindowDays)
	}
	if err := checkExchangeRequest(&in, pol); err != nil {
		return returnRecord{}, o, err
	}
	costs, err := policyCosts(pol, o.Currency, in.Exchange)
	if err != nil {
		return returnRecord{}, o, err
	}
	costs.GiftCard = giftCardAddition(pol, o.Currency, in)
	o.Lines = slices.Clone(o.Lines)
	lines, sum, vs := takeLines(o.Lines, in.Items)
	vs = append(vs, exchangeLines(o.Lines, in.Items, lines)...)
	if len(vs) > 0 {
		return returnRecord{}, o, deliverykit.Invalid(vs...)
	}
	var shipping int64
	if pol.RefundShipping && !o.ShippingRefunded && allOnReturn(o) {
		shipping = o.Shipping
	}
	r := returnRecord{OrderID: o.ID, Order: &orderSummaryRecord{ForeignID: o.ForeignID, CreatedAt: o.CreatedAt},
		Status: StatusAwaitingReturn, Exchange: in.Exchange, CreatedAt: now, Costs: costs,
		Locale: cmp.Or(in.Locale, o.Locale), Lines: lines, RefundMethod: in.RefundMethod}
	additions, ok := checked.Add(shipping, costs.GiftCard)
	if ok {
		r.Estimate, ok = refundAmount(sum, additions, costs)
	}
	if !ok {
		return returnRecord{}, o, errArithmetic("the refund estimate")
	}
	return r, o, nil
}

// takeLines matches the customer's items to the order's lines and counts
// their units as on a return (InReturn). It answers the return's lines,
// the value of the items at their purchase prices, and a violation per
// item naming no line of the order, a line an earlier item named, or more
// units than are left.
func takeLines(lines []orderLine, items []CustomerReturnItemInput) ([]returnLine, int64, []deliverykit.FieldViolation) {
	var out []returnLine
	var vs []deliverykit.FieldViolation
	used := map[string]bool{}
	var sum checked.Sum[int64]
	for i, it := range items {
		p := "items[" + strconv.Itoa(i) + "]"
		idx := -1
		for j, l := range lines {
			if l.ForeignLineItemID == it.ForeignLineItemID {
				idx = j
			}
		}
		switch {
		case idx < 0:
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".foreignLineItemId", Rule: "exists", Message: "is not a line of the order"})
			continue
		case used[it.ForeignLineItemID]:
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".foreignLineItemId", Rule: "unique", Message: "is used by an earlier item"})
			continue
		}
		used[it.ForeignLineItemID] = true
		ol := &lines[idx]
		if left := ol.Quantity - ol.InReturn; it.Quantity > left {
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".quantity", Rule: "lte",
				Message: "must be at most " + strconv.Itoa(left) + ": " + strconv.Itoa(ol.Quantity) + " bought, " + strconv.Itoa(ol.InReturn) + " already being returned"})
			continue
		}
		ol.InReturn += it.Quantity
		if sum.AddProduct(ol.Price, int64(it.Quantity)); sum.Overflowed() >= 0 {
			// Unreachable while ImportOrder checks the order's sum;
			// a 400 rather than a wrapped refund if that changes.
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".quantity", Rule: checked.Rule, Message: "makes the refund of the items larger than an amount can be"})
			break
		}
		out = append(out, returnLine{ID: uint64(len(out) + 1), OrderLine: idx, Quantity: it.Quantity, Reason: it.Reason})
	}
	total, _ := sum.Total()
	return out, total, vs
}

// customerOrder finds the order a customer names by site, foreign id and
// e-mail digest, or answers errNoOrderForCustomer. It does the same work
// whether the order is unknown or the e-mail is wrong, so the time of the
// answer does not tell which: one read of the foreign-id index (a missing
// record is replaced by a decoy of the same size and decoded just the
// same), and one constant-time comparison of SHA-256 digests. Only a
// match reads the order. An order imported before the index carried the
// digest is read to compare its e-mail (the old timing, for those orders
// only); a successful return stores the digest in its index.
func (s *Service) customerOrder(tx storage.Tx, site, foreignID string, digest []byte) (storage.Item[orderRecord], error) {
	var none storage.Item[orderRecord]
	key := storage.Key(site, foreignID)
	rec, err := tx.Get(orderByForeignID.Name, key)
	found := err == nil
	switch {
	case errors.Is(err, deliverykit.ErrNotFound):
		rec = storage.Record{Key: key, Value: slices.Clone(missingOrderIndex), Version: 1}
	case err != nil:
		return none, err
	}
	ix, err := orderByForeignID.Decode(rec)
	if err != nil {
		return none, err
	}
	stored := ix.Value.EmailDigest
	var legacy *storage.Item[orderRecord]
	if found && stored == nil {
		it, err := ordersColl.Get(tx, orderKey(site, ix.Value.ID))
		if err != nil {
			return none, err
		}
		legacy, stored = &it, emailDigest(it.Value.Email)
	}
	if subtle.ConstantTimeCompare(stored, digest) != 1 || !found {
		return none, errNoOrderForCustomer()
	}
	if legacy != nil {
		ix.Value.EmailDigest = stored
		if _, err := orderByForeignID.Put(tx, key, ix.Value, storage.VersionIs(ix.Version)); err != nil {
			return none, err
		}
		return *legacy, nil
	}
	it, err := ordersColl.Get(tx, orderKey(site, ix.Value.ID))
	if err != nil {
		return none, err
	}
	return it, nil
}

func allOnReturn(o orderRecord) bool {
	for _, l := range o.Lines {
		if l.InReturn < l.Quantity {
			return false
		}
	}
	return true
}

func allApproved(o orderRecord) bool {
	for _, l := range o.Lines {
		if l.Approved < l.Quantity {
			return false
		}
	}
	return true
}

// transition loads a return and its order for a transition, checks the
// state, lets fn change the return and writes it back, with a
// return.status_changed when fn changed its status.
func (s *Service) transition(ctx context.Context, site string, id uint64, from ReturnStatus, fn func(tx storage.Tx, o *orderRecord, r *returnRecord) error) (Return, error) {
	now := s.now()
	var out Return
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		rit, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return notFoundOr(err, "return")
		}
		r := rit.Value
		if r.Status != from {
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "return %d is %s; this needs %s", id, r.Status, from)
		}
		oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		o := oit.Value
		if err := fn(tx, &o, &r); err != nil {
			return err
		}
		r.UpdatedAt = now
		if _, err := returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version)); err != nil {
			return err
		}
		if r.Status != from {
			if err := s.emit(tx, site, o, r, from, now, event.TypeReturnStatusChanged); err != nil {
				return err
			}
		}
		out, err = s.returnView(tx, site, o, r)
		return err
	})
	return out, err
}

// MarkInTransit records that the return parcel was handed to the carrier:
// AWAITING_RETURN → IN_TRANSIT. Its tracking reference then selects the
// return in ReportReturnedItems; it must be unique within the site.
func (s *Service) MarkInTransit(ctx context.Context, site string, returnID uint64, sh ShipmentInput) (Return, error) {
	if err := checkStruct(sh); err != nil {
		return Return{}, err
	}
	if hasNUL(sh.TrackingReference) {
		return Return{}, deliverykit.InvalidField("trackingReference", "printable", "must not contain NUL")
	}
	return s.transition(ctx, site, returnID, StatusAwaitingReturn, func(tx storage.Tx, _ *orderRecord, r *returnRecord) error {
		_, err := returnByTracking.Put(tx, storage.Key(site, sh.TrackingReference), idRecord{ID: r.ID}, storage.MustNotExist())
		if errors.Is(err, deliverykit.ErrConflict) {
			return &deliverykit.Error{Kind: deliverykit.KindFailedPrecondition, Message: "the tracking reference belongs to another return",
				Violations: []deliverykit.FieldViolation{{Field: "trackingReference", Rule: "unique", Message: "is already used"}}}
		}
		if err != nil {
			return err
		}
		r.Shipments = append(r.Shipments, shipmentRec{ID: uint64(len(r.Shipments) + 1), ForeignID: sh.ForeignID, Carrier: sh.Carrier, TrackingReference: sh.TrackingReference})
		r.Status = StatusInTransit
		return nil
	})
}

// CompleteExchange records that the replacement goods of an exchange
// return were sent: AWAITING_EXCHANGE → COMPLETED.
func (s *Service) CompleteExchange(ctx context.Context, site string, returnID uint64) (Return, error) {
	return s.CompleteExchangeWith(ctx, site, returnID, ExchangeInput{})
}

// open reports whether a return still waits for its items.
func (r returnRecord) open() bool {
	return r.Status == StatusAwaitingReturn || r.Status == StatusInTransit
}

// ReportReturnedItems records the merchant's inspection (POST
// /merchant/items/returned). Exactly one of in.ForeignOrderID, in.ReturnID
// and in.TrackingReference selects the return(s): by return id or tracking
// reference one return, by order every return of the order still waiting
// for its items.
//
// Each reported item is matched by SKU against the unreported units of the
// selected returns, in return id order and, within a return, in line
// order: when one SKU is on several lines, the first line is filled up to
// its quantity before the next one gets units. Reporting more units of a
// SKU than are left is refused (FailedPrecondition naming the item) and
// nothing of the report is kept, so reporting the same items twice never
// refunds twice.
//
// When every unit of a return has been reported, the return leaves
// AWAITING_RETURN/IN_TRANSIT: with approved units it becomes
// AWAITING_REFUND and gets a refund transaction AWAITING_EXTERNAL_REFUND of
// the approved units at their purchase price, plus the shipping refund
// when the policy grants it and the whole order is now approved, minus the
// return costs, never below zero (an exchange return becomes
// AWAITING_EXCHANGE instead); with every unit declined it is COMPLETED
// without a refund.
func (s *Service) ReportReturnedItems(ctx context.Context, site string, in ReturnedItemsInput) (ReturnedItemsResult, error) {
	if err := checkReport(in); err != nil {
		return ReturnedItemsResult{}, err
	}
	pol := s.policy(site)
	now := s.now()
	var out ReturnedItemsResult
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		out = ReturnedItemsResult{Returns: []Return{}, RefundTransactions: []RefundEntry{}}
		rets, oit, err := s.selectReturns(tx, site, in)
		if err != nil {
			return err
		}
		o := oit.Value
		// What each return was before the report, for its events.
		prev := make([]ReturnStatus, len(rets))
		reported := make([]int, len(rets))
		for i, ri := range rets {
			prev[i], reported[i] = ri.Value.Status, unitsReported(ri.Value)
		}
		if err := applyReport(o, rets, in.Items, now); err != nil {
			return err
		}
		if in.FailedDelivery {
			if err := chargeFailedDelivery(pol, o.Currency, rets); err != nil {
				return err
			}
		}
		created, changes, err := s.settleReported(tx, site, pol, &o, rets, prev, reported, now)
		if err != nil {
			return err
		}
		if _, err := ordersColl.Put(tx, oit.Key, o, storage.VersionIs(oit.Version)); err != nil {
			return err
		}
		// Once every return of the report is settled, with the order
		// as stored.
		for i, ri := range rets {
			if err := s.emit(tx, site, o, ri.Value, prev[i], now, changes[i]...); err != nil {
				return err
			}
		}
		return s.reportResult(tx, site, o, rets, created, &out)
	})
	return out, err
}

// checkReport checks a report of returned items: exactly one way to find
// the returns, and its fields.
func checkReport(in ReturnedItemsInput) error {
	set := 0
	for _, b := range []bool{in.ForeignOrderID != "", in.ReturnID != 0, in.TrackingReference != ""} {
		if b {
			set++
		}
	}
	if set != 1 {
		return deliverykit.Invalid(
			deliverykit.FieldViolation{Field: "foreignOrderId", Rule: "exactly_one", Message: "exactly one of foreignOrderId, returnId and trackingReference must be set"})
	}
	if err := checkStruct(in); err != nil {
		return err
	}
	if hasNUL(in.ForeignOrderID) || hasNUL(in.TrackingReference) {
		return notFound("return")
	}
	return nil
}

// settleReported finishes the reported returns whose every item is
// handled (a refund when due), stores them, and returns the refunds made
// and, per return, the events its change calls for.
func (s *Service) settleReported(tx storage.Tx, site string, pol Policy, o *orderRecord, rets []*storage.Item[returnRecord],
	prev []ReturnStatus, reported []int, now time.Time) ([]refundRecord, [][]event.Type, error) {
	var created []refundRecord
	changes := make([][]event.Type, len(rets))
	for i, ri := range rets {
		r := &ri.Value
		if unitsReported(*r) > reported[i] {
			changes[i] = append(changes[i], event.TypeReturnItemsReceived)
		}
		refunded := false
		if r.open() && allHandled(*r) {
			rf, err := s.finish(tx, site, pol, o, r, now)
			if err != nil {
				return nil, nil, err
			}
			if rf != nil {
				created = append(created, *rf)
				refunded = true
			}
		}
		if r.Status != prev[i] {
			changes[i] = append(changes[i], event.TypeReturnStatusChanged)
		}
		if refunded {
			changes[i] = append(changes[i], event.TypeRefundChanged)
		}
		r.UpdatedAt = now
		if _, err := returnsColl.Put(tx, ri.Key, *r, storage.VersionIs(ri.Version)); err != nil {
			return nil, nil, err
		}
	}
	return created, changes, nil
}

// reportResult is the answer to a report: the returns as they are now and
// the refunds it made.
func (s *Service) reportResult(tx storage.Tx, site string, o orderRecord, rets []*storage.Item[returnRecord], created []refundRecord, out *ReturnedItemsResult) error {
	for _, ri := range rets {
		v, err := s.returnView(tx, site, o, ri.Value)
		if err != nil {
			return err
		}
		out.Returns = append(out.Returns, v)
	}
	refunds, err := loadRefunds(tx, site, o.RefundIDs)
	if err != nil {
		return err
	}
	for _, rf := range created {
		out.RefundTransactions = append(out.RefundTransactions, s.refundEntry(o, rf, refundStatusOf(refunds)))
	}
	return nil
}

// selectReturns loads the returns a report addresses and their order.
func (s *Service) selectReturns(tx storage.Tx, site string, in ReturnedItemsInput) ([]*storage.Item[returnRecord], storage.Item[orderRecord], error) {
	var none storage.Item[orderRecord]
	var ids []uint64
	switch {
	case in.ReturnID != 0:
		ids = []uint64{in.ReturnID}
	case in.TrackingReference != "":
		it, err := returnByTracking.Get(tx, storage.Key(site, in.TrackingReference))
		if err != nil {
			return nil, none, notFoundOr(err, "return with this trackingReference")
		}
		ids = []uint64{it.Value.ID}
	default:
		oit, err := s.lookupOrder(tx, site, in.ForeignOrderID, IDForeign)
		if err != nil {
			return nil, none, err
		}
		ids = oit.Value.ReturnIDs
	}
	var rets []*storage.Item[returnRecord]
	var last ReturnStatus
	for _, id := range ids {
		it, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return nil, none, notFoundOr(err, "return")
		}
		last = it.Value.Status
		if it.Value.open() {
			rets = append(rets, &it)
		}
	}
	if len(rets) == 0 {
		if len(ids) == 1 {
			return nil, none, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "return %d is %s: its items were already reported", ids[0], last)
		}
		return nil, none, deliverykit.E(deliverykit.KindFailedPrecondition, "the order has no return waiting for its items")
	}
	oit, err := ordersColl.Get(tx, orderKey(site, rets[0].Value.OrderID))
	if err != nil {
		return nil, none, err
	}
	return rets, oit, nil
}

// applyReport distributes the reported units over the returns' lines (see
// ReportReturnedItems). It changes rets in place and reports every item
// that cannot be placed.
func applyReport(o orderRecord, rets []*storage.Item[returnRecord], items []ReturnedItemInput, now time.Time) error {
	var invalid, precond []deliverykit.FieldViolation
	for i, it := range items {
		p := "items[" + strconv.Itoa(i) + "]"
		left, found := it.Quantity, false
		for _, ri := range rets {
			for j := range ri.Value.Lines {
				l := &ri.Value.Lines[j]
				if o.Lines[l.OrderLine].SKU != it.SKU {
					continue
				}
				found = true
				take := min(left, l.Quantity-l.Approved-l.Declined)
				if take == 0 {
					continue
				}
				if it.Approved {
					l.Approved += take
				} else {
					l.Declined += take
				}
				if it.Comment != "" {
					l.Comment = it.Comment
				}
				at := now
				l.ReturnedAt = &at
				left -= take
			}
		}
		switch {
		case !found:
			invalid = append(invalid, deliverykit.FieldViolation{Field: p + ".sku", Rule: "exists", Message: "no line of the selected return(s) has this SKU"})
		case left > 0:
			precond = append(precond, deliverykit.FieldViolation{Field: p + ".quantity", Rule: "lte",
				Message: strconv.Itoa(it.Quantity-left) + " of " + strconv.Itoa(it.Quantity) + " units of SKU " + strconv.Quote(it.SKU) + " were left to report; the others were already reported"})
		}
	}
	if len(invalid) > 0 {
		return deliverykit.Invalid(invalid...)
	}
	if len(precond) > 0 {
		return &deliverykit.Error{Kind: deliverykit.KindFailedPrecondition, Message: "items already reported", Violations: precond}
	}
	return nil
}

// unitsReported counts the units of r the merchant has reported
// received, approved or declined.
func unitsReported(r returnRecord) int {
	n := 0
	for _, l := range r.Lines {
		n += l.Approved + l.Declined
	}
	return n
}

func allHandled(r returnRecord) bool {
	for _, l := range r.Lines {
		if !l.handled() {
			return false
		}
	}
	return true
}

// finish moves a fully reported return on and, for a refund, creates its
// transaction (returned so the caller can show it).
func (s *Service) finish(tx storage.Tx, site string, pol Policy, o *orderRecord, r *returnRecord, now time.Time) (*refundRecord, error) {
	rf := refundRecord{ReturnID: r.ID, OrderID: o.ID, Status: s.newRefundStatus(), CreatedAt: now, Currency: o.Currency, Scale: o.Scale, Costs: r.Costs,
		GiftCard: r.Costs.GiftCard, Method: r.RefundMethod, Attempt: 1}
	approved := 0
	for _, l := range r.Lines {
		ol := &o.Lines[l.OrderLine]
		ol.InReturn -= l.Declined
		ol.Approved += l.Approved
		approved += l.Approved
		if l.Approved > 0 {
			amt, ok := lineAmount(ol.Price, l.Approved)
			if ok {
				rf.Items, ok = checked.Add(rf.Items, amt)
			}
			if !ok {
				return nil, errArithmetic("the refund of the items")
			}
			name := ol.ProductTitle
			if ol.VariantTitle != "" {
				name += " - " + ol.VariantTitle
			}
			rf.Lines = append(rf.Lines, refundLine{ForeignLineItemID: ol.ForeignLineItemID, Amount: amt, Name: name})
		}
	}
	switch {
	case approved == 0:
		r.Status, r.CompletedAt = StatusCompleted, &now
		return nil, nil
	case r.Exchange:
		r.Status = StatusAwaitingExchange
		return nil, nil
	}
	if pol.RefundShipping && !o.ShippingRefunded && allApproved(*o) {
		rf.Shipping = o.Shipping
		o.ShippingRefunded = true
	}
	additions, ok := checked.Add(rf.Shipping, rf.GiftCard)
	if ok {
		rf.Amount, ok = refundAmount(rf.Items, additions, rf.Costs)
	}
	if !ok {
		return nil, errArithmetic("the refund")
	}
	id, rank, err := s.refunds.next(tx, site)
	if err != nil {
		return nil, err
	}
	rf.ID, rf.Rank = id, rank
	if err := s.refunds.insert(tx, site, rf.ID, rf.Rank, rf); err != nil {
		return nil, err
	}
	r.Status = StatusAwaitingRefund
	r.RefundIDs = append(r.RefundIDs, id)
	o.RefundIDs = append(o.RefundIDs, id)
	return &rf, nil
}
