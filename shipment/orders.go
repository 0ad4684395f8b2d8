package shipment

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// Order is what a shipment made for an order (CreateShipmentRequest.TosID)
// takes from that order when the request leaves it out.
type Order struct {
	// ExternalID is the merchant's order number: the shipment's
	// reference by default.
	ExternalID string
	// ShippingMethod is the carrier product the order was sold with: the
	// request's shipping_method by default.
	ShippingMethod string
	// Sender is nil when the order does not say where the goods leave
	// from (a label needs the address).
	Sender *Sender
	// Receiver is the customer, at home.
	Receiver *Receiver
	// Pickup is the pickup point of an order delivered to one: the
	// pickup of the deliveries carried by ShippingMethod.
	Pickup *Pickup
	// LineItems are the order's cart: the line items of a shipment's
	// only parcel by default.
	LineItems []LineItem
}

// Orders looks up the orders shipments are made for. It is declared here,
// by its consumer; wiring answers it from tracking.
type Orders interface {
	// Order returns the order of site with the tos_id. An order the
	// site does not have is NotFound.
	Order(ctx context.Context, site, tosID string) (Order, error)
}

// withOrder fills what req lacks from the order its tos_id names (see
// fromOrder). Without a tos_id req is returned as it is.
func (s *Service) withOrder(ctx context.Context, site string, req CreateShipmentRequest) (CreateShipmentRequest, error) {
	if req.TosID == "" {
		return req, nil
	}
	// The tag bounds tos_id too, but the lookup comes before the tags.
	if utf8.RuneCountInString(req.TosID) > validation.MaxIDLength {
		return req, deliverykit.InvalidField("tos_id", "max", fmt.Sprintf("must be at most %d characters long", validation.MaxIDLength))
	}
	if s.opts.Orders == nil {
		return req, deliverykit.InvalidField("tos_id", "supported", "cannot be used: this server has no orders to take a shipment's content from")
	}
	o, err := s.opts.Orders.Order(ctx, site, req.TosID)
	if deliverykit.KindOf(err) == deliverykit.KindNotFound {
		return req, &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "order " + req.TosID + " not found", Err: err,
			Violations: []deliverykit.FieldViolation{{Field: "tos_id", Rule: "exists", Message: "is not an order of this site"}}}
	}
	if err != nil {
		return req, err
	}
	return fromOrder(req, o), nil
}

// fromOrder is req with what it lacks taken from o: the receiver, the
// sender, the shipping method, the reference (o's order number, when it
// fits), the pickup point of the deliveries carried by o's shipping method,
// and, for a shipment of one parcel that names no line items, o's line
// items. What req says wins. The caller's slices are left as they were.
func fromOrder(req CreateShipmentRequest, o Order) CreateShipmentRequest {
	if req.Receiver == nil {
		req.Receiver = o.Receiver
	}
	if req.Sender == nil {
		req.Sender = o.Sender
	}
	req.ShippingMethod = cmp.Or(req.ShippingMethod, o.ShippingMethod)
	if req.Reference == "" && len([]rune(o.ExternalID)) <= MaxReferenceLength {
		req.Reference = o.ExternalID
	}
	// Deliveries without a product get the shipping method first, so that
	// those it carries get the order's pickup point below.
	req = withShippingMethod(req)
	if len(req.Parcels) > MaxParcels {
		return req // the tags refuse the parcels unseen
	}
	req.Parcels = slices.Clone(req.Parcels)
	if len(req.Parcels) == 1 && len(req.Parcels[0].LineItems) == 0 {
		// With several parcels, which holds what is the merchant's to say.
		req.Parcels[0].LineItems = slices.Clone(o.LineItems)
	}
	if o.Pickup == nil || o.ShippingMethod == "" {
		return req
	}
	for i := range req.Parcels {
		p := &req.Parcels[i]
		if len(p.Deliveries) > MaxParcelDeliveries {
			continue
		}
		p.Deliveries = slices.Clone(p.Deliveries)
		for j := range p.Deliveries {
			d := &p.Deliveries[j]
			if d.Pickup == nil && d.Receiver == nil && d.CarrierProductRef == o.ShippingMethod {
				pk := *o.Pickup
				d.Pickup = &pk
			}
		}
	}
	return req
}
