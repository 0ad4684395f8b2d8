package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/tracking"
)

// CatalogProducts adapts the sites' delivery catalogs to tracking.Products,
// so that tracking accepts exactly the carrier product refs the catalog
// offers.
type CatalogProducts map[string]*catalog.Catalog

// Product implements tracking.Products.
func (c CatalogProducts) Product(site, ref string) (tracking.Product, bool) {
	cat := c[site]
	if cat == nil {
		return tracking.Product{}, false
	}
	p, ok := cat.Product(ref)
	if !ok {
		return tracking.Product{}, false
	}
	return tracking.Product{
		Ref:            p.Ref,
		CarrierID:      p.CarrierID,
		CarrierName:    p.CarrierName,
		ProductID:      p.ProductID,
		DeliveryType:   tracking.DeliveryType(p.DeliveryType),
		ShippingMethod: p.ProductName,
	}, true
}

// CatalogPolicies adapts the sites' catalog return policies to
// returns.Policies. A catalog without a return policy gives the zero policy
// (free returns without a time limit); returns_enabled false refuses every
// return.
type CatalogPolicies map[string]*catalog.Catalog

// Policy implements returns.Policies.
func (c CatalogPolicies) Policy(site string) (returns.Policy, bool) {
	cat := c[site]
	if cat == nil || cat.ReturnPolicy == nil {
		return returns.Policy{}, false
	}
	rp := cat.ReturnPolicy
	p := returns.Policy{
		WindowDays: rp.ReturnTimeDays,
		Costs: map[string]returns.Costs{
			rp.Currency: {ReturnShipment: rp.ReturnCost, Exchange: rp.ExchangeCost},
		},
	}
	p.Disabled = !rp.ReturnsEnabled
	return p, true
}

// NotifyObserver adapts notify to tracking.EventObserver: every new step or
// alert of a parcel becomes a notify.Event. A failure to record it is logged;
// tracking has already committed the change.
func NotifyObserver(ns *notify.Service, log *slog.Logger) tracking.EventObserver {
	return tracking.EventObserverFunc(func(ctx context.Context, c tracking.Change) {
		trigger := string(c.Step)
		if c.Alert != "" {
			trigger = string(c.Alert)
		}
		err := ns.Observe(ctx, notify.Event{
			Site:           c.Site,
			TosID:          c.TosID,
			ExternalID:     c.ExternalID,
			TrackingNumber: c.TrackingNumber,
			Trigger:        trigger,
			Time:           c.Time,
			ReceiverName:   c.ReceiverName,
			Email:          c.Email,
			Phone:          c.Phone,
			TrackingLink:   c.TrackingLink,
		})
		if err != nil {
			log.ErrorContext(ctx, "recording a parcel change for notifications", "site", c.Site, "tos_id", c.TosID, "trigger", trigger, "err", err)
		}
	})
}

// CheckoutOrders records completed checkouts: as tracking orders under the
// checkout's tos_id, and, when Returns is set and the customer gave an
// e-mail address, as orders the customer may return. It satisfies
// checkout.OrderRecorder and is idempotent by tos_id, as that interface
// requires.
type CheckoutOrders struct {
	Tracking *tracking.Service
	Returns  *returns.Service
	// SiteNames gives the sender name of each site's orders.
	SiteNames map[string]string
}

// RecordOrder implements checkout.OrderRecorder.
func (c CheckoutOrders) RecordOrder(ctx context.Context, o checkout.CompletedOrder) error {
	if c.Tracking != nil {
		req, err := trackingOrder(o, c.SiteNames[o.Site])
		if err != nil {
			return err
		}
		if err := c.Tracking.RecordOrder(ctx, o.Site, o.TosID, req); err != nil {
			return fmt.Errorf("record checkout %s as a tracking order: %w", o.TosID, err)
		}
	}
	if c.Returns != nil && o.Customer.Email != "" {
		in, err := returnsOrder(o)
		if err != nil {
			return err
		}
		_, err = c.Returns.ImportOrder(ctx, o.Site, in)
		// The foreign id is the order's external id: a conflict means an
		// earlier delivery of this same order was imported already.
		if err != nil && !errors.Is(err, deliverykit.ErrConflict) {
			return fmt.Errorf("record checkout %s as a returnable order: %w", o.TosID, err)
		}
	}
	return nil
}

// externalID is the merchant's id of a completed checkout: its cart id, or
// the tos_id when the merchant sent none.
func externalID(o checkout.CompletedOrder) string {
	if o.CartID != "" {
		return o.CartID
	}
	return o.TosID
}

func trackingOrder(o checkout.CompletedOrder, siteName string) (tracking.CreateTrackingOrderRequest, error) {
	if siteName == "" {
		siteName = o.Site
	}
	wh := o.Category.Warehouse.Address
	req := tracking.CreateTrackingOrderRequest{
		SiteID:            o.Site,
		ExternalID:        externalID(o),
		CarrierProductRef: o.Option.Carrier.ProductRef,
		Sender:            &tracking.Sender{Name: siteName, Address: trackingAddress(wh)},
		Receiver: &tracking.Receiver{
			Name:        receiverName(o.Customer),
			Email:       o.Customer.Email,
			PhoneNumber: o.Customer.Phone,
		},
		DeliveryType: orderDeliveryType(o.DeliveryType),
	}
	if a := o.Customer.Address; a != nil {
		req.Receiver.Address = &tracking.Address{
			Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country,
		}
	}
	if loc := o.Option.Location; loc != nil {
		req.Destination = &tracking.Destination{
			Address:            trackingAddress(loc.Address),
			LocationExternalID: loc.ExternalID,
			LocationType:       orderLocationType(loc.Type),
			OperationalHours:   operationalHours(loc.Hours),
		}
	} else {
		addr := req.Receiver.Address
		if addr == nil {
			addr = &tracking.Address{Country: o.Country}
		}
		req.Destination = &tracking.Destination{Address: addr}
	}
	cart, err := trackingCart(o)
	if err != nil {
		return req, err
	}
	req.Cart = cart
	if etd := o.Option.ETD; !etd.Earliest.IsZero() && !etd.Latest.IsZero() {
		req.Promises = &tracking.Promises{EstimatedDeliveryTime: &tracking.DateTimeRangeStrict{
			Start: etd.Earliest.UTC().Format(time.RFC3339),
			End:   etd.Latest.UTC().Format(time.RFC3339),
		}}
	}
	return req, nil
}

// receiverName is the customer's name, or the e-mail address or phone
// number when the merchant gave no name: tracking requires one, and these
// are what the customer recognises as theirs.
func receiverName(c checkout.Customer) string {
	if c.Address != nil && strings.TrimSpace(c.Address.Name) != "" {
		return c.Address.Name
	}
	if c.Email != "" {
		return c.Email
	}
	if c.Phone != "" {
		return c.Phone
	}
	return "customer"
}

func trackingAddress(a catalog.Address) *tracking.Address {
	out := &tracking.Address{Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if a.Coordinates != nil {
		out.Coordinates = &tracking.Coordinates{Lat: a.Coordinates.Lat, Lng: a.Coordinates.Lng}
	}
	return out
}

// orderDeliveryType maps the catalog's delivery types onto the tracking
// order's narrower enumeration: a mailbox delivery is a home delivery.
func orderDeliveryType(t catalog.DeliveryType) tracking.OrderDeliveryType {
	switch t {
	case catalog.DeliveryHome, catalog.DeliveryMailbox:
		return tracking.OrderDeliveryDelivery
	case catalog.DeliveryPickup:
		return tracking.OrderDeliveryPickup
	case catalog.DeliveryInStore:
		return tracking.OrderDeliveryInstore
	}
	return tracking.OrderDeliveryUnknown
}

// orderLocationType maps onto the order destination's enumeration, which
// has no post office: a post office is a manned counter.
func orderLocationType(t catalog.LocationType) tracking.PickupLocationType {
	switch t {
	case catalog.LocationLocker:
		return "LOCKER"
	case catalog.LocationStore:
		return "STORE"
	case catalog.LocationManned, catalog.LocationPostOffice:
		return "MANNED"
	}
	return tracking.PickupUnknown
}

// operationalHours turns the catalog's "08:00-20:00" ranges into tracking's
// TimeRanges. A range that does not parse is left out rather than guessed.
func operationalHours(h map[string][]string) *tracking.OperationalHours {
	if len(h) == 0 {
		return nil
	}
	conv := func(day string) []tracking.TimeRange {
		var out []tracking.TimeRange
		for _, r := range h[day] {
			start, end, ok := strings.Cut(r, "-")
			if !ok || len(start) != 5 || len(end) != 5 {
				continue
			}
			out = append(out, tracking.TimeRange{Start: start + ":00", End: end + ":00"})
		}
		return out
	}
	return &tracking.OperationalHours{
		Mon: conv("mon"), Tue: conv("tue"), Wed: conv("wed"), Thu: conv("thu"),
		Fri: conv("fri"), Sat: conv("sat"), Sun: conv("sun"),
	}
}

// trackingCart converts the checkout cart. Tracking carries int32 amounts
// (§2.2); a larger amount is refused rather than truncated.
func trackingCart(o checkout.CompletedOrder) (*tracking.Cart, error) {
	if len(o.Cart.Items) == 0 {
		return nil, nil
	}
	var firstErr error
	i32 := func(field string, v int64) int32 {
		if v < 0 || v > math.MaxInt32 {
			if firstErr == nil {
				firstErr = deliverykit.InvalidField(field, "lte", "amount "+strconv.FormatInt(v, 10)+" does not fit the tracking order's 32-bit field")
			}
			return 0
		}
		return int32(v)
	}
	cart := &tracking.Cart{
		Total:         i32("cart.total_value", o.Cart.TotalValue),
		Discount:      i32("cart.total_discount", o.Cart.TotalDiscount),
		Currency:      o.Currency,
		ShippingPrice: i32("shipping_price", o.ShippingPrice),
	}
	for i, it := range o.Cart.Items {
		name := it.Name
		if name == "" {
			name = it.SKU
		}
		cart.Items = append(cart.Items, tracking.CartItem{
			SKU:      it.SKU,
			Name:     name,
			Quantity: i32(fmt.Sprintf("cart.items[%d].quantity", i), it.Quantity),
			Price:    i32(fmt.Sprintf("cart.items[%d].price", i), it.Price),
		})
	}
	return cart, firstErr
}

func returnsOrder(o checkout.CompletedOrder) (returns.OrderInput, error) {
	in := returns.OrderInput{
		ForeignID:    externalID(o),
		ForeignName:  o.TosID,
		CurrencyCode: o.Currency,
		Email:        o.Customer.Email,
	}
	ship, err := returns.DecimalFromMinor(o.ShippingPrice, o.Currency)
	if err != nil {
		return in, err
	}
	in.ShippingAmount = ship
	for i, it := range o.Cart.Items {
		if it.Quantity <= 0 {
			continue
		}
		price, err := returns.DecimalFromMinor(it.Price, o.Currency)
		if err != nil {
			return in, err
		}
		in.Items = append(in.Items, returns.OrderItemInput{
			ForeignLineItemID:   strconv.Itoa(i + 1),
			SKU:                 it.SKU,
			ProductTitle:        it.Name,
			Quantity:            int(it.Quantity),
			PurchasePriceAmount: returns.PriceInput{Amount: price, ItemTax: "0"},
		})
	}
	return in, nil
}

// Compile-time checks that the adapters satisfy the consumers' interfaces.
var (
	_ tracking.Products      = CatalogProducts(nil)
	_ returns.Policies       = CatalogPolicies(nil)
	_ checkout.OrderRecorder = CheckoutOrders{}
)
