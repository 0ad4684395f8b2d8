package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// SourceDeliverySession is OrderCompleted.Source of a delivery of a
// completed delivery session.
const SourceDeliverySession = "delivery_session"

// emitCompleted writes, in the completing transaction, the order each
// delivery became.
func (s *Service) emitCompleted(tx storage.Tx, orders []completedOrder) error {
	for i := range orders {
		o := &orders[i]
		ev, err := event.New("", o.Site, o.TosID, o.CompletedAt, o.event())
		if err != nil {
			return err
		}
		if err := outbox.Add(tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// event describes the delivery as the order it became.
func (o *completedOrder) event() event.OrderCompleted {
	d := &o.Delivery
	out := event.OrderCompleted{
		TosID: o.TosID, ExternalID: cmp.Or(o.ExternalID, o.TosID), SessionID: o.SessionName, Source: SourceDeliverySession,
		DeliveryID: d.ID, OptionID: o.Option.ID,
		CompletedAt: o.CompletedAt.UTC(), Country: o.Purchase.CountryCode, Currency: o.Purchase.CurrencyCode,
		ProductRef: o.ProductRef, DeliveryType: string(o.Category.DeliveryType), ShippingPrice: o.ShippingPrice,
		Cart: event.Cart{Total: int64(o.Purchase.TotalValue), Discount: int64(o.Purchase.TotalDiscount), Vouchers: slices.Clone(o.Purchase.Vouchers)},
	}
	if ls := o.Purchase.Locales; len(ls) > 0 {
		out.Locale = ls[0]
	}
	if wh := o.Category.Warehouse; wh != nil {
		out.Warehouse = wh.Address.postal()
	}
	if c := d.RecipientContact; c != nil {
		out.CustomerAddress = c.Address.postal()
		out.Customer.Email = c.Email
		if p := c.PhoneNumber; p != nil {
			out.Customer.Phone = p.CountryCode + p.Number
		}
	}
	if loc := o.Option.PickupLocation; loc != nil {
		p := &event.Location{ExternalID: loc.ExternalID, Type: string(loc.LocationType)}
		if loc.VisitingContact != nil && loc.VisitingContact.Address != nil {
			p.Address = *loc.VisitingContact.Address.postal()
		} else {
			p.Address = deliverykit.Address{Country: o.Purchase.CountryCode}
		}
		p.Address.Name = loc.Title
		if h := loc.OperationalHours; h != nil {
			p.Hours = map[string][]string{"mon": h.Monday, "tue": h.Tuesday, "wed": h.Wednesday, "thu": h.Thursday,
				"fri": h.Friday, "sat": h.Saturday, "sun": h.Sunday}
		}
		out.Pickup = p
	}
	for _, li := range d.LineItems {
		out.Cart.Items = append(out.Cart.Items, event.Item{SKU: li.SKU, Name: li.Title, Quantity: int64(li.Quantity),
			Price: int64(li.Price), Discount: int64(li.Discount), Image: li.ImageURI})
	}
	if abs := o.Option.ETD.Absolute; abs != nil && !abs.EarliestTime.IsZero() && !abs.LatestTime.IsZero() {
		out.Promise = &event.TimeRange{Earliest: abs.EarliestTime.UTC(), Latest: abs.LatestTime.UTC()}
		out.PromiseSource = o.Option.Carrier.Meta[options.MetaPromiseSource]
	}
	return out
}

// postal returns a as a postal address of the shared vocabulary.
func (a *Address) postal() *deliverykit.Address {
	if a == nil {
		return nil
	}
	out := &deliverykit.Address{AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.CountryCode, Region: a.RegionCode}
	if a.Coordinates != nil {
		c := *a.Coordinates
		out.Coordinates = &c
	}
	return out
}

// OrderChecker is asked, before a session completes, whether an order with
// the given external id may be recorded for the site; its error (a
// Conflict or AlreadyExists naming external_id, which Complete answers as
// AlreadyExists naming the choice's external_id) fails the completion and
// nothing changes.
// wiring answers it from tracking.
type OrderChecker interface {
	CheckOrder(ctx context.Context, site, externalID string) error
}

// checkOrders checks the merchant's order ids of the choices before the
// completion is written: each at most once in the request, and, with an
// OrderChecker, not already another order's. A violation names the
// choice's external_id.
func (s *Service) checkOrders(ctx context.Context, site string, choices []DeliveryChoice) error {
	seen := make(map[string]int, len(choices))
	for i, ch := range choices {
		if ch.ExternalID == "" {
			continue
		}
		field := fmt.Sprintf("delivery_choices[%d].external_id", i)
		if j, ok := seen[ch.ExternalID]; ok {
			return deliverykit.InvalidField(field, "unique", fmt.Sprintf("is also the external id of delivery_choices[%d]", j))
		}
		seen[ch.ExternalID] = i
		if s.orders == nil {
			continue
		}
		if err := s.orders.CheckOrder(ctx, site, ch.ExternalID); err != nil {
			// A taken order number is AlreadyExists, never Conflict:
			// Conflict is ABORTED on the wire, which clients read as a
			// stale etag and answer by reading and repeating, which
			// can never succeed here.
			var e *deliverykit.Error
			if errors.As(err, &e) && (e.Kind == deliverykit.KindConflict || e.Kind == deliverykit.KindAlreadyExists) {
				return &deliverykit.Error{Kind: deliverykit.KindAlreadyExists, Message: e.Message, Err: err,
					Violations: []deliverykit.FieldViolation{{Field: field, Rule: "unique", Message: "is already the external id of an order of this site"}}}
			}
			return err
		}
	}
	return nil
}
