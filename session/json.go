package session

import (
	"slices"
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/jsonwrite"
)

// AppendJSON appends to b the JSON encoding/json writes for s with its
// default HTML escaping (json.Marshal, or an Encoder without its newline),
// and returns the extended slice. It fails where encoding/json fails, on a
// non-finite coordinate, and then returns b unchanged.
//
// It is the session's answer written field by field: encoding the answer
// by reflection was a quarter of a delivery session create, half of it
// deciding each omitzero date-time's zero-ness through its IsZero method
// (the codec's isZeroByMethod) and copying each MarshalJSON's output.
// TestAppendJSONIsEncodingJSON holds it to encoding/json on random
// sessions that set every field.
func (s *Session) AppendJSON(b []byte) ([]byte, error) {
	var e encoder
	out := e.session(b, s)
	if e.err != nil {
		return b, e.err
	}
	return out, nil
}

// encoder's methods append JSON to the slice they are given and return
// it (a slice held in the encoder would cost a write barrier per append
// while the collector runs); err is the first value encoding/json
// refuses.
type encoder struct {
	err error
}

// field appends the key of a field: a comma unless it opens its object
// (first), then the quoted name. Names are ASCII without anything to
// escape.
func (e *encoder) field(b []byte, first *bool, name string) []byte {
	if !*first {
		b = append(b, ',')
	}
	*first = false
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return b
}

// str appends s quoted as encoding/json does (jsonwrite.String).
func (e *encoder) str(b []byte, s string) []byte { return jsonwrite.String(b, s) }

// strs appends a list of strings; nil is null.
func (e *encoder) strs(b []byte, l []string) []byte {
	if l == nil {
		b = append(b, "null"...)
		return b
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.str(b, s)
	}
	b = append(b, ']')
	return b
}

// int64 appends Int64's quoted decimal (Int64.MarshalJSON).
func (e *encoder) int64(b []byte, n Int64) []byte {
	b = append(b, '"')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '"')
	return b
}

func (e *encoder) int32(b []byte, n int32) []byte { return strconv.AppendInt(b, int64(n), 10) }

// float appends f as encoding/json does (jsonwrite.Float); a value it
// refuses is e's error and a 0 keeps the output well formed until the
// answer is dropped.
func (e *encoder) float(b []byte, f float64) []byte {
	out, err := jsonwrite.Float(b, f)
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		return append(b, '0')
	}
	return out
}

func (e *encoder) null(b []byte) []byte { return append(b, "null"...) }

func (e *encoder) session(b []byte, s *Session) []byte {
	if s == nil {
		b = e.null(b)
		return b
	}
	first := true
	b = append(b, '{')
	if s.Name != "" {
		b = e.field(b, &first, "name")
		b = e.str(b, s.Name)
	}
	if s.State != "" {
		b = e.field(b, &first, "state")
		b = e.str(b, string(s.State))
	}
	if s.Purchase != nil {
		b = e.field(b, &first, "purchase")
		b = e.purchase(b, s.Purchase)
	}
	if len(s.Deliveries) > 0 {
		b = e.field(b, &first, "deliveries")
		b = append(b, '[')
		for i := range s.Deliveries {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.delivery(b, &s.Deliveries[i])
		}
		b = append(b, ']')
	}
	if !s.CreateTime.IsZero() {
		b = e.field(b, &first, "create_time")
		b = s.CreateTime.appendJSON(b)
	}
	if !s.UpdateTime.IsZero() {
		b = e.field(b, &first, "update_time")
		b = s.UpdateTime.appendJSON(b)
	}
	if s.Etag != "" {
		b = e.field(b, &first, "etag")
		b = e.str(b, s.Etag)
	}
	if s.ReturnsPromise != nil {
		b = e.field(b, &first, "returns_promise")
		b = e.returnsPromise(b, s.ReturnsPromise)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) purchase(b []byte, p *Purchase) []byte {
	first := true
	b = append(b, '{')
	b = e.field(b, &first, "country_code")
	b = e.str(b, p.CountryCode)
	b = e.field(b, &first, "currency_code")
	b = e.str(b, p.CurrencyCode)
	if p.TotalDiscount != 0 {
		b = e.field(b, &first, "total_discount")
		b = e.int64(b, p.TotalDiscount)
	}
	if p.TotalValue != 0 {
		b = e.field(b, &first, "total_value")
		b = e.int64(b, p.TotalValue)
	}
	if len(p.Vouchers) > 0 {
		b = e.field(b, &first, "vouchers")
		b = e.strs(b, p.Vouchers)
	}
	if len(p.Locales) > 0 {
		b = e.field(b, &first, "locales")
		b = e.strs(b, p.Locales)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) delivery(b []byte, d *Delivery) []byte {
	first := true
	b = append(b, '{')
	b = e.field(b, &first, "id")
	b = e.str(b, d.ID)
	b = e.field(b, &first, "line_items")
	if d.LineItems == nil {
		b = e.null(b)
	} else {
		b = append(b, '[')
		for i := range d.LineItems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.lineItem(b, &d.LineItems[i])
		}
		b = append(b, ']')
	}
	b = e.field(b, &first, "fulfillments")
	if d.Fulfillments == nil {
		b = e.null(b)
	} else {
		b = append(b, '[')
		for i := range d.Fulfillments {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.fulfillment(b, &d.Fulfillments[i])
		}
		b = append(b, ']')
	}
	b = e.field(b, &first, "recipient_contact")
	b = e.contact(b, d.RecipientContact)
	if len(d.Attributes) > 0 {
		b = e.field(b, &first, "attributes")
		b = e.strs(b, d.Attributes)
	}
	if len(d.Nodes) > 0 {
		b = e.field(b, &first, "nodes")
		b = append(b, '[')
		for i := range d.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.node(b, &d.Nodes[i])
		}
		b = append(b, ']')
	}
	if len(d.DeliveryCategories) > 0 {
		b = e.field(b, &first, "delivery_categories")
		b = append(b, '[')
		for i := range d.DeliveryCategories {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.category(b, &d.DeliveryCategories[i])
		}
		b = append(b, ']')
	}
	if d.TosID != "" {
		b = e.field(b, &first, "tos_id")
		b = e.str(b, d.TosID)
	}
	if d.ExternalID != "" {
		b = e.field(b, &first, "external_id")
		b = e.str(b, d.ExternalID)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) lineItem(b []byte, li *LineItem) []byte {
	first := true
	b = append(b, '{')
	b = e.field(b, &first, "sku")
	b = e.str(b, li.SKU)
	b = e.field(b, &first, "title")
	b = e.str(b, li.Title)
	b = e.field(b, &first, "quantity")
	b = e.int32(b, li.Quantity)
	if li.Weight != nil {
		b = e.field(b, &first, "weight")
		b = e.int32(b, *li.Weight)
	}
	if li.Dimensions != nil {
		b = e.field(b, &first, "dimensions")
		b = append(b, `{"height":`...)
		b = e.int32(b, li.Dimensions.Height)
		b = append(b, `,"length":`...)
		b = e.int32(b, li.Dimensions.Length)
		b = append(b, `,"width":`...)
		b = e.int32(b, li.Dimensions.Width)
		b = append(b, '}')
	}
	if li.Discount != 0 {
		b = e.field(b, &first, "discount")
		b = e.int64(b, li.Discount)
	}
	if li.Price != 0 {
		b = e.field(b, &first, "price")
		b = e.int64(b, li.Price)
	}
	if li.ImageURI != "" {
		b = e.field(b, &first, "image_uri")
		b = e.str(b, li.ImageURI)
	}
	if len(li.Attributes) > 0 {
		b = e.field(b, &first, "attributes")
		b = e.strs(b, li.Attributes)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) fulfillment(b []byte, f *Fulfillment) []byte {
	b = append(b, `{"readiness":`...)
	if f.Readiness == nil {
		b = e.null(b)
	} else {
		b = appendWindow(b, f.Readiness.EarliestTime, f.Readiness.LatestTime)
	}
	if len(f.CategoryTags) > 0 {
		b = append(b, `,"category_tags":`...)
		b = e.strs(b, f.CategoryTags)
	}
	b = append(b, '}')
	return b
}

// contact appends a Contact; nil is null.
func (e *encoder) contact(b []byte, c *Contact) []byte {
	if c == nil {
		b = e.null(b)
		return b
	}
	first := true
	b = append(b, '{')
	if c.Name != "" {
		b = e.field(b, &first, "name")
		b = e.str(b, c.Name)
	}
	b = e.field(b, &first, "address")
	if c.Address == nil {
		b = e.null(b)
	} else {
		b = e.address(b, c.Address)
	}
	if c.Email != "" {
		b = e.field(b, &first, "email")
		b = e.str(b, c.Email)
	}
	if p := c.PhoneNumber; p != nil {
		b = e.field(b, &first, "phone_number")
		b = append(b, `{"country_code":`...)
		b = e.str(b, p.CountryCode)
		b = append(b, `,"number":`...)
		b = e.str(b, p.Number)
		if p.Extension != "" {
			b = append(b, `,"extension":`...)
			b = e.str(b, p.Extension)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	return b
}

func (e *encoder) address(b []byte, a *Address) []byte {
	b = append(b, `{"country_code":`...)
	b = e.str(b, a.CountryCode)
	if a.RegionCode != "" {
		b = append(b, `,"region_code":`...)
		b = e.str(b, a.RegionCode)
	}
	if a.PostalCode != "" {
		b = append(b, `,"postal_code":`...)
		b = e.str(b, a.PostalCode)
	}
	if a.City != "" {
		b = append(b, `,"city":`...)
		b = e.str(b, a.City)
	}
	if len(a.AddressLines) > 0 {
		b = append(b, `,"address_lines":`...)
		b = e.strs(b, a.AddressLines)
	}
	if a.Coordinates != nil {
		b = append(b, `,"coordinates":`...)
		b = e.coordinates(b, a.Coordinates)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) coordinates(b []byte, c *deliverykit.Coordinates) []byte {
	b = append(b, `{"lat":`...)
	b = e.float(b, c.Lat)
	b = append(b, `,"lng":`...)
	b = e.float(b, c.Lng)
	b = append(b, '}')
	return b
}

func (e *encoder) node(b []byte, n *DeliveryNode) []byte {
	first := true
	b = append(b, '{')
	if n.Handoff != nil {
		b = e.field(b, &first, "handoff")
		b = appendWindow(b, n.Handoff.EarliestTime, n.Handoff.LatestTime)
	}
	if n.Location != nil {
		b = e.field(b, &first, "location")
		b = e.location(b, n.Location)
	}
	if len(n.Roles) > 0 {
		b = e.field(b, &first, "roles")
		b = append(b, '[')
		for i, r := range n.Roles {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.str(b, string(r))
		}
		b = append(b, ']')
	}
	if len(n.Tags) > 0 {
		b = e.field(b, &first, "tags")
		b = e.strs(b, n.Tags)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) category(b []byte, c *DeliveryCategory) []byte {
	b = append(b, `{"id":`...)
	b = e.str(b, c.ID)
	b = append(b, `,"delivery_type":`...)
	b = e.str(b, string(c.DeliveryType))
	b = append(b, `,"display_name":`...)
	b = e.str(b, c.DisplayName)
	b = append(b, `,"sort_order":`...)
	b = e.int32(b, c.SortOrder)
	b = append(b, `,"options_source":`...)
	b = e.str(b, string(c.OptionsSource))
	b = append(b, `,"delivery_options":`...)
	if c.DeliveryOptions == nil {
		b = e.null(b)
	} else {
		b = append(b, '[')
		for i := range c.DeliveryOptions {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.option(b, &c.DeliveryOptions[i])
		}
		b = append(b, ']')
	}
	if c.ExternalID != "" {
		b = append(b, `,"external_id":`...)
		b = e.str(b, c.ExternalID)
	}
	if len(c.Addons) > 0 {
		b = append(b, `,"addons":[`...)
		for i := range c.Addons {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.addon(b, &c.Addons[i])
		}
		b = append(b, ']')
	}
	if c.Preselected {
		b = append(b, `,"preselected":true`...)
	}
	if c.Chosen {
		b = append(b, `,"chosen":true`...)
	}
	if w := c.Warehouse; w != nil {
		b = append(b, `,"warehouse":{"id":`...)
		b = e.str(b, w.ID)
		b = append(b, `,"address":`...)
		b = e.address(b, &w.Address)
		if w.ExternalID != "" {
			b = append(b, `,"external_id":`...)
			b = e.str(b, w.ExternalID)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	return b
}

func (e *encoder) addon(b []byte, a *Addon) []byte {
	first := true
	b = append(b, '{')
	if a.ID != "" {
		b = e.field(b, &first, "id")
		b = e.str(b, a.ID)
	}
	b = e.field(b, &first, "display_name")
	b = e.str(b, a.DisplayName)
	b = append(b, `,"price":`...)
	b = e.int64(b, a.Price)
	if a.AddonType != "" {
		b = append(b, `,"addon_type":`...)
		b = e.str(b, string(a.AddonType))
	}
	if a.Preselected {
		b = append(b, `,"preselected":true`...)
	}
	if a.Chosen {
		b = append(b, `,"chosen":true`...)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) option(b []byte, o *DeliveryOption) []byte {
	b = append(b, `{"id":`...)
	b = e.str(b, o.ID)
	c := &o.Carrier
	b = append(b, `,"carrier":{"name":`...)
	b = e.str(b, c.Name)
	b = append(b, `,"product_name":`...)
	b = e.str(b, c.ProductName)
	b = append(b, `,"product_id":`...)
	b = e.str(b, c.ProductID)
	b = append(b, `,"external_id":`...)
	b = e.str(b, c.ExternalID)
	if c.SortOrder != 0 {
		b = append(b, `,"sort_order":`...)
		b = e.int32(b, c.SortOrder)
	}
	if len(c.Meta) > 0 {
		b = append(b, `,"meta":{`...)
		var small [8]string // a few keys: sorted without an allocation
		keys := small[:0]
		for k := range c.Meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.str(b, k)
			b = append(b, ':')
			b = e.str(b, c.Meta[k])
		}
		b = append(b, '}')
	}
	b = append(b, `},"etd":{`...)
	first := true
	if r := o.ETD.Relative; r != nil {
		b = e.field(b, &first, "relative")
		b = append(b, `{"unit":`...)
		b = e.str(b, string(r.Unit))
		if r.Earliest != 0 {
			b = append(b, `,"earliest":`...)
			b = e.int32(b, r.Earliest)
		}
		if r.Latest != 0 {
			b = append(b, `,"latest":`...)
			b = e.int32(b, r.Latest)
		}
		b = append(b, '}')
	}
	if a := o.ETD.Absolute; a != nil {
		b = e.field(b, &first, "absolute")
		b = appendWindow(b, a.EarliestTime, a.LatestTime)
	}
	if c := o.ETD.Custom; c != nil {
		b = e.field(b, &first, "custom")
		b = append(b, `{"text":`...)
		b = e.str(b, c.Text)
		b = append(b, '}')
	}
	b = append(b, `},"price":`...)
	b = e.int64(b, o.Price)
	if o.PickupLocation != nil {
		b = append(b, `,"pickup_location":`...)
		b = e.location(b, o.PickupLocation)
	}
	if o.Preselected {
		b = append(b, `,"preselected":true`...)
	}
	if o.Chosen {
		b = append(b, `,"chosen":true`...)
	}
	if !o.ExpireTime.IsZero() {
		b = append(b, `,"expire_time":`...)
		b = o.ExpireTime.appendJSON(b)
	}
	b = append(b, '}')
	return b
}

func (e *encoder) location(b []byte, l *PickupLocation) []byte {
	b = append(b, `{"id":`...)
	b = e.str(b, l.ID)
	b = append(b, `,"external_id":`...)
	b = e.str(b, l.ExternalID)
	b = append(b, `,"title":`...)
	b = e.str(b, l.Title)
	if l.LocationType != "" {
		b = append(b, `,"location_type":`...)
		b = e.str(b, string(l.LocationType))
	}
	if l.VisitingContact != nil {
		b = append(b, `,"visiting_contact":`...)
		b = e.contact(b, l.VisitingContact)
	}
	if l.DeliveryContact != nil {
		b = append(b, `,"delivery_contact":`...)
		b = e.contact(b, l.DeliveryContact)
	}
	if h := l.OperationalHours; h != nil {
		b = append(b, `,"operational_hours":{`...)
		first := true
		for _, day := range [...]struct {
			name  string
			hours []string
		}{
			{"monday", h.Monday}, {"tuesday", h.Tuesday}, {"wednesday", h.Wednesday},
			{"thursday", h.Thursday}, {"friday", h.Friday}, {"saturday", h.Saturday},
			{"sunday", h.Sunday}, {"free_text", h.FreeText},
		} {
			if len(day.hours) > 0 {
				b = e.field(b, &first, day.name)
				b = e.strs(b, day.hours)
			}
		}
		b = append(b, '}')
	}
	if len(l.Sections) > 0 {
		b = append(b, `,"sections":[`...)
		for i := range l.Sections {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.section(b, &l.Sections[i])
		}
		b = append(b, ']')
	}
	if d := l.Distances; d != nil {
		b = append(b, `,"distances":{`...)
		first := true
		if d.Walking != nil {
			b = e.field(b, &first, "walking")
			b = e.distance(b, d.Walking)
		}
		if d.Driving != nil {
			b = e.field(b, &first, "driving")
			b = e.distance(b, d.Driving)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	return b
}

func (e *encoder) section(b []byte, s *Section) []byte {
	b = append(b, `{"title":`...)
	b = e.str(b, s.Title)
	b = append(b, `,"columns":`...)
	if s.Columns == nil {
		b = e.null(b)
		b = append(b, '}')
		return b
	}
	b = append(b, '[')
	for i := range s.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		items := s.Columns[i].Items
		b = append(b, `{"items":`...)
		if items == nil {
			b = e.null(b)
		} else {
			b = append(b, '[')
			for j := range items {
				if j > 0 {
					b = append(b, ',')
				}
				first := true
				b = append(b, '{')
				if it := &items[j]; true {
					if it.IconURI != "" {
						b = e.field(b, &first, "icon_uri")
						b = e.str(b, it.IconURI)
					}
					if it.Text != "" {
						b = e.field(b, &first, "text")
						b = e.str(b, it.Text)
					}
					if it.LinkURI != "" {
						b = e.field(b, &first, "link_uri")
						b = e.str(b, it.LinkURI)
					}
				}
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	return b
}

func (e *encoder) distance(b []byte, d *Distance) []byte {
	b = append(b, `{"meters":`...)
	b = e.int64(b, d.Meters)
	b = append(b, `,"minutes":`...)
	b = e.int64(b, d.Minutes)
	b = append(b, '}')
	return b
}

// returnsPromise appends what ReturnsPromise.MarshalJSON writes. An
// unavailable promise is its fields as their tags say; an available one
// writes its costs even when they are 0, after the other fields (the
// order encoding/json gives the fields of the struct that embeds them).
func (e *encoder) returnsPromise(b []byte, p *ReturnsPromise) []byte {
	first := true
	b = append(b, '{')
	if p.ID != "" {
		b = e.field(b, &first, "id")
		b = e.str(b, p.ID)
	}
	if p.CurrencyCode != "" {
		b = e.field(b, &first, "currency_code")
		b = e.str(b, p.CurrencyCode)
	}
	if p.ReturnsEnabled {
		b = e.field(b, &first, "returns_enabled")
		b = append(b, "true"...)
	}
	if p.IsUnavailable && p.ReturnCost != 0 {
		b = e.field(b, &first, "return_cost")
		b = e.int64(b, p.ReturnCost)
	}
	if p.ExchangesEnabled {
		b = e.field(b, &first, "exchanges_enabled")
		b = append(b, "true"...)
	}
	if p.IsUnavailable && p.ExchangeCost != 0 {
		b = e.field(b, &first, "exchange_cost")
		b = e.int64(b, p.ExchangeCost)
	}
	if p.ReturnTimeDays != 0 {
		b = e.field(b, &first, "return_time_days")
		b = e.int32(b, p.ReturnTimeDays)
	}
	if p.ReturnPolicyText != "" {
		b = e.field(b, &first, "return_policy_text")
		b = e.str(b, p.ReturnPolicyText)
	}
	if p.ReturnPolicyURL != "" {
		b = e.field(b, &first, "return_policy_url")
		b = e.str(b, p.ReturnPolicyURL)
	}
	if p.IsUnavailable {
		b = e.field(b, &first, "is_unavailable")
		b = append(b, "true"...)
	} else {
		b = e.field(b, &first, "return_cost")
		b = e.int64(b, p.ReturnCost)
		b = e.field(b, &first, "exchange_cost")
		b = e.int64(b, p.ExchangeCost)
	}
	b = append(b, '}')
	return b
}
