package checkout

import (
	"slices"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit/internal/jsonwrite"
)

// AppendJSON appends to b the JSON encoding/json writes for s with its
// default HTML escaping (json.Marshal, or an Encoder without its newline),
// and returns the extended slice. It fails where encoding/json fails (a
// date-time whose year has more than four digits, a non-finite
// coordinate), and then returns b unchanged.
//
// It is the session's answer written field by field: the codec's
// reflection was 7% of a session.create. TestAppendJSONIsEncodingJSON
// holds it to encoding/json on random sessions that set every field.
func (s *Session) AppendJSON(b []byte) ([]byte, error) {
	var e encoder
	out := e.session(b, s)
	if e.err != nil {
		return b, e.err
	}
	return out, nil
}

// encoder's methods append JSON to the slice they are given and return it
// (a slice held in the encoder would cost a write barrier per append while
// the collector runs); err is the first value encoding/json refuses.
type encoder struct{ err error }

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// key appends a field's key, after a comma unless it opens its object.
// Names are ASCII without anything to escape.
func key(b []byte, first *bool, name string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func str(b []byte, s string) []byte { return jsonwrite.String(b, s) }

func integer(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

func boolean(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// strs appends a list of strings; nil is null.
func strs(b []byte, l []string) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = str(b, s)
	}
	return append(b, ']')
}

// stringMap appends m with its keys sorted, as encoding/json does; nil is
// null.
func stringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var small [8]string // the maps of an answer are small: sorted without an allocation
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = str(b, k)
		b = append(b, ':')
		b = str(b, m[k])
	}
	return append(b, '}')
}

// time appends t.MarshalJSON's date-time; one it refuses is e's error
// and a null keeps the output well formed until the answer is dropped.
func (e *encoder) time(b []byte, t time.Time) []byte {
	out, err := jsonwrite.Time(b, t)
	if err != nil {
		e.fail(err)
		return append(b, "null"...)
	}
	return out
}

// timePtr appends *t; nil is null.
func (e *encoder) timePtr(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return e.time(b, *t)
}

func (e *encoder) coordinates(b []byte, c *Coordinates) []byte {
	b = append(b, `{"lat":`...)
	b = e.float(b, c.Lat)
	b = append(b, `,"lng":`...)
	b = e.float(b, c.Lng)
	return append(b, '}')
}

func (e *encoder) float(b []byte, f float64) []byte {
	out, err := jsonwrite.Float(b, f)
	if err != nil {
		e.fail(err)
		return append(b, '0')
	}
	return out
}

func (e *encoder) session(b []byte, s *Session) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"id":`...)
	b = str(b, s.ID)
	b = append(b, `,"status":`...)
	b = str(b, string(s.Status))
	b = append(b, `,"cart":`...)
	b = e.cart(b, &s.Cart)
	if s.SelectedShippingOption != nil {
		b = append(b, `,"selected_shipping_option":`...)
		b = e.shippingOption(b, s.SelectedShippingOption)
	}
	b = append(b, `,"shipping_price":`...)
	b = integer(b, s.ShippingPrice)
	b = append(b, `,"expires_at":`...)
	b = e.time(b, s.ExpiresAt)
	if c := s.Customer; c != nil {
		b = append(b, `,"customer":`...)
		b = e.customer(b, c)
	}
	if a := s.SearchAddress; a != nil {
		b = append(b, `,"search_address":`...)
		b = e.searchAddress(b, a)
	}
	if s.ExternalID != "" {
		b = append(b, `,"external_id":`...)
		b = str(b, s.ExternalID)
	}
	if s.TosID != "" {
		b = append(b, `,"tos_id":`...)
		b = str(b, s.TosID)
	}
	if s.Result != nil {
		b = append(b, `,"result":`...)
		b = e.result(b, s.Result)
	}
	if len(s.Meta) > 0 {
		b = append(b, `,"meta":`...)
		b = stringMap(b, s.Meta)
	}
	return append(b, '}')
}

func (e *encoder) cart(b []byte, c *Cart) []byte {
	first := true
	b = append(b, '{')
	if c.CartID != "" {
		b = key(b, &first, "cart_id")
		b = str(b, c.CartID)
	}
	b = key(b, &first, "total_value")
	b = integer(b, c.TotalValue)
	b = append(b, `,"total_discount":`...)
	b = integer(b, c.TotalDiscount)
	if c.Currency != "" {
		b = append(b, `,"currency":`...)
		b = str(b, c.Currency)
	}
	b = append(b, `,"pre_order":`...)
	b = boolean(b, c.PreOrder)
	if len(c.Vouchers) > 0 {
		b = append(b, `,"vouchers":`...)
		b = strs(b, c.Vouchers)
	}
	if c.Voucher != "" {
		b = append(b, `,"voucher":`...)
		b = str(b, c.Voucher)
	}
	b = append(b, `,"items":`...)
	if c.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range c.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.cartItem(b, &c.Items[i])
		}
		b = append(b, ']')
	}
	if len(c.Attributes) > 0 {
		b = append(b, `,"attributes":`...)
		b = strs(b, c.Attributes)
	}
	if c.ShippingDate != nil {
		b = append(b, `,"shipping_date":`...)
		b = e.shippingDate(b, c.ShippingDate)
	}
	return append(b, '}')
}

func (e *encoder) cartItem(b []byte, it *CartItem) []byte {
	first := true
	b = append(b, '{')
	if it.SKU != "" {
		b = key(b, &first, "sku")
		b = str(b, it.SKU)
	}
	if it.Name != "" {
		b = key(b, &first, "name")
		b = str(b, it.Name)
	}
	if len(it.Attributes) > 0 {
		b = key(b, &first, "attributes")
		b = strs(b, it.Attributes)
	}
	b = key(b, &first, "out_of_stock")
	b = boolean(b, it.OutOfStock)
	b = append(b, `,"quantity":`...)
	b = integer(b, it.Quantity)
	b = append(b, `,"price":`...)
	b = integer(b, it.Price)
	b = append(b, `,"discount":`...)
	b = integer(b, it.Discount)
	if it.Image != "" {
		b = append(b, `,"image":`...)
		b = str(b, it.Image)
	}
	if it.Weight != 0 {
		b = append(b, `,"weight":`...)
		b = integer(b, it.Weight)
	}
	if d := it.Dimensions; d != nil {
		b = append(b, `,"dimensions":{"height":`...)
		b = integer(b, d.Height)
		b = append(b, `,"length":`...)
		b = integer(b, d.Length)
		b = append(b, `,"width":`...)
		b = integer(b, d.Width)
		b = append(b, '}')
	}
	if it.ShippingDate != nil {
		b = append(b, `,"shipping_date":`...)
		b = e.shippingDate(b, it.ShippingDate)
	}
	return append(b, '}')
}

func (e *encoder) shippingDate(b []byte, d *ShippingDate) []byte {
	first := true
	b = append(b, '{')
	if d.Start != nil {
		b = key(b, &first, "start")
		b = e.time(b, *d.Start)
	}
	if d.End != nil {
		b = key(b, &first, "end")
		b = e.time(b, *d.End)
	}
	if len(d.CategoryTags) > 0 {
		b = key(b, &first, "category_tags")
		b = append(b, '[')
		for i := range d.CategoryTags {
			if i > 0 {
				b = append(b, ',')
			}
			t := &d.CategoryTags[i]
			b = append(b, `{"name":`...)
			b = str(b, t.Name)
			if r := t.ShippingDate; r != nil {
				b = append(b, `,"shipping_date":{`...)
				rf := true
				if r.Start != nil {
					b = key(b, &rf, "start")
					b = e.time(b, *r.Start)
				}
				if r.End != nil {
					b = key(b, &rf, "end")
					b = e.time(b, *r.End)
				}
				b = append(b, '}')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func (e *encoder) customer(b []byte, c *Customer) []byte {
	first := true
	b = append(b, '{')
	if c.Email != "" {
		b = key(b, &first, "email")
		b = str(b, c.Email)
	}
	if c.Phone != "" {
		b = key(b, &first, "phone")
		b = str(b, c.Phone)
	}
	if a := c.Address; a != nil {
		b = key(b, &first, "address")
		af := true
		b = append(b, '{')
		for _, f := range [...]struct{ name, value string }{
			{"name", a.Name},
		} {
			if f.value != "" {
				b = key(b, &af, f.name)
				b = str(b, f.value)
			}
		}
		if len(a.AddressLines) > 0 {
			b = key(b, &af, "address_lines")
			b = strs(b, a.AddressLines)
		}
		for _, f := range [...]struct{ name, value string }{
			{"street", a.Street}, {"street_number", a.StreetNumber}, {"apartment_number", a.ApartmentNumber},
			{"city", a.City}, {"postal_code", a.PostalCode}, {"region", a.Region}, {"country", a.Country},
			{"care_of", a.CareOf}, {"attn", a.Attn}, {"door_code", a.DoorCode},
		} {
			if f.value != "" {
				b = key(b, &af, f.name)
				b = str(b, f.value)
			}
		}
		if a.Coordinates != nil {
			b = key(b, &af, "coordinates")
			b = e.coordinates(b, a.Coordinates)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func (e *encoder) searchAddress(b []byte, a *SearchAddress) []byte {
	first := true
	b = append(b, '{')
	for _, f := range [...]struct{ name, value string }{
		{"postal_code", a.PostalCode}, {"country", a.Country}, {"region", a.Region}, {"city", a.City},
	} {
		if f.value != "" {
			b = key(b, &first, f.name)
			b = str(b, f.value)
		}
	}
	if len(a.AddressLines) > 0 {
		b = key(b, &first, "address_lines")
		b = strs(b, a.AddressLines)
	}
	if a.Coordinates != nil {
		b = key(b, &first, "coordinates")
		b = e.coordinates(b, a.Coordinates)
	}
	return append(b, '}')
}

func (e *encoder) shippingOption(b []byte, o *ShippingOption) []byte {
	b = append(b, `{"shipping_method":`...)
	b = str(b, o.ShippingMethod)
	b = append(b, `,"delivery_type":`...)
	b = str(b, o.DeliveryType)
	b = append(b, `,"carrier":`...)
	b = str(b, o.Carrier)
	b = append(b, `,"product":`...)
	b = str(b, o.Product)
	b = append(b, `,"price":`...)
	b = integer(b, o.Price)
	b = append(b, `,"currency":`...)
	b = str(b, o.Currency)
	if o.Location != nil {
		b = append(b, `,"location":`...)
		b = e.location(b, o.Location)
	}
	if o.TimeSlot != nil {
		b = append(b, `,"time_slot":`...)
		b = e.timeSlot(b, o.TimeSlot)
	}
	if len(o.Addons) > 0 {
		b = append(b, `,"addons":`...)
		b = strs(b, o.Addons)
	}
	return append(b, '}')
}

func (e *encoder) timeSlot(b []byte, t *TimeSlot) []byte {
	b = append(b, '{')
	if t.ID != "" {
		b = append(b, `"id":`...)
		b = str(b, t.ID)
		b = append(b, ',')
	}
	if t.Expires != nil {
		b = append(b, `"expires":`...)
		b = e.time(b, *t.Expires)
		b = append(b, ',')
	}
	b = append(b, `"start":`...)
	b = e.time(b, t.Start)
	b = append(b, `,"end":`...)
	b = e.time(b, t.End)
	return append(b, '}')
}

func (e *encoder) location(b []byte, l *Location) []byte {
	b = append(b, `{"external_id":`...)
	b = str(b, l.ExternalID)
	b = append(b, `,"name":`...)
	b = str(b, l.Name)
	if l.Address != nil {
		b = append(b, `,"address":`...)
		b = e.locationAddress(b, l.Address)
	}
	if d := l.Distance; d != nil {
		b = append(b, `,"distance":{`...)
		first := true
		if d.Walking != nil {
			b = key(b, &first, "walking")
			b = distanceValue(b, d.Walking)
		}
		if d.Driving != nil {
			b = key(b, &first, "driving")
			b = distanceValue(b, d.Driving)
		}
		b = append(b, '}')
	}
	if len(l.OperationalHours) > 0 {
		b = append(b, `,"operational_hours":`...)
		b = stringMap(b, l.OperationalHours)
	}
	if len(l.Meta) > 0 {
		b = append(b, `,"meta":`...)
		b = stringMap(b, l.Meta)
	}
	if l.LocationType != "" {
		b = append(b, `,"location_type":`...)
		b = str(b, l.LocationType)
	}
	return append(b, '}')
}

func distanceValue(b []byte, d *DistanceValue) []byte {
	b = append(b, `{"value":`...)
	b = integer(b, d.Value)
	b = append(b, `,"duration":`...)
	b = integer(b, d.Duration)
	return append(b, '}')
}

func (e *encoder) locationAddress(b []byte, a *LocationAddress) []byte {
	first := true
	b = append(b, '{')
	if a.Name != "" {
		b = key(b, &first, "name")
		b = str(b, a.Name)
	}
	if len(a.AddressLines) > 0 {
		b = key(b, &first, "address_lines")
		b = strs(b, a.AddressLines)
	}
	for _, f := range [...]struct{ name, value string }{
		{"city", a.City}, {"postal_code", a.PostalCode}, {"country", a.Country},
	} {
		if f.value != "" {
			b = key(b, &first, f.name)
			b = str(b, f.value)
		}
	}
	if a.Coordinates != nil {
		b = key(b, &first, "coordinates")
		b = e.coordinates(b, a.Coordinates)
	}
	return append(b, '}')
}

func (e *encoder) result(b []byte, r *Result) []byte {
	first := true
	b = append(b, '{')
	if s := r.Shipping; s != nil {
		b = key(b, &first, "shipping")
		b = e.resultShipping(b, s)
	}
	if c := r.Category; c != nil {
		b = key(b, &first, "category")
		b = append(b, `{"id":`...)
		b = str(b, c.ID)
		b = append(b, `,"name":`...)
		b = str(b, c.Name)
		b = append(b, `,"presented_category_name":`...)
		b = str(b, c.PresentedCategoryName)
		if c.ExternalID != "" {
			b = append(b, `,"external_id":`...)
			b = str(b, c.ExternalID)
		}
		b = append(b, `,"base_price":`...)
		b = integer(b, c.BasePrice)
		if c.CustomText != "" {
			b = append(b, `,"custom_text":`...)
			b = str(b, c.CustomText)
		}
		if c.CustomWarningText != "" {
			b = append(b, `,"custom_warning_text":`...)
			b = str(b, c.CustomWarningText)
		}
		if len(c.Tags) > 0 {
			b = append(b, `,"tags":[`...)
			for i := range c.Tags {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"name":`...)
				b = str(b, c.Tags[i].Name)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if p := r.Pricing; p != nil {
		b = key(b, &first, "pricing")
		b = append(b, `{"currency":`...)
		b = str(b, p.Currency)
		b = append(b, `,"price":`...)
		b = integer(b, p.Price)
		b = append(b, `,"net_price":`...)
		b = integer(b, p.NetPrice)
		b = append(b, `,"price_components":`...)
		if p.PriceComponents == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i := range p.PriceComponents {
				if i > 0 {
					b = append(b, ',')
				}
				b = priceComponent(b, &p.PriceComponents[i])
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if r.Selection != "" {
		b = key(b, &first, "selection")
		b = str(b, string(r.Selection))
	}
	if d := r.DeliveryTime; d != nil {
		b = key(b, &first, "delivery_time")
		df := true
		b = append(b, '{')
		for _, w := range [...]struct {
			name string
			w    *Window
		}{
			{"pickup_from_merchant", d.PickupFromMerchant},
			{"customer_delivery_promise", d.CustomerDeliveryPromise},
			{"carrier_delivery_promise", d.CarrierDeliveryPromise},
		} {
			if w.w != nil {
				b = key(b, &df, w.name)
				b = append(b, `{"earliest":`...)
				b = e.time(b, w.w.Earliest)
				b = append(b, `,"latest":`...)
				b = e.time(b, w.w.Latest)
				b = append(b, '}')
			}
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func priceComponent(b []byte, c *PriceComponent) []byte {
	b = append(b, `{"type":`...)
	b = str(b, string(c.Type))
	if c.ID != "" {
		b = append(b, `,"id":`...)
		b = str(b, c.ID)
	}
	if c.Name != "" {
		b = append(b, `,"name":`...)
		b = str(b, c.Name)
	}
	b = append(b, `,"value":`...)
	b = integer(b, c.Value)
	b = append(b, `,"vat":`...)
	b = integer(b, c.VAT)
	b = append(b, `,"vat_rate":`...)
	b = integer(b, int64(c.VATRate))
	return append(b, '}')
}

func (e *encoder) resultShipping(b []byte, s *ResultShipping) []byte {
	b = append(b, `{"shipping_method":`...)
	b = str(b, s.ShippingMethod)
	b = append(b, `,"delivery_type":`...)
	b = str(b, s.DeliveryType)
	b = append(b, `,"carrier":`...)
	b = str(b, s.Carrier)
	b = append(b, `,"product":`...)
	b = str(b, s.Product)
	if s.Location != nil {
		b = append(b, `,"location":`...)
		b = e.location(b, s.Location)
	}
	if s.DeliveryTime != nil {
		b = append(b, `,"delivery_time":`...)
		b = e.timeSlot(b, s.DeliveryTime)
	}
	if s.ExternalMethodID != "" {
		b = append(b, `,"external_method_id":`...)
		b = str(b, s.ExternalMethodID)
	}
	if len(s.Addons) > 0 {
		b = append(b, `,"addons":[`...)
		for i := range s.Addons {
			if i > 0 {
				b = append(b, ',')
			}
			a := &s.Addons[i]
			b = append(b, `{"code":`...)
			b = str(b, a.Code)
			if a.Name != "" {
				b = append(b, `,"name":`...)
				b = str(b, a.Name)
			}
			if a.Description != "" {
				b = append(b, `,"description":`...)
				b = str(b, a.Description)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(s.DeliveryAddons) > 0 {
		b = append(b, `,"delivery_addons":[`...)
		for i := range s.DeliveryAddons {
			if i > 0 {
				b = append(b, ',')
			}
			a := &s.DeliveryAddons[i]
			b = append(b, `{"id":`...)
			b = str(b, a.ID)
			if a.ExternalAddonID != "" {
				b = append(b, `,"external_addon_id":`...)
				b = str(b, a.ExternalAddonID)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"meta":`...)
	b = stringMap(b, s.Meta)
	sp := &s.Supports
	b = append(b, `,"supports":{"courier_instructions":`...)
	b = boolean(b, sp.CourierInstructions)
	b = append(b, `,"customer_number":`...)
	b = boolean(b, sp.CustomerNumber)
	b = append(b, `,"door_code":`...)
	b = boolean(b, sp.DoorCode)
	b = append(b, `,"search":`...)
	b = boolean(b, sp.Search)
	b = append(b, '}')
	if w := s.Warehouse; w != nil {
		b = append(b, `,"warehouse":{`...)
		if w.Address != nil {
			b = append(b, `"address":`...)
			b = e.locationAddress(b, w.Address)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}
