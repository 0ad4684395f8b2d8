package session

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout/options"
	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// validate checks struct tags with the module's shared validator: field
// names are the JSON names and messages are worded like every other area's.
var validate = validation.New()

// Limits on the size of a session, beyond the request body limit of the
// HTTP adapter: every delivery costs one run of the options engine.
const (
	MaxDeliveries = 50
)

// regionCode is an ISO 3166-2 subdivision code without the country prefix.
var regionCode = regexp.MustCompile(`^[A-Z0-9]{1,3}$`)

// nameForm is the resource name of a session.
var nameForm = regexp.MustCompile(`^sessions/[A-Za-z0-9_-]{1,128}$`)

// violations collects field problems of one request.
type violations []deliverykit.FieldViolation

func (vs *violations) add(field, rule, msg string) {
	*vs = append(*vs, deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg})
}

// structTags validates v's tags and records the problems under prefix
// ("deliveries[0]."). The error is non-nil only when v cannot be validated
// at all, a bug here rather than in the request.
func (vs *violations) structTags(prefix string, v any) error {
	got, err := validate.Violations(prefix, v)
	*vs = append(*vs, got...)
	return err
}

// err returns the violations as one InvalidArgument error, in the shared
// order (see internal/validation), or nil when there are none.
func (vs violations) err() error { return validation.Join(vs...) }

// checkSession validates the writable part of a create or patch request.
// Read-only fields are not looked at: they are ignored.
func checkSession(in *Session) error {
	var vs violations
	if in.Purchase == nil {
		vs.add("purchase", "required", "is required")
	} else {
		if err := vs.structTags("purchase.", in.Purchase); err != nil {
			return err
		}
		if _, err := options.ParseLocales("purchase.locales", in.Purchase.Locales); err != nil {
			vs = append(vs, deliverykit.ViolationsOf(err)...)
		}
	}
	switch {
	case len(in.Deliveries) == 0:
		vs.add("deliveries", "required", "is required")
	case len(in.Deliveries) > MaxDeliveries:
		vs.add("deliveries", "max", fmt.Sprintf("must have at most %d entries", MaxDeliveries))
	}
	seen := map[string]int{}
	for i := range in.Deliveries {
		d := &in.Deliveries[i]
		p := fmt.Sprintf("deliveries[%d].", i)
		if err := vs.structTags(p, d); err != nil {
			return err
		}
		if j, dup := seen[d.ID]; dup && d.ID != "" {
			vs.add(p+"id", "unique", fmt.Sprintf("%q is already the id of deliveries[%d]", d.ID, j))
		} else {
			seen[d.ID] = i
		}
		for j, f := range d.Fulfillments {
			if r := f.Readiness; r != nil && !r.LatestTime.IsZero() && r.LatestTime.Before(r.EarliestTime.Time) {
				vs.add(fmt.Sprintf("%sfulfillments[%d].readiness.latest_time", p, j), "gtefield", "must not be before earliest_time")
			}
		}
		if c := d.RecipientContact; c != nil && c.Address != nil {
			checkAddress(&vs, p+"recipient_contact.address.", c.Address)
		}
		checkWeight(&vs, p, d.LineItems)
		for j, n := range d.Nodes {
			if h := n.Handoff; h != nil && !h.LatestTime.IsZero() && h.LatestTime.Before(h.EarliestTime.Time) {
				vs.add(fmt.Sprintf("%snodes[%d].handoff.latest_time", p, j), "gtefield", "must not be before earliest_time")
			}
			if l := n.Location; l != nil {
				for _, c := range []struct {
					name string
					c    *Contact
				}{{"visiting_contact", l.VisitingContact}, {"delivery_contact", l.DeliveryContact}} {
					if c.c != nil && c.c.Address != nil {
						checkAddress(&vs, fmt.Sprintf("%snodes[%d].location.%s.address.", p, j, c.name), c.c.Address)
					}
				}
			}
		}
	}
	return vs.err()
}

// checkWeight refuses a delivery whose total weight, Σ quantity × weight
// over its line items, does not fit the int the options engine sums it
// in: a wrapped sum would make an enormous cart light enough for a
// mailbox. The line item whose weight takes the sum over is named.
// Non-positive quantities and weights are reported by the tags.
func checkWeight(vs *violations, prefix string, items []LineItem) {
	var total checked.Sum[int]
	for j, li := range items {
		if li.Weight == nil || *li.Weight <= 0 || li.Quantity <= 0 {
			continue
		}
		if total.AddProduct(int(li.Quantity), int(*li.Weight)); total.Overflowed() >= 0 {
			vs.add(fmt.Sprintf("%sline_items[%d].weight", prefix, j), checked.Rule,
				fmt.Sprintf("makes the delivery's total weight (quantity × weight over line_items) larger than %d g", math.MaxInt))
			return
		}
	}
}

// checkAddress adds the rules tags cannot say.
func checkAddress(vs *violations, prefix string, a *Address) {
	if a.RegionCode != "" && !regionCode.MatchString(a.RegionCode) {
		vs.add(prefix+"region_code", "iso3166_2", fmt.Sprintf("%q is not an ISO 3166-2 subdivision code without the country prefix (like AB)", a.RegionCode))
	}
}

// checkName validates a resource name and returns the session id.
func checkName(name string) (string, error) {
	if name == "" {
		return "", deliverykit.InvalidField("name", "required", "is required")
	}
	if !nameForm.MatchString(name) {
		return "", deliverykit.InvalidField("name", "pattern", fmt.Sprintf("%q is not a session name like sessions/{session_id}", name))
	}
	return strings.TrimPrefix(name, "sessions/"), nil
}

// checkChoices validates the shape of a completion; the choices are
// matched against the session later.
func checkChoices(req *CompleteRequest) error {
	var vs violations
	if len(req.DeliveryChoices) == 0 {
		vs.add("delivery_choices", "required", "is required")
		return vs.err()
	}
	if err := vs.structTags("", req); err != nil {
		return err
	}
	return vs.err()
}
