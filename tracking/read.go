package tracking

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"golang.org/x/text/language"
)

// OrdersQuery filters GET /orders. All fields are optional.
type OrdersQuery struct {
	// ExternalID selects the order with the merchant's order id.
	ExternalID string
	// Email selects the orders of a receiver e-mail (case-insensitive).
	Email string
	// Locale translates names in the cart (shipping component names).
	// Default English.
	Locale string
	// Token (an extension) selects the order a customer tracking link
	// names, as the customer page reads it: its preselected_parcel_index
	// is the parcel the link points at. It wins over ExternalID and
	// Email.
	Token string
	// TrackingNumber (an extension, with Token) is the parcel the link
	// points at when the token itself names none (a link asked for by
	// tracking number carries it).
	TrackingNumber string
	// TosID (Go only) selects the order with this tos_id: how the
	// delivery session finds the order of a delivery completed without
	// an external id. It wins over ExternalID and Email; Token wins over
	// it.
	TosID string
}

// Orders returns the site's orders matching q as PrivateOrder, with their
// parcels and computed cart. Without ExternalID and Email it returns at most
// Options.MaxOrders orders.
func (s *Service) Orders(ctx context.Context, site string, q OrdersQuery) (*GetTrackingOrdersResponse, error) {
	tag := language.English
	if q.Locale != "" {
		t, err := parseLocale("locale", q.Locale)
		if err != nil {
			return nil, err
		}
		tag = t
	}
	now := s.opts.Clock.Now().UTC()
	out := &GetTrackingOrdersResponse{Orders: []PrivateOrder{}}
	err := s.store.View(ctx, func(tx storage.Tx) error {
		var recs []orderRecord
		switch {
		case q.Token != "":
			t, it, err := s.liveToken(tx, site, q.Token, now)
			if errors.Is(err, storage.ErrNotFound) {
				return notFoundField("tracking link", "token", "is not a tracking token of the site")
			}
			if err != nil {
				return err
			}
			po, err := s.privateOrder(tx, site, &it.Value, tag, q.Locale, now)
			if err != nil {
				return err
			}
			po.PreselectedParcelIndex = preselected(&it.Value, cmp.Or(t.TrackingNumber, q.TrackingNumber))
			out.Orders = append(out.Orders, *po)
			return nil
		case q.TosID != "":
			it, err := orders.Get(tx, storage.Key(site, q.TosID))
			if errors.Is(err, storage.ErrNotFound) || errors.Is(err, deliverykit.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			recs = append(recs, it.Value)
		case q.ExternalID != "":
			it, err := orderByExternalID(tx, site, q.ExternalID)
			if errors.Is(err, deliverykit.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if q.Email == "" || strings.EqualFold(receiverEmail(&it.Value), q.Email) {
				recs = append(recs, it.Value)
			}
		case q.Email != "":
			for ix, err := range ordersByEmail.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, strings.ToLower(q.Email)), Limit: s.opts.MaxOrders}) {
				if err != nil {
					return err
				}
				it, err := orders.Get(tx, storage.Key(site, ix.Value.TosID))
				if err != nil {
					return err
				}
				recs = append(recs, it.Value)
			}
		default:
			for it, err := range orders.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site), Limit: s.opts.MaxOrders}) {
				if err != nil {
					return err
				}
				recs = append(recs, it.Value)
			}
		}
		for i := range recs {
			po, err := s.privateOrder(tx, site, &recs[i], tag, q.Locale, now)
			if err != nil {
				return err
			}
			out.Orders = append(out.Orders, *po)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func receiverEmail(o *orderRecord) string {
	if o.Request.Receiver == nil {
		return ""
	}
	return o.Request.Receiver.Email
}

// ParcelsQuery selects the parcels of GET /parcels. Token, when set, wins
// and identifies the order; otherwise exactly one of ExternalID and
// TrackingNumber is required.
type ParcelsQuery struct {
	ExternalID     string
	TrackingNumber string
	Token          string
}

// Parcels answers GET /parcels: the parcels of the order named by the token
// or the external id (all of them), or the parcel with the tracking number
// (only that one). A token of another site's order is not found.
func (s *Service) Parcels(ctx context.Context, site string, q ParcelsQuery) (*GetTrackingParcelsResponse, error) {
	switch {
	case q.Token != "":
	case q.ExternalID != "" && q.TrackingNumber != "":
		return nil, deliverykit.Invalid(
			violation("external_id", "excluded_with", "must not be given together with tracking_number"),
			violation("tracking_number", "excluded_with", "must not be given together with external_id"))
	case q.ExternalID == "" && q.TrackingNumber == "":
		return nil, deliverykit.InvalidField("tracking_number", "required_without", "tracking_number or external_id is required")
	}
	now := s.opts.Clock.Now().UTC()
	var out *GetTrackingParcelsResponse
	err := s.store.View(ctx, func(tx storage.Tx) error {
		o, ps, err := s.queriedParcels(tx, site, q, now)
		if err != nil {
			return err
		}
		out = s.parcelsAnswer(site, &o, ps, now, nil)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// parcelsAnswer is the answer of GET /parcels about parcels ps of order o
// at now; w, when not nil, is narrowed to the instants at which it is the
// same.
func (s *Service) parcelsAnswer(site string, o *orderRecord, ps []storage.Item[parcelRecord], now time.Time, w *clockWindow) *GetTrackingParcelsResponse {
	links := s.links(site, o, "")
	out := &GetTrackingParcelsResponse{
		ExternalID: o.Request.ExternalID, TosID: o.TosID,
		TrackingLink: links.Links[0].URL, TrackingLinks: links,
		Parcels: []TrackingParcel{},
	}
	for i := range ps {
		out.Parcels = append(out.Parcels, owned(s.trackingParcel(site, o, &ps[i].Value, now, w)))
	}
	return out
}

// queriedParcels reads the order q names and the parcels to answer: all
// of the order's for a token or an external id, the one with the tracking
// number otherwise.
func (s *Service) queriedParcels(tx storage.Tx, site string, q ParcelsQuery, now time.Time) (orderRecord, []storage.Item[parcelRecord], error) {
	var o orderRecord
	switch {
	case q.Token != "":
		_, it, err := s.liveToken(tx, site, q.Token, now)
		if errors.Is(err, storage.ErrNotFound) {
			return o, nil, notFoundField("tracking link", "token", "is not a tracking token of the site")
		}
		if err != nil {
			return o, nil, err
		}
		o = it.Value
	case q.ExternalID != "":
		it, err := orderByExternalID(tx, site, q.ExternalID)
		if err != nil {
			return o, nil, err
		}
		o = it.Value
	default:
		recs, err := parcelVersions(tx, site, q.TrackingNumber)
		if err != nil {
			return o, nil, err
		}
		it, ps, err := s.numberedParcels(tx, site, recs)
		return it.Value, ps, err
	}
	ps, err := orderParcels(tx, site, &o)
	return o, ps, err
}

// numberedParcels reads the parcels listed by parcelVersions for one
// tracking number and their order. The records come from the caches of
// decoded records: this read runs in a View, and the answer only reads
// them.
func (s *Service) numberedParcels(tx storage.Tx, site string, recs []storage.Record) (storage.Item[orderRecord], []storage.Item[parcelRecord], error) {
	var none storage.Item[orderRecord]
	if len(recs) == 0 {
		return none, nil, deliverykit.E(deliverykit.KindNotFound, "parcel not found")
	}
	ps := make([]storage.Item[parcelRecord], 0, len(recs))
	for _, rec := range recs {
		it, err := s.parcelCache.get(tx, parcels.Name, rec, parcels.Decode)
		if err != nil {
			return none, nil, err
		}
		ps = append(ps, it)
	}
	tos, err := oneOrder(ps)
	if err != nil {
		return none, nil, err
	}
	it, err := s.cachedOrder(tx, storage.Key(site, tos))
	if err != nil {
		return none, nil, err
	}
	return it, ps, nil
}

// trackingParcel is parcel p of order o as GET /parcels shows it: its
// receiver is the parcel's, else the order's.
//
// w, when not nil, is narrowed to the instants around now at which the
// answer is the same (see clockWindow).
func (s *Service) trackingParcel(site string, o *orderRecord, p *parcelRecord, now time.Time, w *clockWindow) TrackingParcel {
	pp := s.privateParcel(site, o, p, now, o.Request.Locale, w)
	tp := TrackingParcel{
		CarrierName:           pp.DisplayCarrierName,
		Destination:           pp.Location,
		ProgressHistory:       newestFirst(pp.Progress),
		TrackingNumber:        pp.TrackingNumber,
		Alerts:                pp.Alerts,
		CarrierLink:           pp.CarrierLink,
		DeliveryType:          pp.DeliveryType,
		EstimatedDeliveryTime: pp.EstimatedDeliveryTime,
	}
	if len(tp.ProgressHistory) > 0 {
		cur := tp.ProgressHistory[0]
		tp.CurrentProgress = &cur
	}
	if r := p.Request.Receiver; r != nil {
		tp.Receiver = &TrackingParcelReceiver{Name: r.Name}
	} else if r := o.Request.Receiver; r != nil {
		tp.Receiver = &TrackingParcelReceiver{Name: r.Name}
	}
	return tp
}

// newestFirst is a parcel's history as GET /parcels shows it: the latest
// step first, as tracking clients read progress_history (its first element
// is current_progress). PrivateParcel.progress keeps the stored order,
// oldest first.
func newestFirst(h []ProgressItem) []ProgressItem {
	if len(h) == 0 {
		return nil
	}
	out := slices.Clone(h)
	slices.Reverse(out)
	return out
}

// OrderByToken returns the order a customer tracking link names, for the
// customer page; locale, or else the order's own, names the cart's
// shipping component. The token is the only credential: it is 128 random bits,
// and it reaches exactly one order of one site. It also returns the site
// name for the page header. An unknown token is NotFound; an expired or
// replaced one is NotFound with ErrLinkExpired as its cause.
func (s *Service) OrderByToken(ctx context.Context, token, locale string) (*PrivateOrder, error) {
	return s.OrderByLink(ctx, token, locale, "")
}

// OrderByLink is OrderByToken for a link that may name a parcel (its
// tracking_number query parameter): preselected_parcel_index is the
// parcel the token points at (a booked parcel's link), else the one with
// trackingNumber, else the first.
func (s *Service) OrderByLink(ctx context.Context, token, locale, trackingNumber string) (*PrivateOrder, error) {
	now := s.opts.Clock.Now().UTC()
	var po *PrivateOrder
	err := s.store.View(ctx, func(tx storage.Tx) error {
		t, it, err := s.liveToken(tx, "", token, now)
		if errors.Is(err, storage.ErrNotFound) {
			return deliverykit.E(deliverykit.KindNotFound, "no such tracking link")
		}
		if err != nil {
			return err
		}
		// Without a locale of its own, the page speaks the order's.
		loc := cmp.Or(locale, it.Value.Request.Locale)
		tag := language.English
		if t, err := language.Parse(loc); err == nil {
			tag = t
		}
		po, err = s.privateOrder(tx, t.Site, &it.Value, tag, locale, now)
		if err != nil {
			return err
		}
		po.PreselectedParcelIndex = preselected(&it.Value, cmp.Or(t.TrackingNumber, trackingNumber))
		return nil
	})
	return po, err
}

// preselected is the index of the order's parcel with the tracking
// number, 0 (the first) when it has none.
func preselected(o *orderRecord, trackingNumber string) int64 {
	if trackingNumber == "" {
		return 0
	}
	for i, p := range o.Parcels {
		if p.TrackingNumber == trackingNumber {
			return int64(i)
		}
	}
	return 0
}

// orderParcels reads an order's parcels in registration order.
func orderParcels(tx storage.Tx, site string, o *orderRecord) ([]storage.Item[parcelRecord], error) {
	out := make([]storage.Item[parcelRecord], 0, len(o.Parcels))
	for _, ref := range o.Parcels {
		it, err := parcels.Get(tx, parcelKey(site, ref.TrackingNumber, ref.CarrierID))
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

func (s *Service) privateOrder(tx storage.Tx, site string, o *orderRecord, tag language.Tag, locale string, now time.Time) (*PrivateOrder, error) {
	ps, err := orderParcels(tx, site, o)
	if err != nil {
		return nil, err
	}
	po := &PrivateOrder{
		AnalyticsID:   o.AnalyticsID,
		ExternalID:    o.Request.ExternalID,
		SiteName:      s.opts.Sites[site].Name,
		TosID:         o.TosID,
		TrackingLinks: s.links(site, o, locale),
	}
	if o.Request.Sender != nil {
		po.SenderName = o.Request.Sender.Name
	}
	if po.SenderName == "" {
		po.SenderName = po.SiteName
	}
	if c := o.Request.Cart; c != nil {
		po.Cart = computeCart(c, tag)
		props := itemProperties(ps)
		for i := range po.Cart.Items {
			describe(&po.Cart.Items[i], props[po.Cart.Items[i].SKU], tag)
		}
		cancelItems(po.Cart.Items, o.Cancelled)
		for i, it := range c.Items {
			po.Items = append(po.Items, DisplayItem{
				Discount: it.Discount, Image: it.Image, Name: it.Name, Price: it.Price,
				Quantity: po.Cart.Items[i].Quantity, SKU: it.SKU, TotalPrice: po.Cart.Items[i].TotalPrice,
			})
		}
	}
	for i := range ps {
		po.Parcels = append(po.Parcels, *s.privateParcel(site, o, &ps[i].Value, now, cmp.Or(locale, o.Request.Locale), nil))
	}
	po.Locale = o.Request.Locale
	po.TimeZone = s.timeZone(site, o, ps)
	return po, nil
}

// privateParcel is parcel p of order o as the merchant reads it; locale
// is the language of the page that shows it (carrier links may name it).
// w, when not nil, is narrowed by everything in it that depends on now.
func (s *Service) privateParcel(site string, o *orderRecord, p *parcelRecord, now time.Time, locale string, w *clockWindow) *PrivateParcel {
	r := &p.Request
	fallback := p.LastEventAt.IsZero() && now.Sub(p.CreatedAt) >= s.opts.CarrierFallbackAfter
	if p.LastEventAt.IsZero() {
		// The flag turns at CreatedAt + CarrierFallbackAfter: it is
		// now.After the nanosecond before.
		w.after(now, p.CreatedAt.Add(s.opts.CarrierFallbackAfter-time.Nanosecond))
	}
	prod, _ := s.opts.Products.Product(site, r.CarrierProductRef)
	loc := s.location(site, o, p)
	pp := &PrivateParcel{
		TrackingNumber:          r.TrackingNumber,
		Alerts:                  deriveAlerts(o, p, now, w),
		Carrier:                 "carrier-" + p.CarrierID,
		CarrierFallbackEnabled:  fallback,
		CarrierLink:             prod.Link(r.TrackingNumber, destinationPostalCode(o, p, loc), locale),
		CarrierLogoPattern:      prod.LogoPattern,
		CarrierProductID:        prod.ProductID,
		CarrierProductRef:       r.CarrierProductRef,
		DeliveryType:            r.DeliveryType,
		DirectionType:           r.DirectionType,
		DisplayCarrierName:      prod.CarrierName,
		EstimatedDeliveryTime:   currentEstimate(p, o),
		Exceptions:              p.Exceptions,
		Index:                   p.Index,
		LineItems:               r.LineItems,
		Location:                loc,
		Progress:                p.Progress,
		RequestedShippingMethod: prod.ShippingMethod,
	}
	pp.TrackingLink = pp.CarrierLink
	switch {
	case r.Sender != nil && r.Sender.Name != "":
		pp.SenderName = r.Sender.Name
	case o.Request.Sender != nil:
		pp.SenderName = o.Request.Sender.Name
	}
	return pp
}

// destinationPostalCode is the postal code of where the parcel goes: its
// pickup location's, else its receiver's address's, else the order
// destination's; "" when none is known.
func destinationPostalCode(o *orderRecord, p *parcelRecord, loc *Location) string {
	if loc != nil && loc.Address != nil && loc.Address.PostalCode != "" {
		return loc.Address.PostalCode
	}
	if r := p.Request.Receiver; r != nil && r.Destination != nil && r.Destination.Address != nil && r.Destination.Address.PostalCode != "" {
		return r.Destination.Address.PostalCode
	}
	if d := o.Request.Destination; d != nil && d.Address != nil {
		return d.Address.PostalCode
	}
	return ""
}

// location is where the parcel can be picked up (see location), with
// the catalog's pickup instructions and opening hours in words for the
// location.
func (s *Service) location(site string, o *orderRecord, p *parcelRecord) *Location {
	l := location(o, p)
	if l == nil || l.LocationExternalID == "" || s.opts.PickupPoints == nil {
		return l
	}
	pt, ok := s.opts.PickupPoints.PickupPoint(site, l.LocationExternalID)
	if !ok {
		return l
	}
	l.PickupInstructions, l.PickupInstructionsText = pt.Instructions, pt.InstructionsText
	if len(pt.HoursText) > 0 {
		h := DisplayHours{}
		if l.OperationalHours != nil {
			h = *l.OperationalHours
		}
		h.FreeText = slices.Clone(pt.HoursText)
		l.OperationalHours = &h
	}
	return l
}

// location is where the parcel can be picked up: the parcel's pickup
// point, with the order destination's hours when the order names the same
// location; or, for pickup and in-store orders without a parcel pickup, the
// order destination. Home deliveries have none. A return parcel's is
// where it goes back to: its receiver's address (the merchant's), if any.
func location(o *orderRecord, p *parcelRecord) *Location {
	if p.Request.DirectionType == DirectionReturn {
		// A return goes back to the merchant, never to the order's pickup
		// point: its location is its receiver's address, when known.
		if r := p.Request.Receiver; r != nil && r.Destination != nil && r.Destination.Address != nil {
			a := *r.Destination.Address
			a.Name = cmp.Or(a.Name, r.Name)
			return &Location{Address: &a}
		}
		return nil
	}
	d := o.Request.Destination
	var pick *Pickup
	if r := p.Request.Receiver; r != nil && r.Destination != nil {
		pick = r.Destination.Pickup
	}
	fromOrder := func(l *Location) {
		if d.OperationalHours != nil {
			l.OperationalHours = displayHours(d.OperationalHours)
		}
		if l.Address == nil {
			l.Address = d.Address
		}
	}
	switch {
	case pick != nil:
		l := &Location{Address: pick.Address, LocationExternalID: pick.ID, LocationType: pick.LocationType}
		if d != nil && d.LocationExternalID == pick.ID {
			fromOrder(l)
			if l.LocationType == "" {
				l.LocationType = d.LocationType
			}
		}
		if l.Address == nil {
			l.Address = &Address{}
		}
		return l
	case d != nil && (o.Request.DeliveryType == OrderDeliveryPickup || o.Request.DeliveryType == OrderDeliveryInstore):
		l := &Location{LocationExternalID: d.LocationExternalID, LocationType: d.LocationType}
		fromOrder(l)
		return l
	}
	return nil
}

// displayHours renders opening intervals per day, "10:00-14:00, 15:00-20:00".
func displayHours(h *OperationalHours) *DisplayHours {
	f := func(rs []TimeRange) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = shortTime(r.Start) + "-" + shortTime(r.End)
		}
		return strings.Join(parts, ", ")
	}
	return &DisplayHours{Mon: f(h.Mon), Tue: f(h.Tue), Wed: f(h.Wed), Thu: f(h.Thu), Fri: f(h.Fri), Sat: f(h.Sat), Sun: f(h.Sun)}
}

// shortTime drops zero seconds: "10:00:00" → "10:00".
func shortTime(s string) string {
	if strings.HasSuffix(s, ":00") && len(s) == 8 {
		return s[:5]
	}
	return s
}

// deriveAlerts returns the stored alerts plus the delay alerts that follow
// from the promises and the clock:
//
//   - ALERT_SUBMISSION_DELAYED when the promised submission window ended
//     before the parcel reached the carrier (STEP_SUBMITTED_TO_CARRIER or a
//     later carrier step), created_at = the end of the window;
//   - ALERT_DELIVERY_DELAYED when the promised delivery window (or, without
//     a promise, the carrier's estimate) ended before the parcel was
//     delivered (to the consumer or, for pickups, to the pickup point),
//     created_at = the end of the window.
//
// Deriving them when read keeps them exact without a background job, and
// created_at is stable, so they read as kept. A reported alert of the same
// type is not repeated. Return parcels get no delay alerts.
//
// w, when not nil, is narrowed to the instants at which every comparison
// with now made here comes out the same.
func deriveAlerts(o *orderRecord, p *parcelRecord, now time.Time, w *clockWindow) []Alert {
	out := append([]Alert(nil), p.Alerts...)
	if p.Request.DirectionType == DirectionReturn {
		return out
	}
	has := func(t AlertType) bool {
		for _, a := range out {
			if a.Type == t {
				return true
			}
		}
		return false
	}
	firstStep := func(set map[Step]bool) (time.Time, bool) {
		for _, it := range p.Progress {
			if set[it.Step] {
				t, ok := parseTime(it.Time)
				return t, ok
			}
		}
		return time.Time{}, false
	}
	late := func(deadline string, reached map[Step]bool) (time.Time, bool) {
		d, ok := parseTime(deadline)
		if !ok {
			return time.Time{}, false
		}
		if t, ok := firstStep(reached); ok {
			return d, t.After(d)
		}
		if _, ok := firstStep(map[Step]bool{StepTerminated: true, StepSentBack: true}); ok {
			return d, false
		}
		return d, w.after(now, d)
	}
	pr := o.Request.Promises
	if pr != nil && pr.EstimatedSubmissionTime != nil && !has(AlertSubmissionDelayed) {
		if d, ok := late(pr.EstimatedSubmissionTime.End, map[Step]bool{StepSubmittedToCarrier: true, StepOnRoute: true, StepDeliveredToPickupPoint: true, StepDeliveredToConsumer: true}); ok {
			out = append(out, Alert{Type: AlertSubmissionDelayed, CreatedAt: formatTime(d), SubmissionDelayed: &struct{}{}})
		}
	}
	deadline := ""
	if pr != nil && pr.EstimatedDeliveryTime != nil {
		deadline = pr.EstimatedDeliveryTime.End
	} else if p.Estimate != nil {
		deadline = p.Estimate.End
	}
	if deadline != "" && !has(AlertDeliveryDelayed) {
		if d, ok := late(deadline, map[Step]bool{StepDeliveredToPickupPoint: true, StepDeliveredToConsumer: true}); ok {
			out = append(out, Alert{Type: AlertDeliveryDelayed, CreatedAt: formatTime(d), DeliveryDelayed: &struct{}{}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := parseTime(out[i].CreatedAt)
		b, _ := parseTime(out[j].CreatedAt)
		return a.Before(b)
	})
	return out
}

// OrderRequest returns the order of site with the tos_id as it was
// registered (its create request), for areas that act on an order: a
// shipment made for it takes its receiver and items from it. An order the
// site does not have is NotFound.
func (s *Service) OrderRequest(ctx context.Context, site, tosID string) (*CreateTrackingOrderRequest, error) {
	var out *CreateTrackingOrderRequest
	err := s.store.View(ctx, func(tx storage.Tx) error {
		it, err := orders.Get(tx, storage.Key(site, tosID))
		if errors.Is(err, storage.ErrNotFound) {
			return errOrderMissing
		}
		if err != nil {
			return err
		}
		req := it.Value.Request
		out = &req
		return nil
	})
	return out, err
}
