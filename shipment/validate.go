package shipment

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/go-playground/validator/v10"
)

// validate checks struct tags with JSON field names, so that a violation's
// Field is the path the client sent ("parcels[0].deliveries[1].pickup.id").
var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// check validates v's tags and returns an InvalidArgument error listing
// every violation, plus extra (rules checked in code), sorted by field.
func check(v any, extra []deliverykit.FieldViolation) error {
	var vs []deliverykit.FieldViolation
	if err := validate.Struct(v); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			return deliverykit.Errorf(deliverykit.KindInternal, "validating %T: %w", v, err)
		}
		for _, fe := range verrs {
			vs = append(vs, violation(fieldPath(fe), fe.Tag(), ruleMessage(fe)))
		}
	}
	vs = append(vs, extra...)
	if len(vs) == 0 {
		return nil
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Field < vs[j].Field })
	return deliverykit.Invalid(vs...)
}

// fieldPath drops the struct name the validator puts first.
func fieldPath(fe validator.FieldError) string {
	ns := fe.Namespace()
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return ns
}

func ruleMessage(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "iso3166_1_alpha2":
		return "must be an ISO 3166-1 alpha-2 country code (two upper-case letters)"
	case "iso4217":
		return "must be an ISO 4217 currency code (three upper-case letters)"
	case "datetime":
		return "must be an RFC 3339 timestamp"
	case "oneof":
		return "must be one of " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "email":
		return "must be an e-mail address"
	case "gt":
		return "must be greater than " + fe.Param()
	case "gte":
		return "must be at least " + fe.Param()
	case "lte":
		return "must be at most " + fe.Param()
	case "min":
		if fe.Kind() == reflect.Slice {
			return "must have at least " + fe.Param() + " element(s)"
		}
		return "must be at least " + fe.Param() + " characters long"
	case "max":
		if fe.Kind() == reflect.Slice {
			return "must have at most " + fe.Param() + " elements"
		}
		return "must be at most " + fe.Param() + " characters long"
	}
	return fmt.Sprintf("breaks the rule %q", fe.Tag())
}

func violation(field, rule, msg string) deliverykit.FieldViolation {
	return deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg}
}

// window parses a DateTimeRangeStrict already checked by the tags; it adds
// a violation under field when the window ends before it starts.
func window(field string, r *DateTimeRangeStrict) (TimeSpan, []deliverykit.FieldViolation) {
	s, err1 := time.Parse(time.RFC3339Nano, r.Start)
	e, err2 := time.Parse(time.RFC3339Nano, r.End)
	if err1 != nil || err2 != nil {
		return TimeSpan{}, nil // reported by the tags
	}
	if !e.After(s) {
		return TimeSpan{}, []deliverykit.FieldViolation{violation(field+".end", "gtfield", "must be after start")}
	}
	return TimeSpan{Start: s.UTC(), End: e.UTC()}, nil
}

// exactlyOne reports a violation unless exactly one of the named values is
// set. fields and values pair up.
func exactlyOne(fields []string, values ...string) error {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	if n == 1 {
		return nil
	}
	return deliverykit.InvalidField(strings.Join(fields, "|"), "exactly_one", "give exactly one of "+strings.Join(fields, ", "))
}

// notFound is a NotFound error naming the field that pointed at nothing.
func notFound(what, field string) error {
	return &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: what + " not found",
		Violations: []deliverykit.FieldViolation{violation(field, "exists", "names no "+what+" of the site")}}
}

// wrongState is the FailedPrecondition of an operation refused in a state.
func wrongState(what, id string, state any, op string) error {
	return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "%s %s is %s: %s is not allowed", what, id, state, op)
}
