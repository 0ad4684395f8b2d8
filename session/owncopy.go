package session

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// ownCopy returns a deep copy of the writable part of a request, so that a
// returned session never shares memory with the caller's input: a caller
// reusing its request for the next patch must not change an earlier
// result.
//
// The copy is what a JSON round trip of the writable part (its tags, the
// codecs of Int64 and Timestamp) gives, field by field: an empty list of
// an omitempty field becomes nil, a zero Timestamp loses its zone and a
// set one is in UTC without a monotonic reading, an invalid UTF-8 byte of
// a string becomes U+FFFD, and what JSON cannot hold (a date-time outside
// years 0–9999, a coordinate that is not a finite number) is an error.
// TestOwnCopyIsJSONRoundTrip holds it to the round trip on random
// requests; the round trip was a tenth of a create's encoding work.
func ownCopy(in *Session) (*Purchase, []Delivery, error) {
	var c copier
	p := c.purchase(in.Purchase)
	ds := make([]Delivery, len(in.Deliveries))
	for i := range in.Deliveries {
		ds[i] = c.delivery(&in.Deliveries[i])
	}
	if c.err != nil {
		return nil, nil, fmt.Errorf("session: copying the request: %w", c.err)
	}
	return p, ds, nil
}

// copier copies the request's types; the first value JSON cannot hold is
// its error.
type copier struct{ err error }

func (c *copier) purchase(p *Purchase) *Purchase {
	if p == nil {
		return nil
	}
	return &Purchase{
		CountryCode:   str(p.CountryCode),
		CurrencyCode:  str(p.CurrencyCode),
		TotalDiscount: p.TotalDiscount,
		TotalValue:    p.TotalValue,
		Vouchers:      strsOmitEmpty(p.Vouchers),
		Locales:       strsOmitEmpty(p.Locales),
	}
}

// delivery copies d's writable fields (see writable): the read-only ones
// stay zero.
func (c *copier) delivery(d *Delivery) Delivery {
	out := Delivery{
		ID:               str(d.ID),
		RecipientContact: c.contact(d.RecipientContact),
		Attributes:       strsOmitEmpty(d.Attributes),
	}
	if d.LineItems != nil { // line_items has no omitempty: [] stays []
		out.LineItems = make([]LineItem, len(d.LineItems))
		for i := range d.LineItems {
			out.LineItems[i] = lineItem(&d.LineItems[i])
		}
	}
	if d.Fulfillments != nil { // nor has fulfillments
		out.Fulfillments = make([]Fulfillment, len(d.Fulfillments))
		for i, f := range d.Fulfillments {
			out.Fulfillments[i] = Fulfillment{CategoryTags: strsOmitEmpty(f.CategoryTags)}
			if r := f.Readiness; r != nil {
				out.Fulfillments[i].Readiness = &Readiness{EarliestTime: c.timestamp(r.EarliestTime), LatestTime: c.timestamp(r.LatestTime)}
			}
		}
	}
	if len(d.Nodes) > 0 {
		out.Nodes = make([]DeliveryNode, len(d.Nodes))
		for i := range d.Nodes {
			out.Nodes[i] = c.node(&d.Nodes[i])
		}
	}
	return out
}

func lineItem(li *LineItem) LineItem {
	out := LineItem{
		SKU:        str(li.SKU),
		Title:      str(li.Title),
		Quantity:   li.Quantity,
		Discount:   li.Discount,
		Price:      li.Price,
		ImageURI:   str(li.ImageURI),
		Attributes: strsOmitEmpty(li.Attributes),
	}
	if li.Weight != nil {
		w := *li.Weight
		out.Weight = &w
	}
	if li.Dimensions != nil {
		d := *li.Dimensions
		out.Dimensions = &d
	}
	return out
}

func (c *copier) node(n *DeliveryNode) DeliveryNode {
	out := DeliveryNode{
		Location: c.location(n.Location),
		Tags:     strsOmitEmpty(n.Tags),
	}
	if h := n.Handoff; h != nil {
		out.Handoff = &Handoff{EarliestTime: c.timestamp(h.EarliestTime), LatestTime: c.timestamp(h.LatestTime)}
	}
	if len(n.Roles) > 0 {
		out.Roles = make([]Role, len(n.Roles))
		for i, r := range n.Roles {
			out.Roles[i] = Role(str(string(r)))
		}
	}
	return out
}

func (c *copier) location(l *PickupLocation) *PickupLocation {
	if l == nil {
		return nil
	}
	out := &PickupLocation{
		ID:              str(l.ID),
		ExternalID:      str(l.ExternalID),
		Title:           str(l.Title),
		LocationType:    LocationType(str(string(l.LocationType))),
		VisitingContact: c.contact(l.VisitingContact),
		DeliveryContact: c.contact(l.DeliveryContact),
	}
	if h := l.OperationalHours; h != nil {
		out.OperationalHours = &OperationalHours{
			Monday: strsOmitEmpty(h.Monday), Tuesday: strsOmitEmpty(h.Tuesday), Wednesday: strsOmitEmpty(h.Wednesday),
			Thursday: strsOmitEmpty(h.Thursday), Friday: strsOmitEmpty(h.Friday), Saturday: strsOmitEmpty(h.Saturday),
			Sunday: strsOmitEmpty(h.Sunday), FreeText: strsOmitEmpty(h.FreeText),
		}
	}
	if len(l.Sections) > 0 {
		out.Sections = make([]Section, len(l.Sections))
		for i, s := range l.Sections {
			out.Sections[i] = section(s)
		}
	}
	if d := l.Distances; d != nil {
		out.Distances = &Distances{}
		if d.Walking != nil {
			w := *d.Walking
			out.Distances.Walking = &w
		}
		if d.Driving != nil {
			dr := *d.Driving
			out.Distances.Driving = &dr
		}
	}
	return out
}

func section(s Section) Section {
	out := Section{Title: str(s.Title)}
	if s.Columns != nil { // columns and items have no omitempty
		out.Columns = make([]Column, len(s.Columns))
		for i, col := range s.Columns {
			if col.Items == nil {
				continue
			}
			items := make([]ColumnItem, len(col.Items))
			for j, it := range col.Items {
				items[j] = ColumnItem{IconURI: str(it.IconURI), Text: str(it.Text), LinkURI: str(it.LinkURI)}
			}
			out.Columns[i].Items = items
		}
	}
	return out
}

func (c *copier) contact(ct *Contact) *Contact {
	if ct == nil {
		return nil
	}
	out := &Contact{
		Name:    str(ct.Name),
		Address: c.address(ct.Address),
		Email:   str(ct.Email),
	}
	if p := ct.PhoneNumber; p != nil {
		out.PhoneNumber = &PhoneNumber{CountryCode: str(p.CountryCode), Number: str(p.Number), Extension: str(p.Extension)}
	}
	return out
}

func (c *copier) address(a *Address) *Address {
	if a == nil {
		return nil
	}
	out := &Address{
		CountryCode:  str(a.CountryCode),
		RegionCode:   str(a.RegionCode),
		PostalCode:   str(a.PostalCode),
		City:         str(a.City),
		AddressLines: strsOmitEmpty(a.AddressLines),
	}
	if p := a.Coordinates; p != nil {
		for _, f := range []float64{p.Lat, p.Lng} {
			if (math.IsNaN(f) || math.IsInf(f, 0)) && c.err == nil {
				c.err = fmt.Errorf("coordinates: %v is not a JSON number", f)
			}
		}
		out.Coordinates = &Coordinates{Lat: p.Lat, Lng: p.Lng}
	}
	return out
}

// timestamp is t as Timestamp's codec writes and reads it back in an omitzero
// field: zero when IsZero (whatever its zone), else in UTC, which also
// drops a monotonic reading. RFC 3339 has four-digit years: another year
// would be written but not read back.
func (c *copier) timestamp(t Timestamp) Timestamp {
	if t.IsZero() {
		return Timestamp{}
	}
	u := t.UTC()
	if y := u.Year(); (y < 0 || y > 9999) && c.err == nil {
		c.err = fmt.Errorf("date-time %s: the year is outside 0000–9999", u.Format("2006-01-02T15:04:05Z07:00"))
	}
	return Timestamp{u}
}

// strsOmitEmpty is a copy of an omitempty list of strings: nil when empty.
func strsOmitEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = str(v)
	}
	return out
}

// str is s as it comes back from JSON: each byte that is not part of valid
// UTF-8 is written as U+FFFD, as encoding/json writes it. A valid string,
// immutable, is shared.
func str(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return string(b)
}
