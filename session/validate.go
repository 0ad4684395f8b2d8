package session

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout/options"
	"github.com/go-playground/validator/v10"
)

// validate checks struct tags; field names are the JSON names.
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
// ("deliveries[0].").
func (vs *violations) structTags(prefix string, v any) {
	err := validate.Struct(v)
	if err == nil {
		return
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		vs.add(strings.TrimSuffix(prefix, "."), "invalid", err.Error())
		return
	}
	for _, fe := range ves {
		field := fe.Namespace()
		if _, rest, ok := strings.Cut(field, "."); ok {
			field = rest // drop the Go struct name
		}
		vs.add(prefix+field, fe.Tag(), message(fe))
	}
}

func (vs violations) err() error {
	if len(vs) == 0 {
		return nil
	}
	return deliverykit.Invalid(vs...)
}

func message(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "gt":
		if fe.Param() == "0" {
			return "must be greater than 0"
		}
		return "must be greater than " + fe.Param()
	case "gte":
		if fe.Param() == "0" {
			return "must not be negative"
		}
		return "must be at least " + fe.Param()
	case "lte":
		return "must be at most " + fe.Param()
	case "max":
		if k := fe.Kind(); k == reflect.Slice || k == reflect.Map {
			return "must have at most " + fe.Param() + " entries"
		}
		return "must be at most " + fe.Param() + " characters long"
	case "oneof":
		return fmt.Sprintf("%v is not one of %s", fe.Value(), fe.Param())
	case "iso4217":
		return fmt.Sprintf("%v is not an ISO 4217 currency code", fe.Value())
	case "iso3166_1_alpha2":
		return fmt.Sprintf("%v is not an ISO 3166-1 alpha-2 country code", fe.Value())
	case "email":
		return "is not an e-mail address"
	}
	return "breaks the rule " + fe.Tag()
}

// checkSession validates the writable part of a create or patch request.
// Read-only fields are not looked at: they are ignored.
func checkSession(in *Session) error {
	var vs violations
	if in.Purchase == nil {
		vs.add("purchase", "required", "is required")
	} else {
		vs.structTags("purchase.", in.Purchase)
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
		vs.structTags(p, d)
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
	vs.structTags("", req)
	return vs.err()
}
