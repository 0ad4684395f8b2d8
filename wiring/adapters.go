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
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
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
		WindowDays:    rp.ReturnTimeDays,
		ReturnProduct: rp.ReturnProduct,
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
			Locale:         c.Locale,
		})
		if err != nil {
			log.ErrorContext(ctx, "recording a parcel change for notifications", "site", c.Site, "tos_id", c.TosID, "trigger", trigger, "err", err)
		}
	})
}

// Orders records completed checkouts (checkout.OrderRecorder) and completed
// deliveries of delivery sessions (session.OrderRecorder): as tracking
// orders under the tos_id the session gave them, and, when Returns is set and
// the customer gave an e-mail address, as orders the customer may return. It
// is idempotent by tos_id, as both interfaces require.
type Orders struct {
	Tracking *tracking.Service
	Returns  *returns.Service
	// SiteNames gives the sender name of each site's orders.
	SiteNames map[string]string
}

// RecordOrder implements checkout.OrderRecorder.
func (r Orders) RecordOrder(ctx context.Context, o checkout.CompletedOrder) error {
	req, err := trackingOrder(o, r.SiteNames[o.Site])
	if err != nil {
		return err
	}
	var ret *returns.OrderInput
	if o.Customer.Email != "" {
		in, err := returnsOrder(o)
		if err != nil {
			return err
		}
		ret = &in
	}
	return r.record(ctx, o.Site, o.TosID, req, ret)
}

// RecordSessionOrder implements session.OrderRecorder.
func (r Orders) RecordSessionOrder(ctx context.Context, o session.CompletedOrder) error {
	req, err := sessionTrackingOrder(o, r.SiteNames[o.Site])
	if err != nil {
		return err
	}
	var ret *returns.OrderInput
	if o.Delivery.RecipientContact != nil && o.Delivery.RecipientContact.Email != "" {
		in, err := sessionReturnsOrder(o)
		if err != nil {
			return err
		}
		ret = &in
	}
	return r.record(ctx, o.Site, o.TosID, req, ret)
}

func (r Orders) record(ctx context.Context, site, tosID string, req tracking.CreateTrackingOrderRequest, ret *returns.OrderInput) error {
	if r.Tracking != nil {
		if err := r.Tracking.RecordOrder(ctx, site, tosID, req); err != nil {
			return fmt.Errorf("record %s as a tracking order: %w", tosID, err)
		}
	}
	if r.Returns != nil && ret != nil {
		_, err := r.Returns.ImportOrder(ctx, site, *ret)
		// The foreign id is the order's external id: a conflict means an
		// earlier delivery of this same order was imported already.
		if err != nil && !errors.Is(err, deliverykit.ErrConflict) {
			return fmt.Errorf("record %s as a returnable order: %w", tosID, err)
		}
	}
	return nil
}

// externalID is the merchant's id of a completed checkout: its order
// number, else its cart id, else the tos_id.
func externalID(o checkout.CompletedOrder) string {
	if o.ExternalID != "" {
		return o.ExternalID
	}
	if o.CartID != "" {
		return o.CartID
	}
	return o.TosID
}

// CheckOrder implements checkout.OrderChecker: an external id that is
// already a tracking order of the site is a Conflict naming external_id,
// answered before the session completes.
func (r Orders) CheckOrder(ctx context.Context, site, externalID string) error {
	if r.Tracking == nil || externalID == "" {
		return nil
	}
	res, err := r.Tracking.Orders(ctx, site, tracking.OrdersQuery{ExternalID: externalID})
	if err != nil {
		return fmt.Errorf("checking external id %q: %w", externalID, err)
	}
	if len(res.Orders) > 0 {
		return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "external_id is already a tracking order",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "is already the external id of a tracking order of this site"}}}
	}
	return nil
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
		Locale:       o.Locale,
	}
	if a := o.Customer.Address; a != nil {
		req.Receiver.Address = &tracking.Address{
			Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country,
			Street: a.Street, StreetNumber: a.StreetNumber, ApartmentNumber: a.ApartmentNumber, Region: a.Region,
			CareOf: a.CareOf, Attn: a.Attn, DoorCode: a.DoorCode,
		}
		if c := a.Coordinates; c != nil {
			req.Receiver.Address.Coordinates = &tracking.Coordinates{Lat: c.Lat, Lng: c.Lng}
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
// TimeRanges.
func operationalHours(h map[string][]string) *tracking.OperationalHours {
	if len(h) == 0 {
		return nil
	}
	return &tracking.OperationalHours{
		Mon: timeRanges(h["mon"]), Tue: timeRanges(h["tue"]), Wed: timeRanges(h["wed"]), Thu: timeRanges(h["thu"]),
		Fri: timeRanges(h["fri"]), Sat: timeRanges(h["sat"]), Sun: timeRanges(h["sun"]),
	}
}

// timeRanges converts "HH:MM-HH:MM" ranges; one that does not parse is left
// out rather than guessed.
func timeRanges(rs []string) []tracking.TimeRange {
	var out []tracking.TimeRange
	for _, r := range rs {
		start, end, ok := strings.Cut(r, "-")
		if !ok || len(start) != 5 || len(end) != 5 {
			continue
		}
		out = append(out, tracking.TimeRange{Start: start + ":00", End: end + ":00"})
	}
	return out
}

// int32s converts amounts to tracking's int32 fields (§2.2), remembering
// the first that does not fit: a larger amount is refused rather than
// truncated.
type int32s struct{ err error }

func (c *int32s) conv(field string, v int64) int32 {
	if v < 0 || v > math.MaxInt32 {
		if c.err == nil {
			c.err = deliverykit.InvalidField(field, "lte", "amount "+strconv.FormatInt(v, 10)+" does not fit the tracking order's 32-bit field")
		}
		return 0
	}
	return int32(v)
}

// trackingCart converts the checkout cart.
func trackingCart(o checkout.CompletedOrder) (*tracking.Cart, error) {
	if len(o.Cart.Items) == 0 {
		return nil, nil
	}
	var c int32s
	i32 := c.conv
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
	return cart, c.err
}

func returnsOrder(o checkout.CompletedOrder) (returns.OrderInput, error) {
	in := returns.OrderInput{
		ForeignID:       externalID(o),
		ForeignName:     o.TosID,
		CurrencyCode:    o.Currency,
		Email:           o.Customer.Email,
		Locale:          returnsLocale(o.Locale),
		DeliveryAddress: checkoutReturnsAddress(o.Customer.Address, o.Country),
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
	_ checkout.OrderRecorder = Orders{}
	_ session.OrderRecorder  = Orders{}
)

func sessionExternalID(o session.CompletedOrder) string {
	if o.ExternalID != "" {
		return o.ExternalID
	}
	return o.TosID
}

func sessionAddress(a *session.Address) *tracking.Address {
	if a == nil {
		return nil
	}
	out := &tracking.Address{AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.CountryCode, Region: a.RegionCode}
	if a.Coordinates != nil {
		out.Coordinates = &tracking.Coordinates{Lat: a.Coordinates.Lat, Lng: a.Coordinates.Lng}
	}
	return out
}

func sessionTrackingOrder(o session.CompletedOrder, siteName string) (tracking.CreateTrackingOrderRequest, error) {
	if siteName == "" {
		siteName = o.Site
	}
	d := o.Delivery
	req := tracking.CreateTrackingOrderRequest{
		SiteID:            o.Site,
		ExternalID:        sessionExternalID(o),
		CarrierProductRef: o.ProductRef,
		Sender:            &tracking.Sender{Name: siteName},
		Receiver:          &tracking.Receiver{Name: "customer"},
		DeliveryType:      orderDeliveryType(catalog.DeliveryType(o.Category.DeliveryType)),
	}
	if ls := o.Purchase.Locales; len(ls) > 0 {
		req.Locale = ls[0]
	}
	if wh := o.Category.Warehouse; wh != nil {
		req.Sender.Address = sessionAddress(&wh.Address)
	}
	if c := d.RecipientContact; c != nil {
		req.Receiver.Address = sessionAddress(c.Address)
		req.Receiver.Email = c.Email
		if p := c.PhoneNumber; p != nil {
			req.Receiver.PhoneNumber = p.CountryCode + p.Number
		}
		// The delivery session's contact has no name; the e-mail address
		// or phone number is what the customer recognises as theirs.
		switch {
		case c.Email != "":
			req.Receiver.Name = c.Email
		case req.Receiver.PhoneNumber != "":
			req.Receiver.Name = req.Receiver.PhoneNumber
		}
	}
	if loc := o.Option.PickupLocation; loc != nil {
		dest := &tracking.Destination{
			LocationExternalID: loc.ExternalID,
			LocationType:       orderLocationType(catalog.LocationType(loc.LocationType)),
		}
		if loc.VisitingContact != nil {
			dest.Address = sessionAddress(loc.VisitingContact.Address)
		}
		if dest.Address == nil {
			dest.Address = &tracking.Address{Country: o.Purchase.CountryCode}
		}
		dest.Address.Name = loc.Title
		if h := loc.OperationalHours; h != nil {
			dest.OperationalHours = &tracking.OperationalHours{
				Mon: timeRanges(h.Monday), Tue: timeRanges(h.Tuesday), Wed: timeRanges(h.Wednesday), Thu: timeRanges(h.Thursday),
				Fri: timeRanges(h.Friday), Sat: timeRanges(h.Saturday), Sun: timeRanges(h.Sunday),
			}
		}
		req.Destination = dest
	} else {
		addr := req.Receiver.Address
		if addr == nil {
			addr = &tracking.Address{Country: o.Purchase.CountryCode}
		}
		req.Destination = &tracking.Destination{Address: addr}
	}
	if len(d.LineItems) > 0 {
		var c int32s
		cart := &tracking.Cart{
			Total:         c.conv("purchase.total_value", int64(o.Purchase.TotalValue)),
			Discount:      c.conv("purchase.total_discount", int64(o.Purchase.TotalDiscount)),
			Currency:      o.Purchase.CurrencyCode,
			ShippingPrice: c.conv("shipping_price", o.ShippingPrice),
		}
		for i, li := range d.LineItems {
			cart.Items = append(cart.Items, tracking.CartItem{
				SKU:      li.SKU,
				Name:     li.Title,
				Quantity: li.Quantity,
				Price:    c.conv(fmt.Sprintf("line_items[%d].price", i), int64(li.Price)),
				Discount: c.conv(fmt.Sprintf("line_items[%d].discount", i), int64(li.Discount)),
				Image:    li.ImageURI,
			})
		}
		if c.err != nil {
			return req, c.err
		}
		req.Cart = cart
	}
	if abs := o.Option.ETD.Absolute; abs != nil && !abs.EarliestTime.IsZero() && !abs.LatestTime.IsZero() {
		req.Promises = &tracking.Promises{EstimatedDeliveryTime: &tracking.DateTimeRangeStrict{
			Start: abs.EarliestTime.UTC().Format(time.RFC3339),
			End:   abs.LatestTime.UTC().Format(time.RFC3339),
		}}
	}
	return req, nil
}

func sessionReturnsOrder(o session.CompletedOrder) (returns.OrderInput, error) {
	cur := o.Purchase.CurrencyCode
	in := returns.OrderInput{
		ForeignID:       sessionExternalID(o),
		ForeignName:     o.TosID,
		CurrencyCode:    cur,
		Email:           o.Delivery.RecipientContact.Email,
		DeliveryAddress: sessionReturnsAddress(o.Delivery.RecipientContact.Address),
	}
	if len(o.Purchase.Locales) > 0 {
		in.Locale = returnsLocale(o.Purchase.Locales[0])
	}
	ship, err := returns.DecimalFromMinor(o.ShippingPrice, cur)
	if err != nil {
		return in, err
	}
	in.ShippingAmount = ship
	for i, li := range o.Delivery.LineItems {
		price, err := returns.DecimalFromMinor(int64(li.Price), cur)
		if err != nil {
			return in, err
		}
		in.Items = append(in.Items, returns.OrderItemInput{
			ForeignLineItemID:   strconv.Itoa(i + 1),
			SKU:                 li.SKU,
			ProductTitle:        li.Title,
			Quantity:            int(li.Quantity),
			PurchasePriceAmount: returns.PriceInput{Amount: price, ItemTax: "0"},
		})
	}
	return in, nil
}

// CatalogShipmentProducts adapts the sites' catalogs to shipment.Products.
type CatalogShipmentProducts map[string]*catalog.Catalog

// Product implements shipment.Products.
func (c CatalogShipmentProducts) Product(site, ref string) (shipment.Product, bool) {
	cat := c[site]
	if cat == nil {
		return shipment.Product{}, false
	}
	p, ok := cat.Product(ref)
	if !ok {
		return shipment.Product{}, false
	}
	return shipment.Product{
		Ref:          p.Ref,
		CarrierID:    p.CarrierID,
		CarrierName:  p.CarrierName,
		Name:         p.ProductName,
		DeliveryType: shipment.DeliveryType(p.DeliveryType),
	}, true
}

// TrackingParcels registers booked shipment deliveries with tracking
// (shipment.ParcelRecorder): the shipment is the tracking order — found by
// its external id, else created — and each booked delivery a parcel of it.
// The customer tracking page link becomes the delivery's tracking_link.
// Tracking's create calls are idempotent, so a booking retried after a
// failure records nothing twice.
type TrackingParcels struct {
	Tracking *tracking.Service
	// Locale is the locale of the links; default "en-US".
	Locale string
}

// RecordBookedParcel implements shipment.ParcelRecorder.
func (r TrackingParcels) RecordBookedParcel(ctx context.Context, site string, p shipment.BookedParcel) (string, error) {
	orders, err := r.Tracking.Orders(ctx, site, tracking.OrdersQuery{ExternalID: p.OrderExternalID})
	if err != nil {
		return "", err
	}
	var tos string
	if len(orders.Orders) > 0 {
		tos = orders.Orders[0].TosID
	} else {
		dest := p.Receiver.Address
		typ := tracking.OrderDeliveryDelivery
		if p.Pickup != nil {
			typ = tracking.OrderDeliveryPickup
			if p.Pickup.Address != nil {
				dest = p.Pickup.Address
			}
		}
		tos, err = r.Tracking.CreateOrder(ctx, site, tracking.CreateTrackingOrderRequest{
			SiteID: site, ExternalID: p.OrderExternalID, CarrierProductRef: p.CarrierProductRef,
			Sender: &tracking.Sender{Name: p.Sender.Name, Address: shipmentAddress(p.Sender.Address)},
			Receiver: &tracking.Receiver{Name: p.Receiver.Name, Address: shipmentAddress(p.Receiver.Address),
				Email: p.Receiver.Email, PhoneNumber: p.Receiver.PhoneNumber},
			Destination:  &tracking.Destination{Address: shipmentAddress(dest)},
			DeliveryType: typ,
		})
		if err != nil {
			return "", err
		}
	}
	items := make([]tracking.ParcelLineItem, len(p.LineItems))
	for i, it := range p.LineItems {
		items[i] = tracking.ParcelLineItem{SKU: it.SKU, Name: it.Name, Quantity: it.Quantity, Price: it.Price, Currency: it.Currency, Discount: it.Discount}
	}
	err = r.Tracking.CreateParcel(ctx, site, tracking.CreateParcelRequest{
		SiteID: site, TosID: tos, TrackingNumber: p.TrackingNumber, CarrierProductRef: p.CarrierProductRef,
		DirectionType: tracking.DirectionType(p.DirectionType), DeliveryType: tracking.DeliveryType(p.DeliveryType), LineItems: items,
	})
	if err != nil {
		return "", err
	}
	locale := r.Locale
	if locale == "" {
		locale = "en-US"
	}
	link, err := r.Tracking.GenerateLink(ctx, site, tracking.GenerateTrackingPageLinkRequest{SiteID: site, Locale: locale, TrackingNumber: p.TrackingNumber})
	if err != nil {
		return "", err
	}
	return link.TrackingLink, nil
}

// shipmentAddress converts shipment's address, which has tracking's shape
// field for field (area F reuses the §2.1 address).
func shipmentAddress(a *shipment.Address) *tracking.Address {
	if a == nil {
		return nil
	}
	out := &tracking.Address{
		AddressLines: a.AddressLines, ApartmentNumber: a.ApartmentNumber, Attn: a.Attn, BuildingName: a.BuildingName,
		CareOf: a.CareOf, City: a.City, Country: a.Country, DoorCode: a.DoorCode, FloorNumber: a.FloorNumber,
		Name: a.Name, POBoxID: a.POBoxID, PostalCode: a.PostalCode, Region: a.Region, Street: a.Street,
		StreetNumber: a.StreetNumber, Subregion: a.Subregion,
	}
	if c := a.Coordinates; c != nil {
		out.Coordinates = &tracking.Coordinates{Lat: c.Lat, Lng: c.Lng}
	}
	return out
}

var (
	_ shipment.Products       = CatalogShipmentProducts(nil)
	_ shipment.ParcelRecorder = TrackingParcels{}
)
