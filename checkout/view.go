package checkout

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/checkout/options"
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
	return &View{Session: sess, HTMLSnippet: SnippetIn(r.lang(), s.base, r.WidgetToken), Token: r.WidgetToken}
}

// result renders the chosen option as the selected option and the result.
func (s *Service) result(engine *options.Engine, r *record, cat *options.Category, opt *options.Option, addons []options.Addon) (*ShippingOption, *Result) {
	loc := location(opt.Location)
	dt := strings.ToLower(string(cat.DeliveryType))
	ship := component(PriceComponentShipping, opt.ID, opt.Carrier.ProductName, opt.Price, opt.Carrier.VATRate)
	pricing := &Pricing{Currency: opt.Currency, Price: ship.Value, NetPrice: ship.Value - ship.VAT, PriceComponents: []PriceComponent{ship}}
	var addonIDs []string
	var rAddons []Addon
	var dAddons []DeliveryAddon
	for _, a := range addons {
		c := component(PriceComponentAddon, a.ID, a.Name, a.Price, opt.Carrier.VATRate)
		pricing.PriceComponents = append(pricing.PriceComponents, c)
		pricing.Price += c.Value
		pricing.NetPrice += c.Value - c.VAT
		addonIDs = append(addonIDs, a.ID)
		rAddons = append(rAddons, Addon{Code: a.ID, Name: a.Name, Description: a.Description})
		dAddons = append(dAddons, DeliveryAddon{ID: a.ID, ExternalAddonID: a.ExternalID})
	}
	slot := &TimeSlot{ID: opt.ID, Start: opt.ETD.Earliest, End: opt.ETD.Latest}
	if !opt.ExpireTime.IsZero() {
		exp := opt.ExpireTime
		slot.Expires = &exp
	}
	selected := &ShippingOption{
		ShippingMethod: opt.Carrier.ProductRef, DeliveryType: dt,
		Carrier: opt.Carrier.Name, Product: opt.Carrier.ProductName,
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
	window := &Window{Earliest: opt.ETD.Earliest, Latest: opt.ETD.Latest}
	res := &Result{
		Shipping: &ResultShipping{
			ShippingMethod: opt.Carrier.ProductRef, DeliveryType: dt,
			Carrier: opt.Carrier.Name, Product: opt.Carrier.ProductName, Location: loc,
			DeliveryTime:     slot,
			ExternalMethodID: opt.Carrier.ExternalID,
			Addons:           rAddons,
			DeliveryAddons:   dAddons,
			Supports: Supports{CourierInstructions: sup.CourierInstructions, CustomerNumber: sup.CustomerNumber,
				DoorCode: sup.DoorCode, Search: sup.Search},
			Warehouse: &Warehouse{Address: address(cat.Warehouse.Address)},
		},
		Category: &ResultCategory{ID: cat.ID, Name: name, PresentedCategoryName: cat.Name, ExternalID: cat.ExternalID,
			BasePrice: cat.BasePrice, CustomText: cat.CustomText, CustomWarningText: cat.CustomWarningText, Tags: tags},
		Pricing:   pricing,
		Selection: r.selection(cat),
		DeliveryTime: &DeliveryTime{
			PickupFromMerchant:      &Window{Earliest: opt.ETD.Handover, Latest: opt.ETD.Handover},
			CustomerDeliveryPromise: window,
			CarrierDeliveryPromise:  window,
		},
	}
	return selected, res
}

// component is a price component of value (VAT included) at rate basis
// points. The VAT part is value × rate / (10000 + rate), rounded half up.
func component(t PriceComponentType, id, name string, value int64, rate int) PriceComponent {
	c := PriceComponent{Type: t, ID: id, Name: name, Value: value, VATRate: rate}
	if rate > 0 && value > 0 {
		// value ≤ 10^11 (validated prices) and rate ≤ 10^4: no overflow.
		d := int64(10000 + rate)
		c.VAT = (value*int64(rate)*2 + d) / (2 * d)
	}
	return c
}

func address(a catalog.Address) *LocationAddress {
	la := &LocationAddress{Name: a.Name, AddressLines: slices.Clone(a.AddressLines), City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if c := a.Coordinates; c != nil {
		la.Coordinates = &Coordinates{Lat: c.Lat, Lng: c.Lng}
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
	out := &Location{ExternalID: l.ExternalID, Name: l.Name, Address: address(l.Address), Meta: maps.Clone(l.Meta), LocationType: string(l.Type)}
	if len(l.Hours) > 0 {
		out.OperationalHours = map[string]string{}
		for day, ranges := range l.Hours {
			if len(ranges) > 0 {
				out.OperationalHours[day] = strings.Join(ranges, ", ")
			}
		}
	}
	if d := l.Distance; d != nil {
		out.Distance = &Distance{
			Walking: &DistanceValue{Value: d.WalkingMeters, Duration: d.WalkingMinutes},
			Driving: &DistanceValue{Value: d.DrivingMeters, Duration: d.DrivingMinutes},
		}
	}
	return out
}

func (c Cart) clone() Cart {
	c.Items = slices.Clone(c.Items)
	for i := range c.Items {
		c.Items[i].Attributes = slices.Clone(c.Items[i].Attributes)
	}
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
