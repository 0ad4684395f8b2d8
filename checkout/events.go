package checkout

import (
	"cmp"
	"slices"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// SourceCheckout is OrderCompleted.Source of a completed checkout session.
const SourceCheckout = "checkout"

// emitCompleted writes, in the completing transaction, the order a
// completed session became.
func (s *Service) emitCompleted(tx storage.Tx, r *record) error {
	ev, err := event.New("", r.Site, r.TosID, r.CompletedAt, orderCompleted(r))
	if err != nil {
		return err
	}
	return outbox.Add(tx, ev)
}

// orderCompleted describes a completed session as the order it became.
func orderCompleted(r *record) event.OrderCompleted {
	cat, opt, addons := r.chosen()
	o := event.OrderCompleted{
		TosID: r.TosID, ExternalID: r.orderExternalID(), SessionID: r.ID, Source: SourceCheckout, OptionID: opt.ID,
		CompletedAt: r.CompletedAt, Country: r.Country, Currency: r.Currency,
		ProductRef: opt.Carrier.ProductRef, DeliveryType: string(cat.DeliveryType),
		ShippingPrice: opt.Price,
		Cart:          event.Cart{Total: r.Cart.TotalValue, Discount: r.Cart.TotalDiscount, Vouchers: slices.Clone(r.Cart.Vouchers)},
	}
	if r.Options != nil {
		o.Locale = r.Options.Locale
	}
	for _, a := range addons {
		o.ShippingPrice += a.Price
	}
	wh := cat.Warehouse.Address.Postal()
	o.Warehouse = &wh
	if d := r.DeliveryAddress; d != nil && (r.Customer == nil || r.Customer.Address == nil) {
		// The merchant gave no customer address: the receiver is who
		// the shopper entered in the widget.
		o.Customer, o.CustomerAddress = d.receiver()
	} else if c := r.Customer; c != nil {
		o.Customer = deliverykit.Contact{Email: c.Email, Phone: c.Phone}
		if a := c.Address; a != nil {
			o.Customer.Name = a.Name
			o.CustomerAddress = &deliverykit.Address{
				Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country,
				Street: a.Street, StreetNumber: a.StreetNumber, ApartmentNumber: a.ApartmentNumber, Region: a.Region,
				CareOf: a.CareOf, Attn: a.Attn, DoorCode: a.DoorCode, Coordinates: copyCoordinates(a.Coordinates),
			}
		}
	}
	if loc := opt.Location; loc != nil && loc.PickupLocation != nil {
		o.Pickup = &event.Location{ExternalID: loc.ExternalID, Type: string(loc.Type), Address: loc.Address.Postal(), Hours: loc.Hours}
	}
	for _, it := range r.Cart.Items {
		// Tracking shows a line by its name; the SKU names one without.
		o.Cart.Items = append(o.Cart.Items, event.Item{SKU: it.SKU, Name: cmp.Or(it.Name, it.SKU), Quantity: it.Quantity, Price: it.Price})
	}
	if etd := opt.ETD; !etd.Earliest.IsZero() && !etd.Latest.IsZero() {
		o.Promise = &event.TimeRange{Earliest: etd.Earliest.UTC(), Latest: etd.Latest.UTC()}
		o.PromiseSource = opt.PromiseSource
	}
	return o
}
