package validation_test

import (
	"fmt"
	"regexp"

	"github.com/go-playground/validator/v10"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
)

type Line struct {
	SKU      string `json:"sku" validate:"required"`
	Quantity int    `json:"quantity" validate:"gt=0"`
	Price    int64  `json:"price" validate:"gte=0"`
}

type Order struct {
	Currency string `json:"currency" validate:"required,iso4217"`
	Email    string `json:"email,omitempty" validate:"omitempty,email"`
	Slot     string `json:"slot" validate:"required,hhmm"`
	Lines    []Line `json:"lines" validate:"required,max=100,dive"`
}

var clock = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// An area builds one Validator with its own tags, then checks each request
// with the cross-field violations it found in code.
func Example() {
	validate := validation.New(validation.Rule{
		Tag:     "hhmm",
		Func:    func(fl validator.FieldLevel) bool { return clock.MatchString(fl.Field().String()) },
		Message: "must be a time of day HH:MM",
	})

	order := Order{Currency: "krona", Email: "anna", Slot: "9.30", Lines: []Line{
		{SKU: "A", Quantity: 12, Price: 100}, {Quantity: 0, Price: -5},
	}}
	// A rule across fields, checked in code: at most 10 items in all.
	var extra []deliverykit.FieldViolation
	total := 0
	for _, l := range order.Lines {
		total += l.Quantity
	}
	if total > 10 {
		extra = append(extra, deliverykit.FieldViolation{Field: "lines", Rule: "total", Message: "must hold at most 10 items in all"})
	}
	err := validate.Check(&order, extra...)
	fmt.Println(deliverykit.KindOf(err))
	for _, v := range deliverykit.ViolationsOf(err) {
		fmt.Printf("%s (%s): %s\n", v.Field, v.Rule, v.Message)
	}
	// Output:
	// invalid argument
	// currency (iso4217): must be an ISO 4217 currency code
	// email (email): must be an e-mail address
	// lines (total): must hold at most 10 items in all
	// lines[1].price (gte): must not be negative
	// lines[1].quantity (gt): must be greater than 0
	// lines[1].sku (required): is required
	// slot (hhmm): must be a time of day HH:MM
}

// Join assembles the violations of a request validated in pieces, each
// under its own prefix, in the same order Check uses.
func ExampleJoin() {
	validate := validation.New()
	var all []deliverykit.FieldViolation
	for i, l := range []Line{{SKU: "A", Quantity: 1}, {SKU: "B", Quantity: 0}} {
		vs, err := validate.Violations(fmt.Sprintf("lines[%d].", i), &l)
		if err != nil {
			panic(err) // only for values that are not structs
		}
		all = append(all, vs...)
	}
	all = append(all, deliverykit.FieldViolation{Field: "currency", Rule: "required", Message: "is required"})
	fmt.Println(validation.Join(all...))
	// Output:
	// invalid request: currency: is required; lines[1].quantity: must be greater than 0
}

// Violations collects what an area checks in code and the tags of the parts
// it validates one by one; Err reports them in Check's order.
func ExampleViolations() {
	validate := validation.New()
	var vs validation.Violations
	lines := []Line{{SKU: "A", Quantity: 1}, {SKU: "B", Quantity: 0}}
	for i, l := range lines {
		if err := vs.Tags(validate, fmt.Sprintf("lines[%d].", i), &l); err != nil {
			panic(err) // only for values that are not structs
		}
	}
	if len(lines) > 1 {
		vs.Addf("lines", "max", "must have at most %d entries for this carrier", 1)
	}
	fmt.Println(vs.Err())
	// Output:
	// invalid request: lines: must have at most 1 entries for this carrier; lines[1].quantity: must be greater than 0
}

// A SiteRule refuses a request that names another site than its caller's.
func ExampleSiteRule() {
	rule := validation.SiteRule{Field: "site_id", Message: "site_id is not the caller's site", Violation: "is not the caller's site"}
	fmt.Println(rule.Check("site-a", ""))
	err := rule.Check("site-a", "site-b")
	fmt.Println(deliverykit.KindOf(err), "-", deliverykit.ViolationsOf(err))
	// Output:
	// <nil>
	// permission denied - [site_id: is not the caller's site]
}
