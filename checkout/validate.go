package checkout

import "github.com/deliverykit/deliverykit/internal/validation"

// The limits of checkout requests. Each is named once here; struct tags
// refer to it by its tag. Lines, names and e-mail addresses stay within
// what a completed session's tracking order and returnable order accept.
const (
	// MaxCartItems bounds cart.items. Tag: checkout_cart_items.
	MaxCartItems = 500
	// MaxVouchers bounds cart.vouchers. Tag: checkout_vouchers.
	MaxVouchers = 20
	// MaxAttributes bounds an item's attributes. Tag: checkout_attributes.
	MaxAttributes = 20
	// MaxAddons bounds the addons a widget choice names. Tag: checkout_addons.
	MaxAddons = 10
	// MaxMetaEntries bounds meta; keys are at most max_code long and
	// values max_ref. Tag: checkout_meta.
	MaxMetaEntries = 32
	// MaxQuantity bounds an item's quantity. Tag: checkout_quantity.
	MaxQuantity = 100_000
	// MaxAmount bounds a price or discount in minor units. Tag: checkout_amount.
	MaxAmount = 100_000_000_000
	// MaxWeight bounds an item's weight in grams. Tag: checkout_weight.
	MaxWeight = 1_000_000
	// MaxShortLength bounds short fields: postal codes, phone numbers,
	// house and door numbers. Tag: checkout_short.
	MaxShortLength = 32
	// MaxDimension bounds an item's side in millimetres. Tag: checkout_dimension.
	MaxDimension = 100_000
	// MaxShippingDateTags bounds a shipping date's category_tags. Tag:
	// checkout_shipping_tags.
	MaxShippingDateTags = 20
)

// validate checks struct tags with the module's shared validator: field
// paths are JSON paths and messages come from one table for every area.
var validate = validation.New(append([]validation.Rule{
	validation.Max("checkout_cart_items", MaxCartItems),
	validation.Max("checkout_vouchers", MaxVouchers),
	validation.Max("checkout_attributes", MaxAttributes),
	validation.Max("checkout_addons", MaxAddons),
	validation.Max("checkout_meta", MaxMetaEntries),
	validation.Max("checkout_quantity", MaxQuantity),
	validation.Max("checkout_amount", MaxAmount),
	validation.Max("checkout_weight", MaxWeight),
	validation.Max("checkout_dimension", MaxDimension),
	validation.Max("checkout_short", MaxShortLength),
	validation.Max("checkout_shipping_tags", MaxShippingDateTags),
}, snippetRules...)...)

// check validates req and turns the violations into an InvalidArgument
// error naming the JSON fields.
func check(req any) error { return validate.Check(req) }
