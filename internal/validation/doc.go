// Package validation is the one place where deliverykit turns struct tags
// into field violations. Every area validates its requests with
// go-playground/validator/v10 tags through this package, so every area
// words a rule the same way ("must be an e-mail address") and a client
// that talks to several areas reads one vocabulary.
//
// # What a Validator does
//
// New builds a validator with required-struct checking enabled and with
// JSON field names, so a violation's Field is the path a client sent
// ("deliveries[0].line_items[2].weight"), not a Go name. An area registers
// the tags only it needs (tracking's "hhmmss", "step", "alert", "exception") as Rules,
// each with the sentence its violations carry.
//
// Check validates a request and returns nil or one deliverykit.Invalid
// error with every tag violation and every violation the area found in
// code (cross-field rules), so a client learns about all its mistakes at
// once. Violations and Join let an area that validates a request piece by
// piece (the delivery session validates each delivery under its own
// prefix) assemble the same result.
//
// Rules an area checks in code go into a Violations collection (Add,
// Addf), with the tags of parts validated one by one (Tags); its Err is
// the error Check would give for them. It is the one collector of the
// module: areas do not keep their own.
//
// A request may name its site (site_id), which its caller's site must
// match; SiteRule is that one rule, worded by each area for its callers.
//
// # Violations
//
// Field is the JSON path without the Go struct name, Rule is the
// validator tag ("required", "gte", "iso4217"), and Message a sentence
// about the field, worded from one table:
//
//	tag                    message
//	required (and kin)     is required
//	gt / gte / lt / lte    must be greater than 5 / must be at least 5 (gte=0: must not be negative) /
//	                       must be less than 5 / must be at most 5
//	min / max / len        numbers as gte / lte; strings "must be at least 3 characters long";
//	                       slices and maps "must have at most 10 entries"
//	oneof                  must be one of A, B, C
//	email, url             must be an e-mail address, must be a URL
//	httpsurl               must be an absolute https URL with a host, at most 2048 characters long
//	jsonsize=N             must take at most N bytes as JSON
//	iso4217                must be an ISO 4217 currency code
//	iso3166_1_alpha2       must be an ISO 3166-1 alpha-2 country code
//	datetime               must be an RFC 3339 timestamp (for the RFC 3339 layouts)
//	anything else          breaks the rule "tag"
//
// Messages never repeat the offending value: it may be personal data (an
// e-mail address, a phone number), error bodies end up in logs, and the
// client already has the value.
//
// # Order
//
// Violations are sorted by Field, array indices compared as numbers
// (items[2] before items[10]); violations of one field keep the order in
// which they were found, tags first. Sorting rather than keeping the
// validator's order means:
//
//   - the order does not depend on how a rule is implemented: moving a rule
//     from code to a tag, or back, does not reorder what clients see;
//   - all problems of one field, and of one array element, sit together, also
//     when an area validates a request in pieces and joins the results;
//   - the order is the same for any two requests with the same mistakes,
//     which keeps golden files and client tests stable.
//
// # Limits
//
// Every string, list and map a client sends has a maximum, written in its
// struct tag by name: the shared families (max_code 64, max_id 128,
// max_ref and max_name 256, max_title 500, max_text 2000, max_email 254,
// max_locale 35, max_locales 20, max_address_lines 10; limits.go) and the
// area's own (Max("max_parcels", MaxParcels)), both registered as
// validator aliases, so that a number is written once, as a Go constant.
// Violations report the rule "max" and its usual sentence. A list's
// maximum comes before its dive ("max_parcels,dive"): the validator then
// refuses an over-long list with one violation without looking at its
// entries. Unbounded finds fields without a maximum; a test runs it over
// every area's request types.
//
// URLs a client gives for customers to see (images, links) carry
// httpsurl: absolute https with a host, no user information, at most
// MaxURLLength characters. Free-form values carry jsonsize=N.
//
// # The cap on violations
//
// Check and Join list at most MaxViolations violations, the first in the
// package's order, and then one entry with an empty Field and the Rule
// "truncated" whose Message counts the rest ("and 12345 more
// violations"); fields and messages are clipped to a few hundred bytes.
// An error body is a few KiB whatever the request. The HTTP adapter
// applies the same Cap to every error it writes.
//
// # Errors that are not violations
//
// A value the validator cannot validate at all (nil, not a struct) is a
// programming error in the calling area, not the client's: Check returns
// it as deliverykit.KindInternal, which adapters never show on the wire.
package validation
