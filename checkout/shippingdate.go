package checkout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
)

// ShippingDate is when goods can leave the merchant: a cart's or an item's
// handling time, as commerce connectors send it. Start is the earliest
// moment the goods are ready to be handed to a carrier (typically 00:00 of
// the handling day) and End the latest (23:59:59.999 of that day).
// CategoryTags give other dates for the categories carrying a tag: for
// example a category tagged "express" ships from the warehouse that holds
// the item today while the others wait for a supplier.
//
// The options' promises start from the latest Start of the cart's and its
// items' dates (the goods ship together), and, for a category with a tag
// named here, from that tag's date when it is later. A date in the past
// means now.
//
// Older clients sent a single RFC 3339 timestamp; it is read as the Start
// (and End) of a date.
type ShippingDate struct {
	Start        *time.Time        `json:"start,omitempty"`
	End          *time.Time        `json:"end,omitempty"`
	CategoryTags []ShippingDateTag `json:"category_tags,omitempty" validate:"checkout_shipping_tags,dive"`
}

// ShippingDateTag is the shipping date of the categories tagged Name.
type ShippingDateTag struct {
	Name         string     `json:"name" validate:"required,max_code"`
	ShippingDate *DateRange `json:"shipping_date,omitempty"`
}

// DateRange is a start and an end, either of which may be absent.
type DateRange struct {
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

// UnmarshalJSON reads the object form, and the timestamp string older
// clients sent.
func (d *ShippingDate) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		var t time.Time
		if err := json.Unmarshal(b, &t); err != nil {
			return err
		}
		*d = ShippingDate{Start: &t, End: &t}
		return nil
	}
	type plain ShippingDate // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = ShippingDate(p)
	return nil
}

// checkShippingDate reports a date whose end is before its start, at
// field (a JSON path).
func checkShippingDate(field string, d *ShippingDate) error {
	if d == nil {
		return nil
	}
	if err := checkRange(field, d.Start, d.End); err != nil {
		return err
	}
	for i, t := range d.CategoryTags {
		if r := t.ShippingDate; r != nil {
			if err := checkRange(fmt.Sprintf("%s.category_tags[%d].shipping_date", field, i), r.Start, r.End); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkRange(field string, start, end *time.Time) error {
	if start != nil && end != nil && end.Before(*start) {
		return deliverykit.InvalidField(field+".end", "gtefield", "must not be before start")
	}
	return nil
}

// readiness is when a cart's goods can ship: the latest start of the
// cart's and its items' dates, and per category tag the latest start
// named for that tag. Zero and nil when nothing says.
func readiness(c *Cart) (time.Time, map[string]time.Time) {
	var ready time.Time
	var byTag map[string]time.Time
	add := func(d *ShippingDate) {
		if d == nil {
			return
		}
		if d.Start != nil && d.Start.After(ready) {
			ready = *d.Start
		}
		for _, t := range d.CategoryTags {
			if t.ShippingDate == nil || t.ShippingDate.Start == nil {
				continue
			}
			if byTag == nil {
				byTag = make(map[string]time.Time)
			}
			if s := *t.ShippingDate.Start; s.After(byTag[t.Name]) {
				byTag[t.Name] = s
			}
		}
	}
	add(c.ShippingDate)
	for i := range c.Items {
		add(c.Items[i].ShippingDate)
	}
	return ready, byTag
}

// clone copies d deeply: views hand out their own.
func (d *ShippingDate) clone() *ShippingDate {
	if d == nil {
		return nil
	}
	out := &ShippingDate{Start: clonePtr(d.Start), End: clonePtr(d.End)}
	if d.CategoryTags != nil {
		out.CategoryTags = make([]ShippingDateTag, len(d.CategoryTags))
		for i, t := range d.CategoryTags {
			out.CategoryTags[i] = ShippingDateTag{Name: t.Name}
			if r := t.ShippingDate; r != nil {
				out.CategoryTags[i].ShippingDate = &DateRange{Start: clonePtr(r.Start), End: clonePtr(r.End)}
			}
		}
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
