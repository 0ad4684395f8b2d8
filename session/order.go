package session

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
)

// OrderSource tells what became of a completed delivery after the
// purchase: its parcels, as tracking follows them, and its returns,
// exchanges and refunds. The session package reads the other areas only
// through it (wiring answers it from tracking and returns); the Service
// renders the answers as the protocol's Order (Service.Order).
type OrderSource interface {
	// DeliveryOrder answers for one completed delivery: its tos_id and
	// the merchant's external id (empty when the choice gave none). A
	// delivery nothing is known of yet answers an empty DeliveryFacts.
	DeliveryOrder(ctx context.Context, site string, ref OrderRef) (*DeliveryFacts, error)
}

// OrderRef names a completed delivery's order.
type OrderRef struct {
	TosID, ExternalID string
}

// DeliveryFacts is what became of one delivery.
type DeliveryFacts struct {
	// PageURL is the customer's page of the order (the tracking page);
	// the Order's permalink_url is the first delivery's that has one.
	// Empty means the order is not recorded yet: while no delivery has
	// one, Order answers FailedPrecondition (retry shortly; a completion
	// reaches tracking through the outbox).
	PageURL     string
	Parcels     []ParcelFacts
	Adjustments []AdjustmentFacts
	// Returned counts the units returned per SKU: the lines' current
	// quantities drop by them.
	Returned map[string]int
}

// ParcelFacts is one parcel as tracking follows it.
type ParcelFacts struct {
	TrackingNumber string
	Carrier        string
	TrackingURL    string
	// Earliest and Latest are the delivery estimate, zero when unknown.
	Earliest, Latest time.Time
	// Steps are the parcel's progress steps reached (tracking's Step
	// values, "STEP_ON_ROUTE"), and Alerts its alerts (tracking's
	// AlertType values), each with when it happened.
	Steps  []Happened
	Alerts []Happened
}

// Happened is a step or alert of a parcel and its time.
type Happened struct {
	Name string
	At   time.Time
}

// AdjustmentFacts is a change after the purchase: a return, an exchange
// or a refund, in the protocol's words (type "return", "exchange" or
// "refund"; status "pending", "completed" or "failed"), with the amount
// credited in minor units.
type AdjustmentFacts struct {
	ID, Type, Status string
	At               time.Time
	Amount           int64
	Currency         string
	Reason           string
	// Items are the returned or exchanged units per SKU.
	Items map[string]int
}

// ACPOrder is a completed session as the Agentic Commerce Protocol's Order
// of version ACPVersionCurrent: what was bought, how it travels
// (fulfillments, from tracking's parcels) and what changed since
// (adjustments, from returns). Amounts are minor units.
type ACPOrder struct {
	Type string `json:"type"`
	// ID and CheckoutSessionID are the session's name; OrderNumber is
	// the first delivery's external id.
	ID                string                `json:"id"`
	CheckoutSessionID string                `json:"checkout_session_id"`
	OrderNumber       string                `json:"order_number,omitempty"`
	PermalinkURL      string                `json:"permalink_url"`
	Status            string                `json:"status"`
	LineItems         []ACPOrderLineItem    `json:"line_items"`
	Fulfillments      []ACPOrderFulfillment `json:"fulfillments"`
	Adjustments       []ACPAdjustment       `json:"adjustments"`
	Totals            []ACPTotal            `json:"totals"`
}

// ACPOrderLineItem is a line with its quantities: current is ordered less
// what was returned, fulfilled what was delivered (all of the delivery
// once a parcel of it is delivered). Status is "removed" when nothing is
// current, "fulfilled" when everything current was delivered, else
// "processing".
type ACPOrderLineItem struct {
	ID        string           `json:"id"`
	Title     string           `json:"title"`
	ProductID string           `json:"product_id,omitempty"`
	Quantity  ACPOrderQuantity `json:"quantity"`
	UnitPrice int64            `json:"unit_price"`
	Subtotal  int64            `json:"subtotal"`
	Status    string           `json:"status"`
}

// ACPOrderQuantity is the protocol's three quantities of a line.
type ACPOrderQuantity struct {
	Ordered   int64 `json:"ordered"`
	Current   int64 `json:"current"`
	Fulfilled int64 `json:"fulfilled"`
}

// ACPOrderFulfillment is one parcel (or a delivery without one yet).
type ACPOrderFulfillment struct {
	ID                string                 `json:"id"`
	Type              string                 `json:"type"`
	Status            string                 `json:"status"`
	LineItems         []ACPLineItemReference `json:"line_items"`
	Carrier           string                 `json:"carrier,omitempty"`
	TrackingNumber    string                 `json:"tracking_number,omitempty"`
	TrackingURL       string                 `json:"tracking_url,omitempty"`
	Destination       *ACPAddress            `json:"destination,omitempty"`
	EstimatedDelivery *ACPEstimate           `json:"estimated_delivery,omitempty"`
	Events            []ACPFulfillmentEvent  `json:"events"`
}

// ACPLineItemReference is a quantity of a line.
type ACPLineItemReference struct {
	ID       string `json:"id"`
	Quantity int64  `json:"quantity"`
}

// ACPEstimate is an estimated delivery range.
type ACPEstimate struct {
	Earliest Timestamp `json:"earliest"`
	Latest   Timestamp `json:"latest"`
}

// ACPFulfillmentEvent is a point in a parcel's journey.
type ACPFulfillmentEvent struct {
	ID         string    `json:"id"`
	Type       string    `json:"type"`
	OccurredAt Timestamp `json:"occurred_at"`
}

// ACPAdjustment is a return, exchange or refund.
type ACPAdjustment struct {
	ID         string                 `json:"id"`
	Type       string                 `json:"type"`
	OccurredAt Timestamp              `json:"occurred_at"`
	Status     string                 `json:"status"`
	LineItems  []ACPLineItemReference `json:"line_items,omitempty"`
	Amount     int64                  `json:"amount"`
	Currency   string                 `json:"currency,omitempty"`
	Reason     string                 `json:"reason,omitempty"`
}

// acpEvents maps tracking's steps and alerts to the protocol's fulfillment
// event types (a parcel's status is that of its latest event):
//
//	STEP_CONFIRMED_BY_MERCHANT, STEP_PREPARED_BY_MERCHANT,
//	STEP_AWAITING_SUPPLIER, STEP_LINEHAUL_TO_CARRIER   processing
//	STEP_SUBMITTED_TO_CARRIER                          shipped
//	STEP_ON_ROUTE                                      in_transit
//	ALERT_OUT_FOR_DELIVERY                             out_for_delivery
//	ALERT_DELIVERY_ATTEMPT_FAILED                      failed_attempt
//	STEP_DELIVERED_TO_PICKUP_POINT                     ready_for_pickup
//	STEP_DELIVERED_TO_CONSUMER                         delivered
//	STEP_SENT_BACK, STEP_DELIVERED_TO_MERCHANT         returned_to_sender
//	STEP_TERMINATED                                    canceled
//
// Other steps (a return's, STEP_UNKNOWN) and alerts (delays, changed
// estimates) are no event of the outbound journey: returns show as
// adjustments, and a delay changes the estimate, not the journey.
var acpEvents = map[string]string{
	"STEP_CONFIRMED_BY_MERCHANT":     "processing",
	"STEP_PREPARED_BY_MERCHANT":      "processing",
	"STEP_AWAITING_SUPPLIER":         "processing",
	"STEP_LINEHAUL_TO_CARRIER":       "processing",
	"STEP_SUBMITTED_TO_CARRIER":      "shipped",
	"STEP_ON_ROUTE":                  "in_transit",
	"ALERT_OUT_FOR_DELIVERY":         "out_for_delivery",
	"ALERT_DELIVERY_ATTEMPT_FAILED":  "failed_attempt",
	"STEP_DELIVERED_TO_PICKUP_POINT": "ready_for_pickup",
	"STEP_DELIVERED_TO_CONSUMER":     "delivered",
	"STEP_SENT_BACK":                 "returned_to_sender",
	"STEP_DELIVERED_TO_MERCHANT":     "returned_to_sender",
	"STEP_TERMINATED":                "canceled",
}

// acpStatus is a parcel's status after an event of each type: a failed
// attempt leaves it in transit, a parcel sent back has failed.
var acpStatus = map[string]string{
	"failed_attempt":     "in_transit",
	"returned_to_sender": "failed",
}

// Order returns a COMPLETED session's order in the protocol's form of
// version (empty or ACPVersionCurrent; the spec's version has no orders):
// one fulfillment per parcel of each delivery (a delivery without a parcel
// yet is one "pending" fulfillment named by its tos_id), its events
// mapped from tracking (acpEvents), and the adjustments of its returns.
// A session still ACTIVE is FailedPrecondition, as are an order not
// recorded yet (no delivery has a page) and a Service without an
// OrderSource.
func (s *Service) Order(ctx context.Context, site, name, version string) (*ACPOrder, error) {
	if version != "" && version != ACPVersionCurrent {
		return nil, deliverykit.InvalidField("acp_version", "oneof", fmt.Sprintf("%q is not %s, the version with orders", version, ACPVersionCurrent))
	}
	if s.orderSource == nil {
		return nil, deliverykit.E(deliverykit.KindFailedPrecondition, "session: no order source is configured (Options.OrderSource)")
	}
	sess, err := s.Get(ctx, site, name)
	if err != nil {
		return nil, err
	}
	if sess.State != StateCompleted {
		return nil, deliverykit.E(deliverykit.KindFailedPrecondition, "the session is not COMPLETED: it has no order yet")
	}
	facts := make([]*DeliveryFacts, len(sess.Deliveries))
	for i, d := range sess.Deliveries {
		f, err := s.orderSource.DeliveryOrder(ctx, site, OrderRef{TosID: d.TosID, ExternalID: d.ExternalID})
		if err != nil {
			return nil, fmt.Errorf("session: reading the order of deliveries[%d]: %w", i, err)
		}
		facts[i] = cmp.Or(f, &DeliveryFacts{})
	}
	out := toACPOrder(sess, facts)
	if out.PermalinkURL == "" {
		return nil, deliverykit.E(deliverykit.KindFailedPrecondition, "the session's order is not recorded yet: retry shortly")
	}
	return out, nil
}

// toACPOrder renders sess with facts[i] for its i-th delivery.
func toACPOrder(sess *Session, facts []*DeliveryFacts) *ACPOrder {
	out := &ACPOrder{Type: "order", ID: sess.Name, CheckoutSessionID: sess.Name,
		LineItems: []ACPOrderLineItem{}, Fulfillments: []ACPOrderFulfillment{}, Adjustments: []ACPAdjustment{}}
	var shipping, refunded int64
	allDelivered, anyMoving := true, false
	for i, d := range sess.Deliveries {
		f := facts[i]
		if out.PermalinkURL == "" {
			out.PermalinkURL = f.PageURL
		}
		if out.OrderNumber == "" {
			out.OrderNumber = d.ExternalID
		}
		typ, dest := FulfillmentTypeShipping, fulfillmentDetails(d.RecipientContact)
		var destination *ACPAddress
		if dest != nil {
			destination = dest.Address
		}
		for _, c := range d.DeliveryCategories {
			for _, o := range c.DeliveryOptions {
				if !o.Chosen {
					continue
				}
				total, _ := optionAmounts(c, o)
				shipping += total
				if (c.DeliveryType == DeliveryTypePickup || c.DeliveryType == DeliveryTypeInstore) && o.PickupLocation != nil {
					typ = FulfillmentTypePickup
					if vc := o.PickupLocation.VisitingContact; vc != nil && vc.Address != nil {
						a := acpAddress(o.PickupLocation.Title, vc.Address)
						destination = &a
					}
				}
			}
		}
		delivered := false
		if len(f.Parcels) == 0 {
			allDelivered = false
			out.Fulfillments = append(out.Fulfillments, ACPOrderFulfillment{ID: d.TosID, Type: typ, Status: "pending",
				LineItems: lineRefs(d), Destination: destination, Events: []ACPFulfillmentEvent{}})
		}
		for _, p := range f.Parcels {
			ff := parcelFulfillment(p, typ, destination, lineRefs(d))
			switch ff.Status {
			case "delivered":
				delivered = true
			case "processing", "pending":
				allDelivered = false
			default:
				allDelivered, anyMoving = false, true
			}
			out.Fulfillments = append(out.Fulfillments, ff)
		}
		for n, li := range d.LineItems {
			q := ACPOrderQuantity{Ordered: int64(li.Quantity), Current: max(int64(li.Quantity)-int64(f.Returned[li.SKU]), 0)}
			if delivered {
				// What was delivered stays fulfilled when it
				// comes back: current drops, fulfilled does not.
				q.Fulfilled = q.Ordered
			}
			status := "processing"
			switch {
			case q.Current == 0:
				status = "removed"
			case q.Fulfilled >= q.Current:
				status = "fulfilled"
			}
			out.LineItems = append(out.LineItems, ACPOrderLineItem{ID: fmt.Sprintf("%s:%d", d.ID, n+1), Title: li.Title, ProductID: li.SKU,
				Quantity: q, UnitPrice: int64(li.Price), Subtotal: int64(li.Price) * int64(li.Quantity), Status: status})
		}
		for _, a := range f.Adjustments {
			adj := ACPAdjustment{ID: a.ID, Type: a.Type, OccurredAt: At(a.At), Status: a.Status, Amount: a.Amount,
				Currency: strings.ToLower(a.Currency), Reason: a.Reason}
			for n, li := range d.LineItems {
				if q := a.Items[li.SKU]; q > 0 {
					adj.LineItems = append(adj.LineItems, ACPLineItemReference{ID: fmt.Sprintf("%s:%d", d.ID, n+1), Quantity: int64(q)})
				}
			}
			if a.Type == "refund" && a.Status == "completed" {
				refunded += a.Amount
			}
			out.Adjustments = append(out.Adjustments, adj)
		}
	}
	slices.SortStableFunc(out.Adjustments, func(a, b ACPAdjustment) int { return a.OccurredAt.Compare(b.OccurredAt.Time) })
	switch {
	case allDelivered && len(out.Fulfillments) > 0:
		out.Status = "completed"
	case anyMoving:
		out.Status = "shipped"
	default:
		out.Status = "confirmed"
	}
	var items int64
	if sess.Purchase != nil {
		items = int64(sess.Purchase.TotalValue)
	}
	out.Totals = []ACPTotal{
		{Type: "subtotal", DisplayText: "Subtotal", Amount: items},
		{Type: "fulfillment", DisplayText: "Shipping", Amount: shipping},
		{Type: "total", DisplayText: "Total", Amount: items + shipping},
		{Type: "amount_refunded", DisplayText: "Refunded", Amount: refunded},
	}
	return out
}

// lineRefs are all of d's lines, whole: a parcel does not say which lines
// it carries, so each carries the delivery.
func lineRefs(d Delivery) []ACPLineItemReference {
	out := make([]ACPLineItemReference, 0, len(d.LineItems))
	for n, li := range d.LineItems {
		out = append(out, ACPLineItemReference{ID: fmt.Sprintf("%s:%d", d.ID, n+1), Quantity: int64(li.Quantity)})
	}
	return out
}

// parcelFulfillment renders a parcel: its steps and alerts in time order
// as events (acpEvents), its status that of the latest.
func parcelFulfillment(p ParcelFacts, typ string, dest *ACPAddress, lines []ACPLineItemReference) ACPOrderFulfillment {
	ff := ACPOrderFulfillment{ID: p.TrackingNumber, Type: typ, Status: "processing", LineItems: lines,
		Carrier: p.Carrier, TrackingNumber: p.TrackingNumber, TrackingURL: p.TrackingURL, Destination: dest, Events: []ACPFulfillmentEvent{}}
	if !p.Earliest.IsZero() && !p.Latest.IsZero() {
		ff.EstimatedDelivery = &ACPEstimate{Earliest: At(p.Earliest), Latest: At(p.Latest)}
	}
	happened := slices.Concat(p.Steps, p.Alerts)
	slices.SortStableFunc(happened, func(a, b Happened) int { return a.At.Compare(b.At) })
	for _, h := range happened {
		t, ok := acpEvents[h.Name]
		if !ok {
			continue
		}
		ff.Events = append(ff.Events, ACPFulfillmentEvent{ID: fmt.Sprintf("%s:%d", p.TrackingNumber, len(ff.Events)+1), Type: t, OccurredAt: At(h.At)})
		ff.Status = cmp.Or(acpStatus[t], t)
	}
	return ff
}
