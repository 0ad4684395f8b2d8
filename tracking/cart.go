package tracking

import (
	"fmt"
	"math"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// shippingNames translates the name of the shipping price component.
var (
	shippingTags  = []language.Tag{language.English, language.Swedish, language.German}
	shippingNames = []string{"Shipping", "Frakt", "Versand"}
	cartMatcher   = language.NewMatcher(shippingTags)
)

func shippingName(tag language.Tag) string {
	_, i, _ := cartMatcher.Match(tag)
	return shippingNames[i]
}

// cartSums are the sums computeCart shows, each checked to fit the int32
// of the wire.
type cartSums struct {
	lines         []int32 // price × quantity of each item
	itemsPrice    int32
	itemsDiscount int32
	price         int32 // total + shipping_price
	// shippingDiscount is never negative and at most Discount, so it
	// always fits.
	shippingDiscount int32
}

// overflowMsg is the end of every overflow message.
var overflowMsg = fmt.Sprintf("must be at most %d minor units", math.MaxInt32)

// sumCart computes the cart's sums and reports, naming the field, every
// product or sum that does not fit the int32 the wire carries amounts in:
// a wrapped total would show the customer a negative price.
func sumCart(c *Cart) (cartSums, validation.Violations) {
	var vs validation.Violations
	s := cartSums{lines: make([]int32, len(c.Items))}
	var price, discount checked.Sum[int32]
	for i, it := range c.Items {
		line, ok := checked.Mul(it.Price, it.Quantity)
		if !ok {
			vs.Add(fmt.Sprintf("cart.items[%d].quantity", i), checked.Rule, "price × quantity "+overflowMsg)
		}
		d, dok := checked.Mul(it.Discount, it.Quantity)
		if !dok {
			vs.Add(fmt.Sprintf("cart.items[%d].discount", i), checked.Rule, "discount × quantity "+overflowMsg)
		}
		s.lines[i] = line
		price.Add(line)
		discount.Add(d)
	}
	var ok bool
	if s.itemsPrice, ok = price.Total(); !ok {
		vs.Addf("cart.items", checked.Rule, "the sum of price × quantity over the items %s (items[%d] takes it over)", overflowMsg, price.Overflowed())
	}
	if s.itemsDiscount, ok = discount.Total(); !ok {
		vs.Addf("cart.items", checked.Rule, "the sum of discount × quantity over the items %s (items[%d] takes it over)", overflowMsg, discount.Overflowed())
	}
	if s.price, ok = checked.Add(c.Total, c.ShippingPrice); !ok {
		vs.Add("cart.shipping_price", checked.Rule, "total + shipping_price "+overflowMsg)
	}
	// In int64 every difference of int32 values is exact; the result is
	// between 0 and Discount.
	orderDiscount := max(0, int64(s.itemsPrice)-int64(c.Total))
	s.shippingDiscount = int32(min(max(0, int64(c.Discount)-int64(s.itemsDiscount)-orderDiscount), int64(max(c.Discount, 0))))
	return s, vs
}

// computeCart derives PrivateOrderCart from the registered cart. Amounts
// are minor units; CartItem.price and discount are per item:
//
//	items_price       = Σ price × quantity          (after item discounts)
//	items_discount    = Σ discount × quantity
//	order discount    = max(0, items_price − total)  (discounts on the whole cart)
//	shipping_discount = max(0, discount − items_discount − order discount)
//	shipping_price    = cart.shipping_price          (after shipping discount)
//	discount          = cart.discount                (incl. shipping discount)
//	price             = total + shipping_price
//	tax               = cart.tax
//
// Registration refuses a cart whose products or sums do not fit in int32.
// An order registered before that check with such a cart is shown without
// prices (and without the total_price of an item whose product does not
// fit) rather than with wrapped ones.
func computeCart(c *Cart, tag language.Tag) *PrivateOrderCart {
	sums, bad := sumCart(c)
	out := &PrivateOrderCart{Currency: c.Currency}
	for i, it := range c.Items {
		out.Items = append(out.Items, Item{
			Discount: it.Discount, Image: it.Image, Name: it.Name, Price: it.Price,
			Quantity: it.Quantity, SKU: it.SKU, TotalPrice: sums.lines[i],
		})
	}
	if len(bad) > 0 {
		return out
	}
	out.Prices = &CartPrices{
		ShippingComponents: []ShippingComponent{{Name: shippingName(tag), Price: c.ShippingPrice, Discount: sums.shippingDiscount}},
		Total: &CartTotal{
			Discount:         c.Discount,
			ItemsDiscount:    sums.itemsDiscount,
			ItemsPrice:       sums.itemsPrice,
			Price:            sums.price,
			ShippingDiscount: sums.shippingDiscount,
			ShippingPrice:    c.ShippingPrice,
			Tax:              c.Tax,
		},
	}
	return out
}
