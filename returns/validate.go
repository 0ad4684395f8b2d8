package returns

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/deliverykit/deliverykit"
)

// validate checks the struct tags of inputs. Field names in its errors are
// the JSON names, so violations read "items[2].quantity".
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

// checkStruct validates s and turns validator errors into an
// InvalidArgument listing every violation with its JSON path.
func checkStruct(s any) error {
	err := validate.Struct(s)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return deliverykit.Errorf(deliverykit.KindInternal, "returns: validating input: %w", err)
	}
	vs := make([]deliverykit.FieldViolation, 0, len(verrs))
	for _, fe := range verrs {
		// Namespace is "OrderInput.items[0].sku"; drop the type name.
		path := fe.Namespace()
		if _, rest, ok := strings.Cut(path, "."); ok {
			path = rest
		}
		vs = append(vs, deliverykit.FieldViolation{Field: path, Rule: fe.Tag(), Message: ruleMessage(fe)})
	}
	return deliverykit.Invalid(vs...)
}

func ruleMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "email":
		return "must be an e-mail address"
	case "min":
		if fe.Kind() == reflect.Slice {
			return "must have at least " + fe.Param() + " entries"
		}
		return "must be at least " + fe.Param() + " characters"
	case "max":
		if fe.Kind() == reflect.Slice {
			return "must have at most " + fe.Param() + " entries"
		}
		return "must be at most " + fe.Param() + " characters"
	case "gte":
		return "must be at least " + fe.Param()
	case "lte":
		return "must be at most " + fe.Param()
	}
	return "breaks the rule " + strconv.Quote(fe.Tag())
}
