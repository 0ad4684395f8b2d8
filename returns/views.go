package returns

import (
	"cmp"
	"errors"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/storage"
)

// This file turns stored records into wire views. Views are built inside
// a View transaction from what is stored, never cached, so a detail always
// agrees with the lists.

func orderSummary(o orderRecord) OrderSummary {
	return OrderSummary{ID: o.ID, ForeignID: o.ForeignID, CreatedAt: Timestamp(o.CreatedAt)}
}

func (o orderRecord) amount(minor int64) Amount { return Amount{Minor: minor, Scale: o.Scale} }

func (o orderRecord) price(l orderLine) PurchasePrice {
	return PurchasePrice{CurrencyCode: o.Currency, Amount: o.amount(l.Price), ItemTax: o.amount(l.Tax)}
}

func variant(l orderLine) ProductVariant {
	return ProductVariant{SKU: l.SKU, ProductTitle: l.ProductTitle, VariantTitle: l.VariantTitle,
		ID: l.ID, ForeignProductID: l.ForeignProductID, ForeignVariantID: l.ForeignVariantID,
		Properties: append([]VariantProperty{}, l.Properties...)}
}

func (s *Service) orderView(tx storage.Tx, site string, o orderRecord) (Order, error) {
	out := Order{
		ID: o.ID, ForeignID: o.ForeignID, CreatedAt: Timestamp(o.CreatedAt),
		ForeignName: o.ForeignName, ForeignNumber: o.ForeignNumber,
		Returns: []Return{}, Items: make([]ReturnItem, len(o.Lines)),
		Shipments: []Shipment{}, Exchanges: []Exchange{},
	}
	for i, l := range o.Lines {
		out.Items[i] = ReturnItem{ID: l.ID, ForeignLineItemID: l.ForeignLineItemID, Quantity: l.Quantity,
			PurchasePriceAmount: o.price(l), ProductVariant: variant(l)}
		out.Items[i].ExchangeSKUs = l.ExchangeSKUs
		out.Items[i].Status = orderLineStatus(l)
	}
	for _, rid := range o.ReturnIDs {
		r, err := returnsColl.Get(tx, orderKey(site, rid))
		if err != nil {
			return Order{}, err
		}
		rv, err := s.returnView(tx, site, o, r.Value)
		if err != nil {
			return Order{}, err
		}
		out.Returns = append(out.Returns, rv)
		out.Shipments = append(out.Shipments, rv.Shipments...)
		out.Exchanges = append(out.Exchanges, rv.Exchanges...)
	}
	refunds, err := loadRefunds(tx, site, o.RefundIDs)
	if err != nil {
		return Order{}, err
	}
	out.OrderRefund = orderRefund(o, refunds)
	return out, nil
}

// orderLineStatus is the status of an order's line: RETURNED once units
// of it were approved, AWAITING_RETURN while units of it are on a return
// (InReturn counts those not declined), else NOT_RETURNED.
func orderLineStatus(l orderLine) ItemStatus {
	switch {
	case l.Approved > 0:
		return ItemReturned
	case l.InReturn > 0:
		return ItemAwaitingReturn
	}
	return ItemNotReturned
}

func loadRefunds(tx storage.Tx, site string, ids []uint64) ([]refundRecord, error) {
	out := make([]refundRecord, 0, len(ids))
	for _, id := range ids {
		it, err := refundsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return nil, err
		}
		out = append(out, it.Value)
	}
	return out, nil
}

// orderRefund sums up the order's transactions: REFUNDED ones count towards
// amountRefunded; the status is AWAITING_REFUND while any is not refunded.
func orderRefund(o orderRecord, refunds []refundRecord) OrderRefund {
	out := OrderRefund{CurrencyCode: o.Currency, AmountRefunded: o.amount(0), RefundStatus: refundStatusOf(refunds), Transactions: []RefundTransaction{}}
	for _, r := range refunds {
		if r.Status.paid() {
			// Refunds of an order never add up to more than its
			// items and shipping, which fit (ImportOrder checks).
			out.AmountRefunded.Minor, _ = checked.Add(out.AmountRefunded.Minor, r.Amount)
		}
		out.Transactions = append(out.Transactions, refundTransaction(r))
	}
	return out
}

func refundStatusOf(refunds []refundRecord) RefundStatus {
	if len(refunds) == 0 {
		return RefundNone
	}
	for _, r := range refunds {
		if !r.Status.paid() {
			return RefundAwaiting
		}
	}
	return RefundDone
}

func refundTransaction(r refundRecord) RefundTransaction {
	a := func(m int64) Amount { return Amount{Minor: m, Scale: r.Scale} }
	return RefundTransaction{
		ID: r.ID, ReturnID: r.ReturnID, Status: r.Status, RefundType: "BASIC", CurrencyCode: r.Currency, Source: "RETURN",
		TotalAmount: a(r.Amount), ItemsAmount: a(r.Items), ShippingRefundAmount: a(r.Shipping),
		ExchangeCost: a(r.Costs.Exchange), ReturnCost: a(r.Costs.returnCost()), GiftCardAddition: a(r.GiftCard),
		ForeignID: r.ForeignID, RefundMethod: r.Method, FailureReason: r.FailureReason,
	}
}

func (s *Service) returnView(tx storage.Tx, site string, o orderRecord, r returnRecord) (Return, error) {
	out := Return{
		ID: r.ID, CreatedAt: Timestamp(r.CreatedAt), Status: r.Status, StatusURL: s.statusURL(r.Token),
		Order:       orderSummary(o),
		ReturnCosts: returnCosts(o, r.Costs),
		CalculatedRefund: CalculatedRefund{CurrencyCode: o.Currency, TotalRefundAmount: o.amount(r.Estimate),
			Lines: make([]CalculatedRefundLine, len(r.Lines))},
		RefundTransactions: []RefundTransaction{},
		Items:              make([]ReturnItem, len(r.Lines)),
		Shipments:          make([]Shipment, len(r.Shipments)),
		Exchanges:          []Exchange{},
	}
	for i, l := range r.Lines {
		ol := o.Lines[l.OrderLine]
		amt, _ := lineAmount(ol.Price, l.Quantity) // fits: ImportOrder checks every line
		out.CalculatedRefund.Lines[i] = CalculatedRefundLine{ForeignLineItemID: ol.ForeignLineItemID, Quantity: l.Quantity, Amount: o.amount(amt)}
		out.Items[i] = returnItem(o, r, l)
		out.Items[i].CustomerComplaint = s.complaintView(l, s.clock.Now())
	}
	for i, sh := range r.Shipments {
		out.Shipments[i] = Shipment{ID: sh.ID, ForeignID: sh.ForeignID, Type: "C2B", Carrier: sh.Carrier, TrackingReference: sh.TrackingReference}
	}
	if x, ok := exchangeView(o, r); ok {
		out.Exchanges = append(out.Exchanges, x)
	}
	refunds, err := loadRefunds(tx, site, r.RefundIDs)
	if err != nil {
		return Return{}, err
	}
	for _, rf := range refunds {
		out.RefundTransactions = append(out.RefundTransactions, refundTransaction(rf))
	}
	return out, nil
}

// costsTotal is the total of stored costs, which always fits (policyCosts).
func costsTotal(c costsRecord) int64 {
	t, _ := c.total()
	return t
}

func returnCosts(o orderRecord, c costsRecord) ReturnCosts {
	return ReturnCosts{CurrencyCode: o.Currency, ReturnShipmentCost: o.amount(c.Shipment), ReturnHandlingCost: o.amount(c.Handling),
		ExchangeCost: o.amount(c.Exchange), FailedDeliveryCost: o.amount(c.FailedDelivery), TotalCost: o.amount(costsTotal(c))}
}

// returnItem shows a line of a return. Before inspection it is
// AWAITING_RETURN with restockStatus PENDING; after, approved units are
// restocked and refunded, and a line none of whose units was approved is
// DECLINED, NO_RESTOCK and NOT_REFUNDED.
func returnItem(o orderRecord, r returnRecord, l returnLine) ReturnItem {
	ol := o.Lines[l.OrderLine]
	it := ReturnItem{
		ID: l.ID, ForeignLineItemID: ol.ForeignLineItemID, Quantity: l.Quantity,
		PurchasePriceAmount: o.price(ol), ProductVariant: variant(ol),
		Comment: l.Comment, Status: ItemAwaitingReturn, RefundStatus: RefundNone, RestockStatus: RestockPending,
	}
	it.ReturnReasons = returnReasons(l)
	if r.Exchange {
		it.ExchangeSKU = cmp.Or(l.ExchangeSKU, ol.SKU)
	}
	if !l.handled() {
		if r.ArrivedAt != nil {
			ts := Timestamp(*r.ArrivedAt)
			it.Status, it.ReturnedToWarehouseAt = ItemAwaitingInspection, &ts
		}
		return it
	}
	approved := l.Approved > 0
	qty := l.Approved
	it.ApprovedForRestock, it.ApprovedQuantity = &approved, &qty
	if l.ReturnedAt != nil {
		ts := Timestamp(*l.ReturnedAt)
		it.ReturnedToWarehouseAt = &ts
	}
	if !approved {
		it.Status, it.RestockStatus = ItemDeclined, RestockNo
		return it
	}
	it.Status, it.RestockStatus = ItemReturned, RestockYes
	switch {
	case l.Refunded:
		it.RefundStatus = RefundDone
	case !r.Exchange:
		it.RefundStatus = RefundAwaiting
	}
	return it
}

func (s *Service) refundEntry(o orderRecord, r refundRecord, orderStatus RefundStatus) RefundEntry {
	a := func(m int64) Amount { return Amount{Minor: m, Scale: r.Scale} }
	e := RefundEntry{
		RefundID: r.ID, ReturnID: r.ReturnID, CreatedAt: Timestamp(r.CreatedAt),
		Order:  RefundEntryOrder{ID: o.ID, ForeignID: o.ForeignID, CreatedAt: Timestamp(o.CreatedAt), Status: orderStatus},
		Status: r.Status, CurrencyCode: r.Currency, AmountToRefund: a(r.Amount),
		RefundDetails: RefundDetails{
			RefundAmounts: RefundAmounts{TotalItemRefundAmount: a(r.Items), ShippingRefundAmount: a(r.Shipping), GiftCardAddition: a(r.GiftCard)},
			ReturnCosts: EntryReturnCosts{CurrencyCode: r.Currency, ReturnShipmentCost: a(r.Costs.Shipment), ReturnHandlingCost: a(r.Costs.Handling),
				FailedDeliveryCost: a(r.Costs.FailedDelivery), ExchangeCost: a(r.Costs.Exchange), TotalReturnCost: a(costsTotal(r.Costs))},
			Items: make([]RefundEntryItem, len(r.Lines)),
		},
		ForeignID: r.ForeignID, FailureReason: r.FailureReason, Attempt: max(r.Attempt, 1),
	}
	for i, l := range r.Lines {
		e.RefundDetails.Items[i] = RefundEntryItem{ForeignOrderLineItemID: l.ForeignLineItemID, RefundAmount: a(l.Amount), Name: l.Name}
	}
	return e
}

// returnChanged describes return r of order o, as stored in tx after a
// change at now, for the events of package event: prev is r's status
// before the change (empty for a new return). It is the one place the
// returns area's events are shaped:
//   - amounts are minor units of the order's currency (the wire's decimal
//     Amounts are for the returns API);
//   - items are the return's lines with their status as the returns API
//     shows it, and ReceivedAt the last time units of the line were
//     reported received;
//   - Refund is the return's latest refund transaction, its status in the
//     events' vocabulary (AWAITING_REFUND, REFUNDED, FAILED);
//   - StatusURL is the customer's status page while its link works, else
//     empty (an expired link would only show the customer that it
//     expired).
func (s *Service) returnChanged(tx storage.Tx, site string, o orderRecord, r returnRecord, prev ReturnStatus, now time.Time) (event.ReturnChanged, error) {
	out := event.ReturnChanged{
		ReturnID: returnSubject(r.ID), OrderExternalID: o.ForeignID, Status: string(r.Status), PreviousStatus: string(prev),
		Currency: o.Currency, ChangedAt: now,
	}
	for _, l := range r.Lines {
		ol := o.Lines[l.OrderLine]
		it := event.ReturnItem{LineItemID: ol.ForeignLineItemID, SKU: ol.SKU, Quantity: int64(l.Quantity),
			Status: string(returnItem(o, r, l).Status), ReceivedAt: receivedAt(r, l)}
		if c := l.Complaint; c != nil {
			it.ComplaintStatus = string(c.Status)
		}
		out.Items = append(out.Items, it)
	}
	refunds, err := loadRefunds(tx, site, r.RefundIDs)
	if err != nil {
		return out, err
	}
	if n := len(refunds); n > 0 {
		last := refunds[n-1]
		out.Refund = &event.Refund{Status: eventRefundStatus(last.Status), Amount: last.Amount,
			ID: strconv.FormatUint(last.ID, 10), TransactionStatus: string(last.Status), ForeignID: last.ForeignID}
	}
	if r.Token != "" {
		t, err := returnByToken.Get(tx, r.Token)
		switch {
		case err == nil && now.Before(s.linkExpiry(t.Value, r)):
			out.StatusURL = s.statusURL(r.Token)
		case err != nil && !errors.Is(err, deliverykit.ErrNotFound):
			return out, err
		}
	}
	return out, nil
}

// eventRefundStatus is a refund transaction's status as events name it.
func eventRefundStatus(s TransactionStatus) string {
	switch s {
	case TxRefunded, TxSuccess:
		return "REFUNDED"
	case TxFailed:
		return "FAILED"
	}
	return "AWAITING_REFUND"
}
