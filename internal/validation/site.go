package validation

import "github.com/deliverykit/deliverykit"

// SiteRule is the one rule for the site a request names (its site_id):
// the caller's site is already known (the site of its API key, or the site
// a service is called with), so an empty site_id means that site and any
// other is refused, whatever the request asked for. The refusal is
// PermissionDenied with one violation of Field under the rule "site"; the
// areas word it for their callers (the HTTP adapter speaks of the API key,
// a service of its caller), so Message and Violation are the rule's.
type SiteRule struct {
	// Field is the JSON name of the field that names a site: "site_id".
	Field string
	// Message is the refusal's message, Violation the message of its one
	// violation.
	Message, Violation string
	// Required refuses an empty caller's site as InvalidArgument naming
	// Field: a service called in code with no site would write records
	// that no key can reach.
	Required bool
}

// Check returns nil when given, the site a request names, is empty or is
// site, the caller's; see SiteRule.
func (r SiteRule) Check(site, given string) error {
	if r.Required && site == "" {
		return deliverykit.InvalidField(r.Field, "required", "the caller's site is required")
	}
	if given != "" && given != site {
		return &deliverykit.Error{
			Kind:       deliverykit.KindPermissionDenied,
			Message:    r.Message,
			Violations: []deliverykit.FieldViolation{{Field: r.Field, Rule: "site", Message: r.Violation}},
		}
	}
	return nil
}

// Fill is Check for a request that is kept with its site: when it passes,
// an empty *given is set to site.
func (r SiteRule) Fill(site string, given *string) error {
	if err := r.Check(site, *given); err != nil {
		return err
	}
	if *given == "" {
		*given = site
	}
	return nil
}
