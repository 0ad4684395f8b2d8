package tracking

import "golang.org/x/text/language"

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
func computeCart(c *Cart, tag language.Tag) *PrivateOrderCart {
	out := &PrivateOrderCart{Currency: c.Currency}
	var itemsPrice, itemsDiscount int32
	for _, it := range c.Items {
		total := it.Price * it.Quantity
		itemsPrice += total
		itemsDiscount += it.Discount * it.Quantity
		out.Items = append(out.Items, Item{
			Discount: it.Discount, Image: it.Image, Name: it.Name, Price: it.Price,
			Quantity: it.Quantity, SKU: it.SKU, TotalPrice: total,
		})
	}
	orderDiscount := max(0, itemsPrice-c.Total)
	shippingDiscount := max(0, c.Discount-itemsDiscount-orderDiscount)
	out.Prices = &CartPrices{
		ShippingComponents: []ShippingComponent{{Name: shippingName(tag), Price: c.ShippingPrice, Discount: shippingDiscount}},
		Total: &CartTotal{
			Discount:         c.Discount,
			ItemsDiscount:    itemsDiscount,
			ItemsPrice:       itemsPrice,
			Price:            c.Total + c.ShippingPrice,
			ShippingDiscount: shippingDiscount,
			ShippingPrice:    c.ShippingPrice,
			Tax:              c.Tax,
		},
	}
	return out
}
