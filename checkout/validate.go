package checkout

import "github.com/deliverykit/deliverykit/internal/validation"

// validate checks struct tags with the module's shared validator: field
// paths are JSON paths and messages come from one table for every area.
var validate = validation.New()

// check validates req and turns the violations into an InvalidArgument
// error naming the JSON fields.
func check(req any) error { return validate.Check(req) }
