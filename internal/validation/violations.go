package validation

import (
	"fmt"

	"github.com/deliverykit/deliverykit"
)

// Violations collects the field violations of one request or document:
// the rules an area checks in code (cross-field rules, sums, references
// into a catalog) and, through Tags, the struct tags of its parts. The
// zero value is an empty collection ready to use.
//
// Err turns the collection into the error clients see: sorted and capped
// like Check's. A list that must keep the order in which it was found (a
// configuration file's problems, reported in file order) is passed to
// deliverykit.Invalid as it is.
type Violations []deliverykit.FieldViolation

// Add records that field breaks rule; msg is the sentence about the field
// ("must be after start"), which never repeats the value sent.
func (vs *Violations) Add(field, rule, msg string) {
	*vs = append(*vs, deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg})
}

// Addf is Add with the message formatted by fmt.Sprintf.
func (vs *Violations) Addf(field, rule, format string, args ...any) {
	vs.Add(field, rule, fmt.Sprintf(format, args...))
}

// Tags adds the tag violations of s, checked by v, with prefix in front of
// every field ("deliveries[0]."; see Validator.Violations). The error is
// non-nil only when s cannot be validated at all, an internal error.
func (vs *Violations) Tags(v *Validator, prefix string, s any) error {
	got, err := v.Violations(prefix, s)
	*vs = append(*vs, got...)
	return err
}

// Err returns nil when there are no violations and otherwise one
// InvalidArgument error listing them in the package's order, capped (see
// Join). The collection itself is left as it is.
func (vs Violations) Err() error { return Join(vs...) }
