package validation

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The shared limits: the sizes of the string and list families every area
// uses alike. Struct tags refer to them by name ("max_id"), never by a
// copy of the number, so a limit changes in one place; New registers each
// name as a validator alias. An area names its own limits (how many
// parcels a shipment has) as Go constants and registers them with Max.
//
// Characters are counted, as the validator counts them, not bytes.
const (
	// MaxCodeLength bounds short codes and numbers people type: postal
	// codes, phone numbers, door, floor and street numbers, region codes,
	// short references. Tag: max_code.
	MaxCodeLength = 64
	// MaxIDLength bounds identifiers: ids, tracking numbers, product
	// refs, SKUs, site ids, voucher codes and tags. Tag: max_id.
	MaxIDLength = 128
	// MaxRefLength bounds the merchant's own external ids and order
	// references. Tag: max_ref.
	MaxRefLength = 256
	// MaxNameLength bounds the names of people, companies and places and
	// the parts of an address (lines, street, city). Tag: max_name.
	MaxNameLength = 256
	// MaxTitleLength bounds product names, titles and short descriptions.
	// Tag: max_title.
	MaxTitleLength = 500
	// MaxTextLength bounds free text: comments and instructions. Tag:
	// max_text.
	MaxTextLength = 2000
	// MaxEmailLength bounds e-mail addresses: 254, the longest a mail
	// server relays (RFC 5321), and short enough to stand in for a name
	// (MaxNameLength), as the tracking order of a delivery session does.
	// Tag: max_email.
	MaxEmailLength = 254
	// MaxLocaleLength bounds one locale or language tag ("sv-SE"). Tag:
	// max_locale.
	MaxLocaleLength = 35
	// MaxLocales bounds a list of locale preferences. Tag: max_locales.
	MaxLocales = 20
	// MaxAddressLines bounds the lines of an address. Tag:
	// max_address_lines.
	MaxAddressLines = 10
	// MaxURLLength bounds a URL; the httpsurl tag checks it.
	MaxURLLength = 2048
)

// shared are the aliases of the shared limits, registered on every
// Validator.
var shared = []Rule{
	Max("max_code", MaxCodeLength),
	Max("max_id", MaxIDLength),
	Max("max_ref", MaxRefLength),
	Max("max_name", MaxNameLength),
	Max("max_title", MaxTitleLength),
	Max("max_text", MaxTextLength),
	Max("max_email", MaxEmailLength),
	Max("max_locale", MaxLocaleLength),
	Max("max_locales", MaxLocales),
	Max("max_address_lines", MaxAddressLines),
}

// Max returns a Rule that names a maximum: tags may then write tag where
// they would write "max=n" (a string's length in characters, a list's or
// map's number of entries, a number's value). Violations report the rule
// "max" and the shared wording, exactly as "max=n" would.
func Max(tag string, n int) Rule {
	return Rule{Tag: tag, Alias: "max=" + strconv.Itoa(n)}
}

// aliases is every alias any Validator registered, for the tools that
// read tags without validating (the request-limit walker, the OpenAPI
// generator). A name means the same everywhere: registering it again with
// other tags panics.
var aliases = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

func registerAlias(tag, tags string) {
	aliases.Lock()
	defer aliases.Unlock()
	if old, ok := aliases.m[tag]; ok && old != tags {
		panic(fmt.Sprintf("validation: alias %q is %q elsewhere, not %q", tag, old, tags))
	}
	aliases.m[tag] = tags
}

// ExpandTag returns a validate tag with every registered alias replaced by
// the tags it stands for ("required,max_id" → "required,max=128"). Aliases
// are known once the package that registers them is initialised.
func ExpandTag(tag string) string {
	if tag == "" || tag == "-" {
		return tag
	}
	aliases.Lock()
	defer aliases.Unlock()
	return expand(tag, 0)
}

func expand(tag string, depth int) string {
	parts := strings.Split(tag, ",")
	for i, p := range parts {
		// An alias stands alone: no parameter, no alternatives.
		if a, ok := aliases.m[p]; ok && depth < 8 {
			parts[i] = expand(a, depth+1)
		}
	}
	return strings.Join(parts, ",")
}
