package returns

import (
	"strconv"

	"github.com/deliverykit/deliverykit/internal/validation"
)

// validate checks the struct tags of inputs with the module's shared
// validator, so violations read "items[2].quantity" and are worded like
// every other area's.
var validate = validation.New(
	validation.Max("max_lines", maxLines),
	validation.Rule{Tag: "max_quantity", Alias: "lte=" + strconv.Itoa(maxQuantity)},
	validation.Max("max_decimal", maxDecimalLength),
	validation.Max("max_properties", MaxVariantProperties),
)

// checkStruct validates s and returns an InvalidArgument listing every
// violation with its JSON path.
func checkStruct(s any) error { return validate.Check(s) }
