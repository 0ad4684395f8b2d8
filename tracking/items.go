package tracking

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/storage"
)

// Item details from the parcels. A parcel line item's properties (its
// variant, as the merchant registered it) describe the cart item with the
// same SKU: they are the item's attributes; "color" (or "colour") and
// "size" are its variant; and each property is a display attribute, its
// label in the page's language for the keys the message catalog knows
// (color, size, material) and the key itself for the others.

// attributeLabels are the property keys with a label of their own, by the
// message catalog key of the label.
var attributeLabels = map[string]string{
	"color": "tracking.attribute.color", "colour": "tracking.attribute.color",
	"size": "tracking.attribute.size", "material": "tracking.attribute.material",
}

// itemProperties maps each SKU to the properties of the first parcel line
// item with that SKU that has any.
func itemProperties(ps []storage.Item[parcelRecord]) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, p := range ps {
		for _, li := range p.Value.Request.LineItems {
			if _, ok := out[li.SKU]; !ok && len(li.Properties) > 0 {
				out[li.SKU] = li.Properties
			}
		}
	}
	return out
}

// describe sets an item's attributes, variant and display attributes from
// its properties, labels in the language of tag.
func describe(it *Item, props map[string]string, tag language.Tag) {
	if len(props) == 0 {
		return
	}
	it.Attributes = maps.Clone(props)
	var v Variant
	for _, k := range slices.Sorted(maps.Keys(props)) {
		val := props[k]
		switch strings.ToLower(k) {
		case "color", "colour":
			v.Color = cmp.Or(v.Color, val)
		case "size":
			v.Size = cmp.Or(v.Size, val)
		}
		label := k
		if key, ok := attributeLabels[strings.ToLower(k)]; ok {
			label = i18n.Text(tag, key)
		}
		it.DisplayAttributes = append(it.DisplayAttributes, DisplayAttr{Key: k, Label: label, Value: val})
	}
	if v != (Variant{}) {
		it.Variant = &v
	}
}

// cancel applies the order's cancelled quantities to its cart items: an
// item's quantity and total_price become the non-cancelled ones and
// cancelled_quantity and cancelled_total_price the rest. A SKU's
// cancellation is spread over its items in cart order.
func cancelItems(items []Item, cancelled []CancelledLine) {
	left := map[string]int32{}
	for _, c := range cancelled {
		left[c.SKU] += c.CancelledQuantity
	}
	for i := range items {
		it := &items[i]
		n := min(left[it.SKU], it.Quantity)
		if n <= 0 {
			continue
		}
		left[it.SKU] -= n
		it.Quantity -= n
		it.CancelledQuantity = n
		// Both products are at most the registered price × quantity,
		// which registration checked fits.
		it.TotalPrice, _ = checked.Mul(it.Price, it.Quantity)
		it.CancelledTotalPrice, _ = checked.Mul(it.Price, n)
	}
}

// CancelledLine is how many items of a SKU the merchant cancelled.
type CancelledLine struct {
	SKU string `json:"sku" validate:"required,max_id"`
	// CancelledQuantity is the number of items of the SKU cancelled so
	// far (not an increment: sending the same line again changes
	// nothing); 0 takes a cancellation back.
	CancelledQuantity int32 `json:"cancelled_quantity" validate:"gte=0"`
}

// CancelOrderLinesRequest (POST /order.lines_cancelled, an extension)
// records which items of an order the merchant cancelled: the customer
// page and GET /orders show them as cancelled_quantity and
// cancelled_total_price, and quantity and total_price as what is still
// coming.
type CancelOrderLinesRequest struct {
	SiteID string `json:"site_id" validate:"max_id"`
	// OrderID is the tos_id or the external_id.
	OrderID string          `json:"order_id" validate:"required,max_ref"`
	Lines   []CancelledLine `json:"lines" validate:"required,max_cart_items,dive"`
}

// CancelOrderLines records the cancelled quantities of the order's SKUs
// (see CancelOrderLinesRequest). A line names a SKU of the order's cart
// and at most its quantity; a SKU not listed keeps its earlier
// cancellation. Sending the same lines again changes nothing.
func (s *Service) CancelOrderLines(ctx context.Context, site string, req CancelOrderLinesRequest) error {
	if err := checkSite(site, &req.SiteID); err != nil {
		return err
	}
	if err := check(&req, nil); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		it, err := getOrder(tx, site, req.OrderID)
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, deliverykit.ErrNotFound) {
			return notFoundField("tracking order", "order_id", "names no tracking order of the site")
		}
		if err != nil {
			return err
		}
		o := it.Value
		qty := map[string]int32{}
		if c := o.Request.Cart; c != nil {
			for _, ci := range c.Items {
				qty[ci.SKU] += ci.Quantity
			}
		}
		var vs []deliverykit.FieldViolation
		next := slices.Clone(o.Cancelled)
		for i, l := range req.Lines {
			total, ok := qty[l.SKU]
			switch {
			case !ok:
				vs = append(vs, violation(fmt.Sprintf("lines[%d].sku", i), "exists", "is not a SKU of the order's cart"))
				continue
			case l.CancelledQuantity > total:
				vs = append(vs, violation(fmt.Sprintf("lines[%d].cancelled_quantity", i), "lte", fmt.Sprintf("must be at most the %d items of the SKU in the cart", total)))
				continue
			}
			next = slices.DeleteFunc(next, func(c CancelledLine) bool { return c.SKU == l.SKU })
			if l.CancelledQuantity > 0 {
				next = append(next, l)
			}
		}
		if len(vs) > 0 {
			return deliverykit.Invalid(vs...)
		}
		slices.SortFunc(next, func(a, b CancelledLine) int { return strings.Compare(a.SKU, b.SKU) })
		if slices.Equal(next, o.Cancelled) {
			return nil
		}
		o.Cancelled = next
		_, err = orders.Put(tx, it.Key, o, storage.VersionIs(it.Version))
		return err
	})
}
