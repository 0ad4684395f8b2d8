package deliverykittest

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/tracking"
)

// Order is a purchase for CompleteCheckout and CheckoutAndShip. Zero
// fields take defaults that suit the demo configuration.
type Order struct {
	// ExternalID is the merchant's order number. Default: "order-" and a
	// number.
	ExternalID string
	// Country and Currency are the purchase's. Default: SE and SEK.
	Country, Currency string
	// Locale is the customer's; notifications and the tracking page
	// speak it. Default: en-US.
	Locale string
	// Items are the cart: line n (from 1) is the returns' line item "n".
	// Default: DefaultItems.
	Items []checkout.CartItem
	// Customer receives the order. Default: DefaultCustomer.
	Customer *checkout.Customer
	// Option is the delivery option the shopper chose, by id
	// ("home/north-parcel-home"); empty keeps the preselected one.
	Option string
	// Vouchers are the cart's voucher codes.
	Vouchers []string
	// Scenario, in a test site's kit (Kit.NewSite), is the journey Ship
	// books the parcel for: its delivery's meta.test_scenario, as a
	// merchant's test sends it over HTTP. Empty: the kit's rates decide.
	Scenario carrier.Scenario
}

// DefaultItems is the default cart: a tent and a sleeping bag.
func DefaultItems() []checkout.CartItem {
	return []checkout.CartItem{
		{SKU: "tent-2p", Name: "Tent, 2 persons", Quantity: 1, Price: 189900, Weight: 2400},
		{SKU: "bag-3s", Name: "Sleeping bag", Quantity: 1, Price: 89900, Weight: 1200},
	}
}

// DefaultCustomer is the default customer: in Stockholm, with an e-mail
// address and a mobile number, so both notification channels reach her.
func DefaultCustomer() *checkout.Customer {
	return &checkout.Customer{Email: "alva@example.com", Phone: "+46701234567", Address: &checkout.CustomerAddress{
		Name: "Alva Berg", AddressLines: []string{"Sergels torg 1"}, Street: "Sergels torg", StreetNumber: "1",
		City: "Stockholm", PostalCode: "111 57", Country: "SE"}}
}

// Checkout is a completed checkout: a tracking order and, when the
// customer gave an e-mail address, a returnable order.
type Checkout struct {
	// Order is what was bought, its defaults filled in.
	Order     Order
	SessionID string
	TosID     string
	// ShippingMethod is the chosen carrier product's reference;
	// DeliveryType the checkout's word for it (home, pickup, …) and
	// Location the chosen pickup point, if any.
	ShippingMethod string
	DeliveryType   string
	Location       *checkout.Location
	// Promise is the delivery window the customer was shown.
	Promise *checkout.Window
}

// Parcel is a shipped order: one parcel, booked with the simulator.
type Parcel struct {
	Checkout
	ShipmentID     string
	TrackingNumber string
	// TrackingLink is the customer's tracking page of the parcel.
	TrackingLink string
}

// CompleteCheckout runs a checkout as a shop and its shopper do: the
// session is created for the cart and the customer's address, the shopper
// picks o.Option in the widget (when given), and the session is completed
// with the customer.
func (k *Kit) CompleteCheckout(ctx context.Context, o Order) (Checkout, error) {
	k.orders++
	o.ExternalID = cmp.Or(o.ExternalID, "order-"+strconv.Itoa(1000+k.orders))
	o.Country, o.Currency, o.Locale = cmp.Or(o.Country, "SE"), cmp.Or(o.Currency, "SEK"), cmp.Or(o.Locale, "en-US")
	if o.Items == nil {
		o.Items = DefaultItems()
	}
	if o.Customer == nil {
		o.Customer = DefaultCustomer()
	}
	cart := &checkout.Cart{CartID: "cart-" + o.ExternalID, Items: o.Items, Vouchers: o.Vouchers}
	for _, it := range o.Items {
		cart.TotalValue += it.Price*it.Quantity - it.Discount
	}
	req := checkout.CreateRequest{PurchaseCountry: o.Country, PurchaseCurrency: o.Currency, Locales: []string{o.Locale}, Cart: cart, ExternalID: o.ExternalID}
	if a := o.Customer.Address; a != nil {
		req.SearchAddress = &checkout.SearchAddress{PostalCode: a.PostalCode, Country: a.Country, City: a.City, AddressLines: a.AddressLines, Coordinates: a.Coordinates}
	}
	view, err := k.Services.Checkout.Create(ctx, k.Site, req)
	if err != nil {
		return Checkout{}, fmt.Errorf("deliverykittest: creating the checkout of %s: %w", o.ExternalID, err)
	}
	if o.Option != "" {
		if _, err := k.Services.Checkout.Select(ctx, view.Token, checkout.SelectRequest{OptionID: o.Option}); err != nil {
			return Checkout{}, fmt.Errorf("deliverykittest: choosing %s: %w", o.Option, err)
		}
	}
	done, err := k.Services.Checkout.Complete(ctx, k.Site, checkout.CompleteRequest{ID: view.Session.ID, Customer: o.Customer})
	if err != nil {
		return Checkout{}, fmt.Errorf("deliverykittest: completing the checkout of %s: %w", o.ExternalID, err)
	}
	c := Checkout{Order: o, SessionID: done.Session.ID, TosID: done.TosID}
	if r := done.Session.Result; r != nil && r.Shipping != nil {
		c.ShippingMethod, c.DeliveryType, c.Location = r.Shipping.ShippingMethod, r.Shipping.DeliveryType, r.Shipping.Location
		if r.DeliveryTime != nil {
			c.Promise = r.DeliveryTime.CustomerDeliveryPromise
		}
	}
	if c.ShippingMethod == "" {
		return c, fmt.Errorf("deliverykittest: the checkout of %s has no shipping method", o.ExternalID)
	}
	return c, nil
}

// Ship books the order of a completed checkout as the merchant's
// warehouse does: one parcel with the cart, from the site's first
// warehouse, with the chosen product (to the chosen pickup point). The
// parcel is tracked under the checkout's order and starts travelling.
//
// c is what CompleteCheckout returned, or names any completed checkout
// session of the kit's site by its SessionID or its TosID alone (one
// completed over HTTP, in the widget or in the newer generation): Ship
// then reads the cart, the receiver and the chosen delivery from the
// session (see CompletedCheckout).
func (k *Kit) Ship(ctx context.Context, c Checkout) (Parcel, error) {
	if c.ShippingMethod == "" {
		var err error
		if c, err = k.CompletedCheckout(ctx, c.SessionID, c.TosID); err != nil {
			return Parcel{}, err
		}
	}
	site, ok := k.Config.Site(k.Site)
	if !ok || site.Catalog == nil {
		return Parcel{}, fmt.Errorf("deliverykittest: site %s has no catalog", k.Site)
	}
	wh, ok := site.Catalog.Warehouse("")
	if !ok {
		return Parcel{}, fmt.Errorf("deliverykittest: site %s has no warehouse", k.Site)
	}
	cust := c.Order.Customer
	if cust == nil || cust.Address == nil {
		return Parcel{}, fmt.Errorf("deliverykittest: the order %s has no delivery address", c.Order.ExternalID)
	}
	a := cust.Address
	p := shipment.ParcelInput{Deliveries: []shipment.DeliveryInput{{CarrierProductRef: c.ShippingMethod}}}
	if c.Order.Scenario != "" {
		p.Deliveries[0].Meta = map[string]string{shipment.MetaTestScenario: string(c.Order.Scenario)}
	}
	var grams int64
	for _, it := range c.Order.Items {
		grams += it.Weight * it.Quantity
		p.LineItems = append(p.LineItems, shipment.LineItem{SKU: it.SKU, Name: it.Name, Quantity: int32(min(it.Quantity, math.MaxInt32)),
			Price: int32(min(it.Price, math.MaxInt32)), Currency: c.Order.Currency})
	}
	p.Weight = int32(min(max(grams, 1000), math.MaxInt32))
	if l := c.Location; l != nil {
		pick := &shipment.Pickup{ID: l.ExternalID}
		if la := l.Address; la != nil {
			pick.Address = &shipment.Address{Name: la.Name, AddressLines: la.AddressLines, City: la.City, PostalCode: la.PostalCode, Country: la.Country, Coordinates: la.Coordinates}
		}
		p.Deliveries[0].Pickup = pick
	}
	wa := wh.Address
	sh, err := k.Services.Shipment.CreateAndBook(ctx, k.Site, shipment.CreateShipmentRequest{
		ExternalID: c.Order.ExternalID,
		Sender: &shipment.Sender{Name: cmp.Or(site.Name, wa.Name), Address: &shipment.Address{Name: wa.Name, AddressLines: wa.AddressLines,
			City: wa.City, PostalCode: wa.PostalCode, Country: wa.Country}},
		Receiver: &shipment.Receiver{Name: cmp.Or(a.Name, cust.Email, "customer"), Email: cust.Email, PhoneNumber: cust.Phone, Address: &shipment.Address{
			Name: a.Name, AddressLines: a.AddressLines, Street: a.Street, StreetNumber: a.StreetNumber, City: a.City, PostalCode: a.PostalCode,
			Country: a.Country, Coordinates: a.Coordinates}},
		Parcels: []shipment.ParcelInput{p},
	})
	if err != nil {
		return Parcel{}, fmt.Errorf("deliverykittest: shipping %s: %w", c.Order.ExternalID, err)
	}
	d := sh.Parcels[0].Deliveries[0]
	return Parcel{Checkout: c, ShipmentID: sh.ID, TrackingNumber: d.TrackingNumber, TrackingLink: d.TrackingLink}, nil
}

// CompletedCheckout reads a completed checkout session of the kit's site,
// named by its id or, when sessionID is empty, by its order's tos_id:
// what was bought (Order: the order number, the cart, the receiver), and
// the delivery the shopper chose. The receiver is the session's customer,
// else the delivery address the shopper entered in the widget. A session
// that is not completed is a failed precondition.
func (k *Kit) CompletedCheckout(ctx context.Context, sessionID, tosID string) (Checkout, error) {
	if sessionID == "" && tosID == "" {
		return Checkout{}, deliverykit.InvalidField("SessionID", "required_without", "a checkout is named by its SessionID or its TosID")
	}
	byTos := sessionID == ""
	if byTos {
		sums, err := k.Services.Checkout.Summaries(ctx, k.Site, tosID)
		if err != nil {
			return Checkout{}, fmt.Errorf("deliverykittest: the checkout of %s: %w", tosID, err)
		}
		// The order's own session comes first; the others were created
		// from it (CreateFromOrder) and carry their own tos_id once done.
		if len(sums.Results) == 0 {
			return Checkout{}, deliverykit.E(deliverykit.KindNotFound, fmt.Sprintf("deliverykittest: no checkout has the tos_id %s", tosID))
		}
		sessionID = sums.Results[0].SessionID
	}
	v, err := k.Services.Checkout.Get(ctx, k.Site, sessionID)
	if err != nil {
		return Checkout{}, fmt.Errorf("deliverykittest: the checkout %s: %w", sessionID, err)
	}
	s := v.Session
	switch {
	case s.Status != checkout.StatusComplete:
		return Checkout{}, deliverykit.E(deliverykit.KindFailedPrecondition, fmt.Sprintf("deliverykittest: the checkout %s is %s, not completed", s.ID, s.Status))
	case byTos && s.TosID != tosID: // the order's own session is gone; what is left are sessions made from it
		return Checkout{}, deliverykit.E(deliverykit.KindNotFound, fmt.Sprintf("deliverykittest: no checkout has the tos_id %s", tosID))
	case tosID != "" && s.TosID != tosID:
		return Checkout{}, deliverykit.InvalidField("TosID", "eqfield", fmt.Sprintf("is %s, the checkout %s's order is %s", tosID, s.ID, s.TosID))
	}
	// The newer generation's view names the receiver whichever way it was
	// given, and the purchase country.
	g, err := k.Services.Checkout.GetCheckout(ctx, k.Site, s.ID, "")
	if err != nil {
		return Checkout{}, fmt.Errorf("deliverykittest: the checkout %s: %w", s.ID, err)
	}
	c := Checkout{SessionID: s.ID, TosID: s.TosID, Order: Order{
		// The tracking order's external id (checkout: the session's, else
		// the cart's id, else the tos_id).
		ExternalID: cmp.Or(s.ExternalID, s.Cart.CartID, s.TosID),
		Country:    g.Session.PurchaseCountry, Currency: s.Cart.Currency,
		Items: s.Cart.Items, Customer: s.Customer,
	}}
	if len(g.Session.DeliveryGroups) > 0 {
		if gc := g.Session.DeliveryGroups[0].Addresses.Customer; gc != nil && (c.Order.Customer == nil || c.Order.Customer.Address == nil) {
			c.Order.Customer = &checkout.Customer{Email: gc.Email, Phone: gc.Phone, Address: &checkout.CustomerAddress{
				Name: gc.Name, AddressLines: gc.AddressLines, Street: gc.Street, StreetNumber: gc.StreetNumber, ApartmentNumber: gc.ApartmentNumber,
				City: gc.City, PostalCode: gc.PostalCode, Region: gc.Region, Country: gc.Country, CareOf: gc.CareOf, Attn: gc.Attn,
				DoorCode: gc.DoorCode, Coordinates: gc.Coordinates}}
		}
	}
	if r := s.Result; r != nil && r.Shipping != nil {
		c.ShippingMethod, c.DeliveryType, c.Location = r.Shipping.ShippingMethod, r.Shipping.DeliveryType, r.Shipping.Location
		if r.DeliveryTime != nil {
			c.Promise = r.DeliveryTime.CustomerDeliveryPromise
		}
	}
	if c.ShippingMethod == "" {
		return c, deliverykit.E(deliverykit.KindFailedPrecondition, fmt.Sprintf("deliverykittest: the checkout %s has no shipping method", s.ID))
	}
	return c, nil
}

// CheckoutAndShip completes a checkout and ships it: CompleteCheckout,
// then Ship.
func (k *Kit) CheckoutAndShip(ctx context.Context, o Order) (Parcel, error) {
	c, err := k.CompleteCheckout(ctx, o)
	if err != nil {
		return Parcel{}, err
	}
	return k.Ship(ctx, c)
}

// MakeLate makes a parcel late: the carrier reports a delay on the
// morning of the estimate's last day and delivers one or two business
// days after it, so tracking raises ALERT_DELIVERY_DELAYED once the
// promise has passed.
func (k *Kit) MakeLate(ctx context.Context, trackingNumber string) error {
	return k.SetOutcome(ctx, trackingNumber, carrier.OutcomeDelayed)
}

// SetOutcome decides how a parcel's journey ends from here on (see
// carrier.Outcome): what it reported stays.
func (k *Kit) SetOutcome(ctx context.Context, trackingNumber string, o carrier.Outcome) error {
	return k.Simulator.SetOutcome(ctx, trackingNumber, o)
}

// Return is a customer's return with its return parcel, booked with the
// simulator: the customer hands it in within three days and it travels
// to the warehouse.
type Return struct {
	returns.Return
	// TrackingNumber is the return parcel's.
	TrackingNumber string
}

// ReturnItems is the customer returning lines of a checkout's order, by
// their number in the cart (from 1), one unit each, on the public return
// form: the return is created, its label booked as a RETURN shipment.
func (k *Kit) ReturnItems(ctx context.Context, c Checkout, lines ...int) (Return, error) {
	in := returns.CustomerReturnInput{SiteID: k.Site, ForeignOrderID: c.Order.ExternalID, Locale: c.Order.Locale}
	if c.Order.Customer != nil {
		in.Email = c.Order.Customer.Email
	}
	for _, n := range lines {
		in.Items = append(in.Items, returns.CustomerReturnItemInput{ForeignLineItemID: strconv.Itoa(n), Quantity: 1, Reason: "does not fit"})
	}
	r, err := k.Services.Returns.CreateReturn(ctx, in)
	if err != nil {
		return Return{}, fmt.Errorf("deliverykittest: returning lines %v of %s: %w", lines, c.Order.ExternalID, err)
	}
	out := Return{Return: r}
	sh, err := k.Services.Shipment.Get(ctx, k.Site, shipment.GetShipmentQuery{ExternalID: returns.ShipmentExternalID(r.ID)})
	if err != nil {
		return out, fmt.Errorf("deliverykittest: the return label of return %d: %w", r.ID, err)
	}
	out.TrackingNumber = sh.Parcels[0].Deliveries[0].TrackingNumber
	return out, nil
}

// Parcel is the tracking API's view of a parcel (GET /parcels by tracking
// number): its progress and its alerts, derived delays included.
func (k *Kit) Parcel(ctx context.Context, trackingNumber string) (tracking.TrackingParcel, error) {
	res, err := k.Services.Tracking.Parcels(ctx, k.Site, tracking.ParcelsQuery{TrackingNumber: trackingNumber})
	if err != nil {
		return tracking.TrackingParcel{}, err
	}
	if len(res.Parcels) == 0 {
		return tracking.TrackingParcel{}, deliverykit.E(deliverykit.KindNotFound, "parcel not found")
	}
	for _, p := range res.Parcels {
		if p.TrackingNumber == trackingNumber {
			return p, nil
		}
	}
	return res.Parcels[0], nil
}

// TrackingPage is the customer's tracking page of the parcel's order in
// locale (en-US when empty), as the customer's browser gets it: the HTML,
// fetched through Client from the link the merchant would hand out.
func (k *Kit) TrackingPage(ctx context.Context, trackingNumber, locale string) (string, error) {
	link, err := k.Services.Tracking.GenerateLink(ctx, k.Site, tracking.GenerateTrackingPageLinkRequest{SiteID: k.Site,
		TrackingNumber: trackingNumber, Locale: cmp.Or(locale, "en-US")})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link.TrackingLink, nil)
	if err != nil {
		return "", err
	}
	resp, err := k.Client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("deliverykittest: GET %s: %s", strings.TrimPrefix(link.TrackingLink, BaseURL), resp.Status)
	}
	return string(b), nil
}
