package tracking

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
)

// HandleOrderCompleted is the outbox consumer of event.TypeOrderCompleted:
// the completed order becomes a tracking order under the tos_id the
// session gave it, sent by the site (the sender's name is the site's name).
// It is idempotent: recording the same order again changes nothing.
func (s *Service) HandleOrderCompleted(ctx context.Context, e event.Event) error {
	o, err := event.Decode[event.OrderCompleted](e)
	if err != nil {
		return err
	}
	req, err := s.orderRequest(e.Site, &o)
	if err != nil {
		return err
	}
	return s.RecordOrder(ctx, e.Site, o.TosID, req)
}

// orderRequest is the tracking order of a completed order.
func (s *Service) orderRequest(site string, o *event.OrderCompleted) (CreateTrackingOrderRequest, error) {
	req := CreateTrackingOrderRequest{
		SiteID:            site,
		ExternalID:        o.ExternalID,
		CarrierProductRef: o.ProductRef,
		Sender:            &Sender{Name: cmp.Or(s.opts.Sites[site].Name, site)},
		Receiver: &Receiver{
			// Tracking requires a name; the e-mail address or phone
			// number is what the customer recognises as theirs.
			Name:        cmp.Or(strings.TrimSpace(o.Customer.Name), o.Customer.Email, o.Customer.Phone, "customer"),
			Email:       o.Customer.Email,
			PhoneNumber: o.Customer.Phone,
			Address:     copyAddress(o.CustomerAddress),
		},
		DeliveryType: orderDeliveryType(catalog.DeliveryType(o.DeliveryType)),
		Locale:       o.Locale,
	}
	if o.Warehouse != nil {
		req.Sender.Address = copyAddress(o.Warehouse)
	}
	if p := o.Pickup; p != nil {
		req.Destination = &Destination{
			Address:            copyAddress(&p.Address),
			LocationExternalID: p.ExternalID,
			LocationType:       orderLocationType(catalog.LocationType(p.Type)),
			OperationalHours:   operationalHours(p.Hours),
		}
	} else {
		addr := copyAddress(o.CustomerAddress)
		if addr == nil {
			addr = &Address{Country: o.Country}
		}
		req.Destination = &Destination{Address: addr}
	}
	if len(o.Cart.Items) > 0 {
		var c int32s
		cart := &Cart{
			Total:         c.conv("cart.total", o.Cart.Total),
			Discount:      c.conv("cart.discount", o.Cart.Discount),
			Currency:      o.Currency,
			ShippingPrice: c.conv("shipping_price", o.ShippingPrice),
		}
		for i, it := range o.Cart.Items {
			p := fmt.Sprintf("cart.items[%d].", i)
			cart.Items = append(cart.Items, CartItem{
				SKU: it.SKU, Name: it.Name, Image: it.Image,
				Quantity: c.conv(p+"quantity", it.Quantity),
				Price:    c.conv(p+"price", it.Price),
				Discount: c.conv(p+"discount", it.Discount),
			})
		}
		if c.err != nil {
			return req, c.err
		}
		req.Cart = cart
	}
	if pr := o.Promise; pr != nil {
		req.Promises = &Promises{EstimatedDeliveryTime: &DateTimeRangeStrict{
			Start: pr.Earliest.UTC().Format(time.RFC3339),
			End:   pr.Latest.UTC().Format(time.RFC3339),
		}}
	}
	return req, nil
}

// HandleParcelBooked is the outbox consumer of event.TypeParcelBooked: the
// booked delivery becomes a parcel of the tracking order the shipment was
// made for (its tos_id), else of the one with the shipment's external id
// (registered from the shipment when no checkout
// registered it first), and the link token the shipment handed out names
// that order. A RETURN parcel booked for a return names the outbound
// order, so it is tracked with that order's external_id and tos_id; when
// tracking has no such order, the order registered for it has the
// customer (the parcel's sender) as its receiver. It is idempotent.
func (s *Service) HandleParcelBooked(ctx context.Context, e event.Event) error {
	p, err := event.Decode[event.ParcelBooked](e)
	if err != nil {
		return err
	}
	site := e.Site
	tos, err := s.bookedParcelOrder(ctx, site, p)
	if err != nil {
		return err
	}
	if tos == "" {
		dest, typ := p.ReceiverAddress, OrderDeliveryDelivery
		if p.PickupAddress != nil {
			dest, typ = p.PickupAddress, OrderDeliveryPickup
		}
		snd, sndAddr, rcv, rcvAddr := p.Sender, p.SenderAddress, p.Receiver, p.ReceiverAddress
		if p.Direction == string(DirectionReturn) {
			// The return parcel of an order tracking never saw (one
			// imported into returns only): the order is still the
			// customer's, who sends the parcel back, to their address.
			snd, sndAddr, rcv, rcvAddr = p.Receiver, p.ReceiverAddress, p.Sender, p.SenderAddress
			dest, typ = p.SenderAddress, OrderDeliveryDelivery
		}
		tos, err = s.CreateOrder(ctx, site, CreateTrackingOrderRequest{
			SiteID: site, ExternalID: p.OrderExternalID, CarrierProductRef: p.ProductRef,
			Sender: &Sender{Name: snd.Name, Address: copyAddress(sndAddr)},
			Receiver: &Receiver{Name: rcv.Name, Address: copyAddress(rcvAddr),
				Email: rcv.Email, PhoneNumber: rcv.Phone},
			Destination:  &Destination{Address: copyAddress(dest)},
			DeliveryType: typ,
		})
		if err != nil {
			return err
		}
	}
	var c int32s
	items := make([]ParcelLineItem, len(p.Items))
	for i, it := range p.Items {
		pre := fmt.Sprintf("items[%d].", i)
		items[i] = ParcelLineItem{SKU: it.SKU, Name: it.Name, Currency: p.Currency,
			Quantity: c.conv(pre+"quantity", it.Quantity), Price: c.conv(pre+"price", it.Price), Discount: c.conv(pre+"discount", it.Discount)}
	}
	if c.err != nil {
		return c.err
	}
	req := CreateParcelRequest{
		SiteID: site, TosID: tos, TrackingNumber: p.TrackingNumber, CarrierProductRef: p.ProductRef,
		DirectionType: DirectionType(p.Direction), DeliveryType: DeliveryType(p.DeliveryType), LineItems: items,
	}
	if p.Direction == string(DirectionReturn) && p.ReceiverAddress != nil {
		// Where the return goes (the merchant's warehouse), so that the
		// customer's page does not show the outbound pickup point.
		req.Receiver = &ParcelReceiver{Name: cmp.Or(p.Receiver.Name, p.ReceiverAddress.Name, "-"),
			Destination: &ParcelDestination{Address: copyAddress(p.ReceiverAddress)}}
	}
	// Registered as POST /parcel.create registers, without its event:
	// parcel.booked announced the parcel already.
	err = s.createParcel(ctx, site, req, false)
	if err != nil {
		return err
	}
	if p.LinkToken == "" {
		return nil
	}
	return s.addLinkToken(ctx, site, tos, p.LinkToken, p.TrackingNumber)
}

// bookedParcelOrder is the tos_id of the order a booked parcel belongs
// to: the order the shipment was made for, else the order with its
// OrderExternalID; "" when tracking has neither.
func (s *Service) bookedParcelOrder(ctx context.Context, site string, p event.ParcelBooked) (string, error) {
	if p.TosID != "" {
		_, err := s.OrderRequest(ctx, site, p.TosID)
		if err == nil {
			return p.TosID, nil
		}
		if deliverykit.KindOf(err) != deliverykit.KindNotFound {
			return "", err
		}
	}
	res, err := s.Orders(ctx, site, OrdersQuery{ExternalID: p.OrderExternalID})
	if err != nil || len(res.Orders) == 0 {
		return "", err
	}
	return res.Orders[0].TosID, nil
}

// addLinkToken makes token a link to the order, as the order's own link
// would be; it is remembered on the order so that rotating the order's
// link retires it too. The token points at the parcel with the tracking
// number (the page preselects it). Adding it again is a no-op.
func (s *Service) addLinkToken(ctx context.Context, site, tosID, token, trackingNumber string) error {
	now := s.opts.Clock.Now().UTC()
	return s.store.Update(ctx, func(tx storage.Tx) error {
		t, err := tokens.Get(tx, token)
		if err == nil {
			if t.Value.Site != site || t.Value.TosID != tosID {
				return deliverykit.InvalidField("link_token", "unique", "is already the link of another order")
			}
			return nil
		}
		if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		it, err := orders.Get(tx, storage.Key(site, tosID))
		if err != nil {
			return err
		}
		o := it.Value
		if len(o.LinkTokens) >= MaxLinkTokens {
			// The oldest extra link stops working, as a rotated one does.
			if err := expireToken(tx, o.LinkTokens[0], now); err != nil {
				return err
			}
			o.LinkTokens = o.LinkTokens[1:]
		}
		o.LinkTokens = append(o.LinkTokens, token)
		if _, err := orders.Put(tx, it.Key, o, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		return putToken(tx, token, tokenRecord{Site: site, TosID: tosID, ExpiresAt: now.Add(s.opts.LinkLifetime), TrackingNumber: trackingNumber})
	})
}

// MaxLinkTokens bounds the extra links of one order (one per booked
// parcel); beyond it the oldest stops working.
const MaxLinkTokens = 100

// expireToken makes a token's link say it expired.
func expireToken(tx storage.Tx, token string, now time.Time) error {
	t, err := tokens.Get(tx, token)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !t.Value.ExpiresAt.IsZero() && t.Value.ExpiresAt.Before(now) {
		return nil
	}
	t.Value.ExpiresAt = now
	_, err = tokens.Put(tx, token, t.Value, storage.VersionIs(t.Version))
	return err
}

// PortalLink is the customer tracking page link of a token, in locale
// ("" for the order's own): what a producer that hands out a link token
// before its parcel is registered (a booked shipment) shows.
func (s *Service) PortalLink(token, locale string) string { return s.portalLink(token, locale) }

func copyAddress(a *deliverykit.Address) *Address {
	if a == nil {
		return nil
	}
	cp := *a
	if a.Coordinates != nil {
		c := *a.Coordinates
		cp.Coordinates = &c
	}
	return &cp
}

// orderDeliveryType maps the catalog's delivery types onto the tracking
// order's narrower enumeration: a mailbox delivery is a home delivery.
func orderDeliveryType(t catalog.DeliveryType) OrderDeliveryType {
	switch t {
	case catalog.DeliveryHome, catalog.DeliveryMailbox:
		return OrderDeliveryDelivery
	case catalog.DeliveryPickup:
		return OrderDeliveryPickup
	case catalog.DeliveryInStore:
		return OrderDeliveryInstore
	}
	return OrderDeliveryUnknown
}

// orderLocationType maps onto the order destination's enumeration, which
// has no post office: a post office is a manned counter.
func orderLocationType(t catalog.LocationType) PickupLocationType {
	switch t {
	case catalog.LocationLocker:
		return "LOCKER"
	case catalog.LocationStore:
		return "STORE"
	case catalog.LocationManned, catalog.LocationPostOffice:
		return "MANNED"
	}
	return PickupUnknown
}

// operationalHours turns "08:00-20:00" ranges by day ("mon" … "sun") into
// OperationalHours.
func operationalHours(h map[string][]string) *OperationalHours {
	if len(h) == 0 {
		return nil
	}
	return &OperationalHours{
		Mon: timeRanges(h["mon"]), Tue: timeRanges(h["tue"]), Wed: timeRanges(h["wed"]), Thu: timeRanges(h["thu"]),
		Fri: timeRanges(h["fri"]), Sat: timeRanges(h["sat"]), Sun: timeRanges(h["sun"]),
	}
}

// timeRanges converts "HH:MM-HH:MM" ranges; one that does not parse is left
// out rather than guessed.
func timeRanges(rs []string) []TimeRange {
	var out []TimeRange
	for _, r := range rs {
		start, end, ok := strings.Cut(r, "-")
		if !ok || len(start) != 5 || len(end) != 5 {
			continue
		}
		out = append(out, TimeRange{Start: start + ":00", End: end + ":00"})
	}
	return out
}

// int32s converts amounts to tracking's 32-bit fields, remembering the
// first that does not fit: a larger amount is refused rather than
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
