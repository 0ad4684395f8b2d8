package returns

import (
	"cmp"
	"context"
	"errors"
	"strconv"
	"strings"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// HandleOrderCompleted is the outbox consumer of event.TypeOrderCompleted:
// a completed order whose customer gave an e-mail address becomes an order
// the customer may return (its foreign id is the order's external id). An
// order without one is skipped: the return page is reached by e-mail. It
// is idempotent: the order imported already is left as it is.
func (s *Service) HandleOrderCompleted(ctx context.Context, e event.Event) error {
	o, err := event.Decode[event.OrderCompleted](e)
	if err != nil {
		return err
	}
	if o.Customer.Email == "" {
		return nil
	}
	in, err := importInput(&o)
	if err != nil {
		return err
	}
	_, err = s.ImportOrder(ctx, e.Site, in)
	// The foreign id is the order's external id: a conflict means this
	// order was imported already.
	if errors.Is(err, deliverykit.ErrConflict) {
		return nil
	}
	return err
}

// importInput is the returnable order of a completed order.
func importInput(o *event.OrderCompleted) (OrderInput, error) {
	in := OrderInput{
		ForeignID:       o.ExternalID,
		ForeignName:     o.TosID,
		CurrencyCode:    o.Currency,
		Email:           o.Customer.Email,
		Locale:          usableLocale(o.Locale),
		DeliveryAddress: usableAddress(o.CustomerAddress, o.Country),
	}
	ship, err := DecimalFromMinor(o.ShippingPrice, o.Currency)
	if err != nil {
		return in, err
	}
	in.ShippingAmount = ship
	for i, it := range o.Cart.Items {
		if it.Quantity <= 0 {
			continue
		}
		price, err := DecimalFromMinor(it.Price, o.Currency)
		if err != nil {
			return in, err
		}
		in.Items = append(in.Items, OrderItemInput{
			ForeignLineItemID:   strconv.Itoa(i + 1),
			SKU:                 it.SKU,
			ForeignVariantID:    it.SKU,
			ProductTitle:        it.Name,
			Quantity:            int(it.Quantity),
			PurchasePriceAmount: PriceInput{Amount: price, ItemTax: "0"},
		})
	}
	return in, nil
}

// usableLocale is an order's locale as a returnable order keeps it: a
// locale returns does not accept is dropped (the page then speaks
// English) rather than keeping the order from being returnable.
func usableLocale(l string) string {
	if len(l) > 35 {
		return ""
	}
	if _, err := language.Parse(l); err != nil {
		return ""
	}
	return l
}

// usableAddress is an order's delivery address as a returnable order
// keeps it; country is the purchase country, used when the address names
// none. The address is kept only when it has a country, and cut to what
// returns accepts (5 lines of 256 characters, and the lengths of name,
// postal code and city; coordinates in range), so that an address never
// keeps an order from being returnable.
func usableAddress(a *deliverykit.Address, country string) *Address {
	if a == nil {
		return nil
	}
	out := &Address{Name: validation.ClipRunes(a.Name, 256), PostalCode: validation.ClipRunes(a.PostalCode, 32), City: validation.ClipRunes(a.City, 128), Country: cmp.Or(a.Country, country)}
	if !catalog.IsCountry(out.Country) {
		return nil
	}
	lines := a.AddressLines
	if len(lines) == 0 {
		if street := strings.TrimSpace(a.Street + " " + a.StreetNumber); street != "" {
			lines = []string{street}
		}
	}
	for _, l := range lines[:min(len(lines), 5)] {
		out.AddressLines = append(out.AddressLines, validation.ClipRunes(l, 256))
	}
	if c := a.Coordinates; c != nil && c.Lat >= -90 && c.Lat <= 90 && c.Lng >= -180 && c.Lng <= 180 {
		cp := *c
		out.Coordinates = &cp
	}
	return out
}
