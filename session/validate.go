package session

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/options"
)

// validate checks struct tags with the module's shared validator: field
// names are the JSON names and messages are worded like every other area's.
var validate = validation.New(
	validation.Max("max_deliveries", MaxDeliveries),
	validation.Max("max_line_items", MaxLineItems),
	validation.Max("max_fulfillments", MaxFulfillments),
	validation.Max("max_nodes", MaxNodes),
	validation.Max("max_attributes", MaxAttributes),
	validation.Max("max_category_tags", MaxCategoryTags),
	validation.Max("max_node_tags", MaxNodeTags),
	validation.Max("max_roles", MaxRoles),
	validation.Max("max_vouchers", MaxVouchers),
	validation.Max("max_addons", MaxAddons),
	validation.Max("max_sections", MaxSections),
	validation.Max("max_columns", MaxColumns),
	validation.Max("max_column_items", MaxColumnItems),
	validation.Max("max_day_ranges", MaxDayRanges),
	validation.Max("max_free_text", MaxFreeText),
	validation.Max("max_phone_country_code", MaxPhoneCountryCodeLength),
	validation.Max("max_phone_number", MaxPhoneNumberLength),
)

// Limits on the size of a session, beyond the request body limit of the
// HTTP adapter and the shared limits of strings (see internal/validation).
// Each is named once here and referred to by name in the struct tags; a
// list over its limit is refused with one violation, before any of its
// entries is looked at.
const (
	// MaxDeliveries bounds the deliveries of a session, and the choices
	// of a completion: every delivery costs one run of the options
	// engine.
	MaxDeliveries = 50
	// MaxLineItems bounds the lines of one delivery. A completed
	// delivery becomes a tracking order's cart and a returnable order,
	// which take 500 lines each.
	MaxLineItems = 500
	// MaxFulfillments bounds the fulfillments of one delivery.
	MaxFulfillments = 100
	// MaxNodes bounds the nodes of one delivery.
	MaxNodes = 100
	// MaxAttributes bounds the attributes of a delivery or a line.
	MaxAttributes = 100
	// MaxCategoryTags bounds the category tags of a fulfillment.
	MaxCategoryTags = 100
	// MaxNodeTags bounds the tags of a node.
	MaxNodeTags = 100
	// MaxRoles bounds the roles of a node.
	MaxRoles = 10
	// MaxVouchers bounds the vouchers of a purchase.
	MaxVouchers = 100
	// MaxAddons bounds the addons chosen for one delivery.
	MaxAddons = 20
	// MaxSections bounds the sections of a pickup location.
	MaxSections = 20
	// MaxColumns bounds the columns of a section.
	MaxColumns = 10
	// MaxColumnItems bounds the items of a column.
	MaxColumnItems = 50
	// MaxDayRanges bounds the opening ranges of one weekday.
	MaxDayRanges = 10
	// MaxFreeText bounds the free-text lines of opening hours.
	MaxFreeText = 10
	// MaxPhoneCountryCodeLength and MaxPhoneNumberLength bound the parts
	// of a phone number (E.164 numbers have at most 15 digits; the rest
	// is room for spaces and dashes). Joined, they fit a tracking order's
	// phone number (validation.MaxCodeLength).
	MaxPhoneCountryCodeLength = 8
	MaxPhoneNumberLength      = 32
)

// regionCode is an ISO 3166-2 subdivision code without the country prefix.
var regionCode = regexp.MustCompile(`^[A-Z0-9]{1,3}$`)

// nameForm is the resource name of a session.
var nameForm = regexp.MustCompile(`^sessions/[A-Za-z0-9_-]{1,128}$`)

// checkSession validates the writable part of a create or patch request.
// Read-only fields are not looked at: they are ignored. The rules in code
// run only on lists within their limits, so a huge list costs one
// violation.
func checkSession(in *Session) error {
	var vs validation.Violations
	if err := vs.Tags(validate, "", in); err != nil {
		return err
	}
	if p := in.Purchase; p != nil && len(p.Locales) <= validation.MaxLocales && allShort(p.Locales, validation.MaxLocaleLength) {
		if _, err := options.ParseLocales("purchase.locales", p.Locales); err != nil {
			vs = append(vs, deliverykit.ViolationsOf(err)...)
		}
	}
	if len(in.Deliveries) == 0 {
		vs.Add("deliveries", "required", "is required")
	}
	if len(in.Deliveries) > MaxDeliveries {
		return vs.Err() // the tags reported it
	}
	seen := map[string]int{}
	for i := range in.Deliveries {
		d := &in.Deliveries[i]
		p := fmt.Sprintf("deliveries[%d].", i)
		if j, dup := seen[d.ID]; dup && d.ID != "" {
			vs.Add(p+"id", "unique", fmt.Sprintf("is already the id of deliveries[%d]", j))
		} else {
			seen[d.ID] = i
		}
		if len(d.Fulfillments) <= MaxFulfillments {
			for j, f := range d.Fulfillments {
				if r := f.Readiness; r != nil && !r.LatestTime.IsZero() && r.LatestTime.Before(r.EarliestTime.Time) {
					vs.Add(fmt.Sprintf("%sfulfillments[%d].readiness.latest_time", p, j), "gtefield", "must not be before earliest_time")
				}
			}
		}
		if c := d.RecipientContact; c != nil && c.Address != nil {
			checkAddress(&vs, p+"recipient_contact.address.", c.Address)
		}
		if len(d.LineItems) <= MaxLineItems {
			checkWeight(&vs, p, d.LineItems)
		}
		if len(d.Nodes) > MaxNodes {
			continue
		}
		for j, n := range d.Nodes {
			if h := n.Handoff; h != nil && !h.LatestTime.IsZero() && h.LatestTime.Before(h.EarliestTime.Time) {
				vs.Add(fmt.Sprintf("%snodes[%d].handoff.latest_time", p, j), "gtefield", "must not be before earliest_time")
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
	return vs.Err()
}

// allShort reports whether every string of ss has at most n characters,
// as the tags count them.
func allShort(ss []string, n int) bool {
	for _, s := range ss {
		if utf8.RuneCountInString(s) > n {
			return false
		}
	}
	return true
}

// checkWeight refuses a delivery whose total weight, Σ quantity × weight
// over its line items, does not fit the int the options engine sums it
// in: a wrapped sum would make an enormous cart light enough for a
// mailbox. The line item whose weight takes the sum over is named.
// Non-positive quantities and weights are reported by the tags.
func checkWeight(vs *validation.Violations, prefix string, items []LineItem) {
	var total checked.Sum[int]
	for j, li := range items {
		if li.Weight == nil || *li.Weight <= 0 || li.Quantity <= 0 {
			continue
		}
		if total.AddProduct(int(li.Quantity), int(*li.Weight)); total.Overflowed() >= 0 {
			vs.Add(fmt.Sprintf("%sline_items[%d].weight", prefix, j), checked.Rule,
				fmt.Sprintf("makes the delivery's total weight (quantity × weight over line_items) larger than %d g", math.MaxInt))
			return
		}
	}
}

// checkAddress adds the rules tags cannot say.
func checkAddress(vs *validation.Violations, prefix string, a *Address) {
	if a.RegionCode != "" && len(a.RegionCode) <= validation.MaxCodeLength && !regionCode.MatchString(a.RegionCode) {
		vs.Add(prefix+"region_code", "iso3166_2", "must be an ISO 3166-2 subdivision code without the country prefix (like AB)")
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
	var vs validation.Violations
	if len(req.DeliveryChoices) == 0 {
		vs.Add("delivery_choices", "required", "is required")
		return vs.Err()
	}
	if err := vs.Tags(validate, "", req); err != nil {
		return err
	}
	return vs.Err()
}
