package returns

import "github.com/deliverykit/deliverykit/internal/validation"

// validate checks the struct tags of inputs with the module's shared
// validator, so violations read "items[2].quantity" and are worded like
// every other area's.
var validate = validation.New()

// checkStruct validates s and returns an InvalidArgument listing every
// violation with its JSON path.
func checkStruct(s any) error { return validate.Check(s) }
