package returns

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// What can be exchanged comes from the imported order: each line lists
// the SKUs the customer may take instead (OrderItemInput.ExchangeSKUs,
// typically the product's other sizes or colours at the same price), and
// every line may be exchanged for its own SKU (a replacement of a faulty
// item). A customer return item names its choice in exchangeSku, which
// makes the return an exchange: the policy's exchange cost is charged, no
// refund is made, and after inspection the return waits in
// AWAITING_EXCHANGE until the merchant reports the replacement sent
// (CompleteExchangeWith, POST /merchant/return/{returnId}/exchanged).

// ExchangeStatus is the state of an exchange.
type ExchangeStatus string

// The exchange states.
const (
	ExchangeRequested ExchangeStatus = "REQUESTED"
	ExchangeCompleted ExchangeStatus = "COMPLETED"
)

// ExchangeItem is one line of an exchange: what goes back and what the
// customer takes instead.
type ExchangeItem struct {
	ForeignLineItemID string `json:"foreignLineItemId"`
	SKU               string `json:"sku"`
	ExchangeSKU       string `json:"exchangeSku"`
	Quantity          int    `json:"quantity"`
}

// ExchangeInput is the merchant's report that an exchange's replacement
// was sent: ForeignID is the merchant's replacement order.
type ExchangeInput struct {
	ForeignID string `json:"foreignId" validate:"max_ref"`
}

// exchangeSKUs are the distinct SKUs a line may be exchanged for, without
// its own.
func exchangeSKUs(it OrderItemInput) []string {
	var out []string
	for _, sku := range it.ExchangeSKUs {
		if sku != it.SKU && !slices.Contains(out, sku) {
			out = append(out, sku)
		}
	}
	return out
}

// checkExchangeRequest makes a return whose items name an exchange SKU an
// exchange, and refuses what the policy or the request rules out: an
// exchange when the merchant takes none, and a refund method on an
// exchange (which refunds nothing).
func checkExchangeRequest(in *CustomerReturnInput, pol Policy) error {
	for _, it := range in.Items {
		if it.ExchangeSKU != "" {
			in.Exchange = true
		}
	}
	if !in.Exchange {
		return nil
	}
	if pol.NoExchanges {
		return deliverykit.E(deliverykit.KindFailedPrecondition, "the merchant does not take exchanges")
	}
	if in.RefundMethod != "" {
		return deliverykit.InvalidField("refundMethod", "excluded_with", "must be empty for an exchange, which refunds nothing")
	}
	return nil
}

// giftCardAddition is the policy's addition for a refund taken as a gift
// card in currency; policyCosts has checked its bounds.
func giftCardAddition(pol Policy, currency string, in CustomerReturnInput) int64 {
	if in.RefundMethod != RefundGiftCard || in.Exchange {
		return 0
	}
	return pol.Costs[currency].GiftCardAddition
}

// exchangeLines records the customer's exchange choices on the return's
// lines and answers a violation per item whose exchangeSku the order line
// does not offer.
func exchangeLines(orderLines []orderLine, items []CustomerReturnItemInput, lines []returnLine) []deliverykit.FieldViolation {
	var vs []deliverykit.FieldViolation
	for i, it := range items {
		if it.ExchangeSKU == "" {
			continue
		}
		for j := range lines {
			ol := orderLines[lines[j].OrderLine]
			if ol.ForeignLineItemID != it.ForeignLineItemID {
				continue
			}
			if it.ExchangeSKU != ol.SKU && !slices.Contains(ol.ExchangeSKUs, it.ExchangeSKU) {
				vs = append(vs, deliverykit.FieldViolation{Field: "items[" + strconv.Itoa(i) + "].exchangeSku", Rule: "oneof",
					Message: "is not offered in exchange for this line: it must be the line's SKU or one of its exchangeSkus"})
				break
			}
			lines[j].ExchangeSKU = it.ExchangeSKU
		}
	}
	return vs
}

// exchangeView is the exchange of return r, if it is one.
func exchangeView(o orderRecord, r returnRecord) (Exchange, bool) {
	if !r.Exchange {
		return Exchange{}, false
	}
	x := Exchange{ReturnID: r.ID, Status: ExchangeRequested, Items: make([]ExchangeItem, len(r.Lines))}
	for i, l := range r.Lines {
		ol := o.Lines[l.OrderLine]
		x.Items[i] = ExchangeItem{ForeignLineItemID: ol.ForeignLineItemID, SKU: ol.SKU, ExchangeSKU: cmp.Or(l.ExchangeSKU, ol.SKU), Quantity: l.Quantity}
	}
	if r.Status == StatusCompleted && r.CompletedAt != nil {
		ts := Timestamp(*r.CompletedAt)
		x.Status, x.CompletedAt, x.ForeignID = ExchangeCompleted, &ts, r.ExchangeForeignID
	}
	return x, true
}

// CompleteExchangeWith records that the replacement goods of an exchange
// return were sent (POST /merchant/return/{returnId}/exchanged, an
// extension): AWAITING_EXCHANGE → COMPLETED, with a return.status_changed.
// in.ForeignID, the merchant's replacement order, is shown on the
// exchange.
func (s *Service) CompleteExchangeWith(ctx context.Context, site string, returnID uint64, in ExchangeInput) (Return, error) {
	if err := checkStruct(in); err != nil {
		return Return{}, err
	}
	if hasNUL(in.ForeignID) {
		return Return{}, deliverykit.InvalidField("foreignId", "printable", "must not contain NUL")
	}
	now := s.now()
	return s.transition(ctx, site, returnID, StatusAwaitingExchange, func(_ storage.Tx, _ *orderRecord, r *returnRecord) error {
		r.Status, r.CompletedAt, r.ExchangeForeignID = StatusCompleted, &now, in.ForeignID
		return nil
	})
}

// chargeFailedDelivery charges the policy's failed delivery cost to each
// return of a report that says the parcel came back undelivered, once per
// return.
func chargeFailedDelivery(pol Policy, currency string, rets []*storage.Item[returnRecord]) error {
	// policyCosts checks that the policy has costs in the currency and
	// that they are in bounds.
	if _, err := policyCosts(pol, currency, false); err != nil {
		return err
	}
	for _, ri := range rets {
		ri.Value.Costs.FailedDelivery = pol.Costs[currency].FailedDelivery
	}
	return nil
}
