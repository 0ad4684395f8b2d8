package wiring

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/tracking"
)

// SessionOrders answers the delivery session's session.OrderSource from
// tracking (the order's outbound parcels, their steps and alerts, its
// customer page) and returns (the order's returns, exchanges and
// refunds), both found by the delivery's tos_id. Returns keeps only orders
// with an e-mail address and an external id, so a delivery completed
// without them has no adjustments.
//
// Returns become adjustments this way:
//
//	a return             type return,   status completed once COMPLETED, else pending
//	an exchange          type exchange, status completed once COMPLETED, else pending
//	a refund transaction type refund,   status completed (SUCCESS, REFUNDED),
//	                     failed (FAILED), else pending; amount its total
//
// A return's time is its creation; an exchange's its completion, else its
// return's creation; a refund's when its return's items reached the
// warehouse (a refund follows that inspection), else its return's
// creation.
type SessionOrders struct {
	Tracking *tracking.Service
	Returns  *returns.Service
}

// DeliveryOrder implements session.OrderSource.
func (o SessionOrders) DeliveryOrder(ctx context.Context, site string, ref session.OrderRef) (*session.DeliveryFacts, error) {
	out := &session.DeliveryFacts{}
	res, err := o.Tracking.Orders(ctx, site, tracking.OrdersQuery{TosID: ref.TosID})
	if err != nil {
		return nil, fmt.Errorf("wiring: the tracking order of %s: %w", ref.TosID, err)
	}
	if len(res.Orders) > 0 {
		trackingFacts(res.Orders[0], out)
	}
	// A returnable order's foreign name is the tos_id (returns'
	// HandleOrderCompleted).
	ord, err := o.Returns.GetOrder(ctx, site, ref.TosID, returns.IDForeignName)
	if errors.Is(err, deliverykit.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wiring: the returns of %s: %w", ref.TosID, err)
	}
	returnFacts(ord, out)
	return out, nil
}

// trackingFacts adds a tracking order's page and outbound parcels.
func trackingFacts(po tracking.PrivateOrder, out *session.DeliveryFacts) {
	if po.TrackingLinks != nil {
		for _, l := range po.TrackingLinks.Links {
			if out.PageURL == "" || l.Type == tracking.LinkServicePortal {
				out.PageURL = l.URL
			}
		}
	}
	for _, p := range po.Parcels {
		if p.DirectionType == tracking.DirectionReturn {
			continue // a return's parcel: the adjustments tell of it
		}
		pf := session.ParcelFacts{TrackingNumber: p.TrackingNumber, Carrier: p.DisplayCarrierName, TrackingURL: p.CarrierLink}
		if pf.Carrier == "" {
			pf.Carrier = p.Carrier
		}
		if e := p.EstimatedDeliveryTime; e != nil {
			pf.Earliest, pf.Latest = parseTime(e.Start), parseTime(e.End)
		}
		for _, s := range p.Progress {
			if at := parseTime(s.Time); !at.IsZero() {
				pf.Steps = append(pf.Steps, session.Happened{Name: string(s.Step), At: at})
			}
		}
		for _, a := range p.Alerts {
			if at := parseTime(a.CreatedAt); !at.IsZero() {
				pf.Alerts = append(pf.Alerts, session.Happened{Name: string(a.Type), At: at})
			}
		}
		out.Parcels = append(out.Parcels, pf)
	}
}

// returnFacts adds an order's returns, exchanges and refunds.
func returnFacts(ord returns.Order, out *session.DeliveryFacts) {
	for _, r := range ord.Returns {
		id := strconv.FormatUint(r.ID, 10)
		created := r.CreatedAt.Time()
		items := map[string]int{}
		var reason string
		inspected := time.Time{}
		for _, it := range r.Items {
			items[it.ProductVariant.SKU] += it.Quantity
			if len(it.ReturnReasons) > 0 && reason == "" {
				reason = it.ReturnReasons[0].Reason
			}
			if w := it.ReturnedToWarehouseAt; w != nil && w.Time().After(inspected) {
				inspected = w.Time()
			}
		}
		status := "pending"
		if r.Status == returns.StatusCompleted {
			status = "completed"
		}
		out.Adjustments = append(out.Adjustments, session.AdjustmentFacts{ID: "return-" + id, Type: "return", Status: status,
			At: created, Currency: r.ReturnCosts.CurrencyCode, Reason: reason, Items: items})
		if out.Returned == nil {
			out.Returned = map[string]int{}
		}
		for sku, q := range items {
			out.Returned[sku] += q
		}
		for n, x := range r.Exchanges {
			at, st := created, "pending"
			if x.Status == returns.ExchangeCompleted {
				st = "completed"
				if x.CompletedAt != nil {
					at = x.CompletedAt.Time()
				}
			}
			out.Adjustments = append(out.Adjustments, session.AdjustmentFacts{ID: fmt.Sprintf("exchange-%s-%d", id, n+1), Type: "exchange", Status: st, At: at,
				Currency: r.ReturnCosts.CurrencyCode, Items: items})
		}
		refundAt := created
		if !inspected.IsZero() {
			refundAt = inspected
		}
		for _, tx := range r.RefundTransactions {
			st := "pending"
			switch tx.Status {
			case returns.TxSuccess, returns.TxRefunded:
				st = "completed"
			case returns.TxFailed:
				st = "failed"
			}
			out.Adjustments = append(out.Adjustments, session.AdjustmentFacts{ID: "refund-" + strconv.FormatUint(tx.ID, 10), Type: "refund",
				Status: st, At: refundAt, Amount: tx.TotalAmount.Minor, Currency: tx.CurrencyCode})
		}
	}
}

// parseTime reads tracking's RFC 3339 times; an empty or malformed one is
// zero (unknown).
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
