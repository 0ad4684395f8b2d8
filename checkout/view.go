package checkout

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/options"
)

// view renders the record as the API shows it. engine may be nil (a site
// whose catalog was removed); names then fall back to the stored ones.
func (s *Service) view(engine *options.Engine, r *record) *View {
	// A View belongs to its caller, who may modify it; the record may be
	// shared through the cache and the options point into the catalog, so
	// nothing of either is handed out without a copy.
	sess := Session{
		ID: r.ID, Status: r.Status, Cart: r.Cart.clone(), ExpiresAt: r.ExpiresAt,
		Customer: r.Customer.clone(), SearchAddress: r.SearchAddress.clone(), TosID: r.TosID,
		ExternalID: r.ExternalID,
	}
	if r.Meta != nil {
		sess.Meta = maps.Clone(r.Meta)
	}
	if cat, opt, addons := r.chosen(); opt != nil {
		sess.SelectedShippingOption, sess.Result = s.result(engine, r, cat, opt, addons)
		sess.ShippingPrice = sess.Result.Pricing.Price
	}
	return &View{Session: sess, HTMLSnippet: snippetFor(r.language().base, s.base, r.WidgetToken, r.Snippet), Token: r.WidgetToken}
}

// result renders the chosen option as the selected option and the result.
func (s *Service) result(engine *options.Engine, r *record, cat *options.Category, opt *options.Option, addons []options.Addon) (*ShippingOption, *Result) {
	// The parts of the answer are allocated together: one object for the
	// garbage collector instead of a dozen. Each part is still a value of
	// its own, that the caller may change.
	b := new(resultBlock)
	loc := location(opt.Location)
	dt := lowerDeliveryType(cat.DeliveryType)
	ship := component(PriceComponentShipping, opt.ID, opt.Carrier.ProductName, opt.Price, opt.Carrier.VATRate)
	pricing := &b.pricing
	*pricing = Pricing{Currency: opt.Currency, Price: ship.Value, NetPrice: ship.Value - ship.VAT, PriceComponents: append(b.components[:0:1], ship)}
	addonIDs, rAddons, dAddons := addAddons(pricing, addons, opt.Carrier.VATRate)
	slot := &b.slot
	*slot = TimeSlot{ID: opt.ID, Start: opt.ETD.Earliest, End: opt.ETD.Latest}
	if !opt.ExpireTime.IsZero() {
		b.expires = opt.ExpireTime
		slot.Expires = &b.expires
	}
	// product is in the catalog's default locale, as the category's
	// name is: a merchant's systems read it, whatever the shopper's
	// language (opt.Carrier.ProductName is in the session's).
	product := opt.Carrier.ProductName
	if engine != nil {
		if p, ok := engine.Catalog().Product(opt.Carrier.ProductRef); ok {
			product = cmp.Or(p.ProductName, product)
		}
	}
	selected := &b.selected
	*selected = ShippingOption{
		ShippingMethod: opt.Carrier.ProductRef, DeliveryType: dt,
		Carrier: opt.Carrier.Name, Product: product,
		Price: pricing.Price, Currency: opt.Currency, Location: loc, TimeSlot: slot, Addons: addonIDs,
	}
	name := cat.Name
	if engine != nil && !cat.Fallback {
		for _, c := range engine.Catalog().Categories {
			if c.ID == cat.ID {
				name = cmp.Or(c.DisplayName[engine.Catalog().Locales[0]], name)
			}
		}
	} else if engine != nil && engine.Catalog().Fallback != nil {
		name = cmp.Or(engine.Catalog().Fallback.DisplayName[engine.Catalog().Locales[0]], name)
	}
	var tags []CategoryTag
	for _, t := range cat.Tags {
		tags = append(tags, CategoryTag{Name: t})
	}
	sup := opt.Carrier.Supports
	window := &b.window
	*window = Window{Earliest: opt.ETD.Earliest, Latest: opt.ETD.Latest}
	b.pickup = Window{Earliest: opt.ETD.Handover, Latest: opt.ETD.Handover}
	b.warehouse = Warehouse{Address: address(cat.Warehouse.Address)}
	b.shipping = ResultShipping{
		ShippingMethod: opt.Carrier.ProductRef, DeliveryType: dt,
		Carrier: opt.Carrier.Name, Product: product, Location: loc,
		DeliveryTime:     slot,
		ExternalMethodID: opt.Carrier.ExternalID,
		Addons:           rAddons,
		DeliveryAddons:   dAddons,
		Supports: Supports{CourierInstructions: sup.CourierInstructions, CustomerNumber: sup.CustomerNumber,
			DoorCode: sup.DoorCode, Search: sup.Search},
		Warehouse: &b.warehouse,
		Meta:      shippingMeta(opt.Carrier.Meta, r.Meta, opt),
	}
	b.category = ResultCategory{ID: cat.ID, Name: name, PresentedCategoryName: cat.Name, ExternalID: cat.ExternalID,
		BasePrice: cat.BasePrice, CustomText: cat.CustomText, CustomWarningText: cat.CustomWarningText, Tags: tags}
	b.deliveryTime = DeliveryTime{PickupFromMerchant: &b.pickup, CustomerDeliveryPromise: window, CarrierDeliveryPromise: window}
	res := &b.result
	*res = Result{
		Shipping:     &b.shipping,
		Category:     &b.category,
		Pricing:      pricing,
		Selection:    r.selection(cat),
		DeliveryTime: &b.deliveryTime,
	}
	return selected, res
}

// lowerDeliveryType is strings.ToLower of t, without an allocation for
// the catalog's delivery types.
func lowerDeliveryType(t catalog.DeliveryType) string {
	switch t {
	case catalog.DeliveryHome:
		return "delivery"
	case catalog.DeliveryPickup:
		return "pickup"
	case catalog.DeliveryMailbox:
		return "mailbox"
	case catalog.DeliveryInStore:
		return "instore"
	}
	return strings.ToLower(string(t))
}

// shippingMeta is the result's shipping.meta: the product's meta and the
// session's, the session's winning, then where a learned or blended
// product's promise came from (options.MetaPromiseSource and
// options.MetaPromiseSamples), so a merchant can see why a window moved;
// never nil, so that it is {} on the wire.
func shippingMeta(product, session map[string]string, opt *options.Option) map[string]string {
	out := make(map[string]string, len(product)+len(session)+2)
	maps.Copy(out, product)
	maps.Copy(out, session)
	if opt.PromiseSource != "" {
		out[options.MetaPromiseSource] = opt.PromiseSource
		out[options.MetaPromiseSamples] = strconv.Itoa(opt.PromiseSamples)
	}
	return out
}

// addAddons adds the chosen addons to pricing, at VAT rate basis points,
// and returns them as the selected option and the result name them.
func addAddons(pricing *Pricing, addons []options.Addon, rate int) ([]string, []Addon, []DeliveryAddon) {
	if len(addons) == 0 {
		return nil, nil, nil
	}
	pricing.PriceComponents = slices.Grow(pricing.PriceComponents, len(addons))
	ids := make([]string, 0, len(addons))
	rAddons := make([]Addon, 0, len(addons))
	dAddons := make([]DeliveryAddon, 0, len(addons))
	for _, a := range addons {
		c := component(PriceComponentAddon, a.ID, a.Name, a.Price, rate)
		pricing.PriceComponents = append(pricing.PriceComponents, c)
		pricing.Price += c.Value
		pricing.NetPrice += c.Value - c.VAT
		ids = append(ids, a.ID)
		rAddons = append(rAddons, Addon{Code: a.ID, Name: a.Name, Description: a.Description})
		dAddons = append(dAddons, DeliveryAddon{ID: a.ID, ExternalAddonID: a.ExternalID})
	}
	return ids, rAddons, dAddons
}

// resultBlock holds the parts of a rendered result, allocated at once.
type resultBlock struct {
	result       Result
	selected     ShippingOption
	shipping     ResultShipping
	category     ResultCategory
	pricing      Pricing
	components   [1]PriceComponent // the shipping component; addons grow it
	slot         TimeSlot
	expires      time.Time
	window       Window
	pickup       Window
	deliveryTime DeliveryTime
	warehouse    Warehouse
}

// component is a price component of value (VAT included) at rate basis
// points; its VAT part is options.IncludedVAT.
func component(t PriceComponentType, id, name string, value int64, rate int) PriceComponent {
	return PriceComponent{Type: t, ID: id, Name: name, Value: value, VATRate: rate, VAT: options.IncludedVAT(value, rate)}
}

func address(a catalog.Address) *LocationAddress {
	b := new(struct {
		la LocationAddress
		c  Coordinates
	})
	la := &b.la
	*la = LocationAddress{Name: a.Name, AddressLines: slices.Clone(a.AddressLines), City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if c := a.Coordinates; c != nil {
		b.c = Coordinates{Lat: c.Lat, Lng: c.Lng}
		la.Coordinates = &b.c
	}
	return la
}

// location renders a pickup location; hours become "08:00-12:00, 13:00-18:00"
// per day, closed days absent: the operational_hours shape checkout
// clients read.
func location(l *options.Location) *Location {
	if l == nil {
		return nil
	}
	b := new(struct {
		loc              Location
		dist             Distance
		walking, driving DistanceValue
	})
	out := &b.loc
	*out = Location{ExternalID: l.ExternalID, Name: l.Name, Address: address(l.Address), Meta: maps.Clone(l.Meta), LocationType: string(l.Type)}
	if len(l.Hours) > 0 {
		out.OperationalHours = make(map[string]string, len(l.Hours))
		for day, ranges := range l.Hours {
			if len(ranges) > 0 {
				out.OperationalHours[day] = strings.Join(ranges, ", ")
			}
		}
	}
	if d := l.Distance; d != nil {
		b.walking = DistanceValue{Value: d.WalkingMeters, Duration: d.WalkingMinutes}
		b.driving = DistanceValue{Value: d.DrivingMeters, Duration: d.DrivingMinutes}
		b.dist = Distance{Walking: &b.walking, Driving: &b.driving}
		out.Distance = &b.dist
	}
	return out
}

// clone copies c for a view; Items is [] rather than null when empty
// (zero is a value on /v1/siw: clients iterate it without a check).
func (c Cart) clone() Cart {
	c.Items = slices.Clone(c.Items)
	if c.Items == nil {
		c.Items = []CartItem{}
	}
	for i := range c.Items {
		c.Items[i].Attributes = slices.Clone(c.Items[i].Attributes)
		c.Items[i].ShippingDate = c.Items[i].ShippingDate.clone()
		c.Items[i].Dimensions = clonePtr(c.Items[i].Dimensions)
	}
	c.Attributes = slices.Clone(c.Attributes)
	c.Vouchers = slices.Clone(c.Vouchers)
	c.ShippingDate = c.ShippingDate.clone()
	return c
}

func (c *Customer) clone() *Customer {
	if c == nil {
		return nil
	}
	out := *c
	if a := c.Address; a != nil {
		ac := *a
		ac.AddressLines = slices.Clone(a.AddressLines)
		out.Address = &ac
	}
	return &out
}

func (a *SearchAddress) clone() *SearchAddress {
	if a == nil {
		return nil
	}
	out := *a
	if c := a.Coordinates; c != nil {
		cc := *c
		out.Coordinates = &cc
	}
	return &out
}
