package checkout

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/go-playground/validator/v10"
)

// validate checks struct tags; field paths are JSON paths.
var validate = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}()

// check validates req and turns the violations into an InvalidArgument
// error naming the JSON fields.
func check(req any) error {
	err := validate.Struct(req)
	if err == nil {
		return nil
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		return fmt.Errorf("checkout: validating the request: %w", err)
	}
	vs := make([]deliverykit.FieldViolation, 0, len(ves))
	for _, fe := range ves {
		field := fe.Namespace()
		if _, rest, ok := strings.Cut(field, "."); ok {
			field = rest // drop the struct name
		}
		vs = append(vs, deliverykit.FieldViolation{Field: field, Rule: fe.Tag(), Message: message(fe)})
	}
	return deliverykit.Invalid(vs...)
}

func message(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "gte":
		if fe.Param() == "0" {
			return "must not be negative"
		}
		return "must be at least " + fe.Param()
	case "lte":
		return "must be at most " + fe.Param()
	case "iso4217":
		return fmt.Sprintf("%v is not an ISO 4217 currency code", fe.Value())
	case "iso3166_1_alpha2":
		return fmt.Sprintf("%v is not an ISO 3166-1 alpha-2 country code", fe.Value())
	case "email":
		return "is not an e-mail address"
	}
	return "breaks the rule " + fe.Tag()
}
