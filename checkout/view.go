package checkout

import (
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
	}
	if cat, opt, addons := r.chosen(); opt != nil {
		loc := location(opt.Location)
		price := opt.Price
		components := []PriceComponent{{Type: PriceComponentShipping, ID: opt.ID, Name: opt.Carrier.ProductName, Price: opt.Price}}
		var addonIDs []string
		for _, a := range addons {
			price += a.Price
			addonIDs = append(addonIDs, a.ID)
			components = append(components, PriceComponent{Type: PriceComponentAddon, ID: a.ID, Name: a.Name, Price: a.Price})
		}
		sess.ShippingPrice = price
		sess.SelectedShippingOption = &ShippingOption{
			ShippingMethod: opt.ID, DeliveryType: string(cat.DeliveryType),
			Carrier: opt.Carrier.Name, Product: opt.Carrier.ProductName,
			Price: price, Currency: opt.Currency, Location: loc, Addons: addonIDs,
		}
		supports := map[string]bool{}
		for _, a := range cat.Addons {
			supports[strings.ToLower(string(a.Type))] = true
		}
		window := &Window{Earliest: opt.ETD.Earliest, Latest: opt.ETD.Latest}
		name := cat.Name
		if engine != nil {
			for _, c := range engine.Catalog().Categories {
				if c.ID == cat.ID {
					name = cmpOr(c.DisplayName[engine.Catalog().Locales[0]], name)
				}
			}
		}
		sess.Result = &Result{
			Shipping: &ResultShipping{
				ShippingMethod: opt.ID, DeliveryType: string(cat.DeliveryType),
				Carrier: opt.Carrier.Name, Product: opt.Carrier.ProductName, Location: loc,
				DeliveryTime:     &TimeSlot{ID: opt.ID, Start: opt.ETD.Earliest, End: opt.ETD.Latest},
				ExternalMethodID: cmpOr(cat.ExternalID, opt.Carrier.ExternalID),
				Warehouse:        &Warehouse{Address: address(cat.Warehouse.Address)},
			},
			Category:  &ResultCategory{ID: cat.ID, Name: name, PresentedCategoryName: cat.Name, CustomText: cat.CustomText},
			Pricing:   &Pricing{Currency: opt.Currency, Price: price, PriceComponents: components},
			Selection: r.selection(),
			DeliveryTime: &DeliveryTime{
				PickupFromMerchant:      &Window{Earliest: opt.ETD.Handover, Latest: opt.ETD.Handover},
				CustomerDeliveryPromise: window,
				CarrierDeliveryPromise:  window,
			},
		}
		if len(supports) > 0 {
			sess.Result.Shipping.Supports = supports
		}
	}
	return &View{Session: sess, HTMLSnippet: Snippet(s.base, r.WidgetToken), Token: r.WidgetToken}
}

func address(a catalog.Address) *LocationAddress {
	la := &LocationAddress{Name: a.Name, AddressLines: slices.Clone(a.AddressLines), City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if c := a.Coordinates; c != nil {
		la.Coordinates = &Coordinates{Lat: c.Lat, Lng: c.Lng}
	}
	return la
}

// location renders a pickup location; hours become "08:00-12:00, 13:00-18:00"
// per day, closed days absent, as the spec's operational_hours shape.
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
