package shipment

import (
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// validate checks struct tags with JSON field names, so that a violation's
// Field is the path the client sent ("parcels[0].deliveries[1].pickup.id").
var validate = validation.New(
	validation.Max("max_parcels", MaxParcels),
	validation.Max("max_parcel_deliveries", MaxParcelDeliveries),
	validation.Max("max_parcel_items", MaxParcelLineItems),
	validation.Max("max_shipment_attributes", MaxAttributes),
	validation.Max("max_delivery_meta", MaxDeliveryMeta),
	validation.Max("max_shipment_reference", MaxReferenceLength),
	validation.Max("max_instructions", MaxInstructionsLength),
	validation.Max("max_customs_items", MaxCustomsItems),
	validation.Max("max_items", MaxItems),
	// Numbers: lte, which the OpenAPI document shows as a maximum.
	validation.Rule{Tag: "max_packed_units", Alias: "lte=" + strconv.Itoa(MaxPackedUnits)},
	validation.Rule{Tag: "max_item_dimension", Alias: "lte=" + strconv.Itoa(MaxItemDimension)},
)

// check validates v's tags and returns an InvalidArgument error listing
// every violation, plus extra (rules checked in code), sorted by field.
func check(v any, extra validation.Violations) error {
	return validate.Check(v, extra...)
}

// checkSite applies the module's site rule to a request's site_id, worded
// for a service's callers. A service called with no site is refused: its
// records would be reachable by no key.
var checkSite = validation.SiteRule{
	Field:     "site_id",
	Message:   "site_id is not the caller's site",
	Violation: "is not the site of the API key",
	Required:  true,
}.Check

// window parses a DateTimeRangeStrict already checked by the tags; it adds
// a violation under field when the window ends before it starts.
func window(field string, r *DateTimeRangeStrict) (TimeSpan, validation.Violations) {
	s, err1 := time.Parse(time.RFC3339Nano, r.Start)
	e, err2 := time.Parse(time.RFC3339Nano, r.End)
	if err1 != nil || err2 != nil {
		return TimeSpan{}, nil // reported by the tags
	}
	if !e.After(s) {
		var vs validation.Violations
		vs.Add(field+".end", "gtfield", "must be after start")
		return TimeSpan{}, vs
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
		Violations: []deliverykit.FieldViolation{{Field: field, Rule: "exists", Message: "names no " + what + " of the site"}}}
}

// wrongState is the FailedPrecondition of an operation refused in a state.
func wrongState(what, id string, state any, op string) error {
	return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "%s %s is %s: %s is not allowed", what, id, state, op)
}
