package catalog

import (
	"regexp"
	"slices"
	"strings"
)

// PostalFormat is how addresses of one country are written where a
// shopper types them: the form of a postal code, an example of one, and
// whether an address needs a region (state, province) to be delivered.
type PostalFormat struct {
	// Country is the ISO 3166-1 alpha-2 code.
	Country string `json:"country"`
	// Pattern matches a whole postal code as a shopper writes it (letters
	// in either case). It uses only syntax that Go's regexp and browsers'
	// RegExp read alike, so a form can check as it is filled in.
	Pattern string `json:"pattern"`
	// Example is a valid postal code, shown as a hint.
	Example string `json:"example"`
	// RegionRequired is set for countries whose addresses need a region.
	RegionRequired bool `json:"region_required,omitempty"`
}

// postalFormats is a small table of the countries catalogs deliver to and
// their neighbours, from the postal operators' published formats. A
// country not listed gets genericPostal: letters, digits, spaces and
// hyphens, 2 to 12 of them.
var postalFormats = []PostalFormat{
	{Country: "AT", Pattern: `^\d{4}$`, Example: "1010"},
	{Country: "AU", Pattern: `^\d{4}$`, Example: "2000", RegionRequired: true},
	{Country: "BE", Pattern: `^\d{4}$`, Example: "1000"},
	{Country: "CA", Pattern: `^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$`, Example: "K1A 0B1", RegionRequired: true},
	{Country: "CH", Pattern: `^\d{4}$`, Example: "8001"},
	{Country: "DE", Pattern: `^\d{5}$`, Example: "10115"},
	{Country: "DK", Pattern: `^\d{4}$`, Example: "2100"},
	{Country: "EE", Pattern: `^\d{5}$`, Example: "10111"},
	{Country: "ES", Pattern: `^\d{5}$`, Example: "28001"},
	{Country: "FI", Pattern: `^\d{5}$`, Example: "00100"},
	{Country: "FR", Pattern: `^\d{5}$`, Example: "75001"},
	{Country: "GB", Pattern: `^[A-Za-z]{1,2}\d[A-Za-z\d]? ?\d[A-Za-z]{2}$`, Example: "SW1A 1AA"},
	{Country: "IE", Pattern: `^[A-Za-z]\d[\dWw] ?[A-Za-z\d]{4}$`, Example: "D02 X285"},
	{Country: "IS", Pattern: `^\d{3}$`, Example: "101"},
	{Country: "IT", Pattern: `^\d{5}$`, Example: "00184"},
	{Country: "LT", Pattern: `^(LT-)?\d{5}$`, Example: "01100"},
	{Country: "LV", Pattern: `^(LV-)?\d{4}$`, Example: "LV-1050"},
	{Country: "NL", Pattern: `^\d{4} ?[A-Za-z]{2}$`, Example: "1012 AB"},
	{Country: "NO", Pattern: `^\d{4}$`, Example: "0150"},
	{Country: "PL", Pattern: `^\d{2}-\d{3}$`, Example: "00-950"},
	{Country: "SE", Pattern: `^\d{3} ?\d{2}$`, Example: "111 57"},
	{Country: "US", Pattern: `^\d{5}(-\d{4})?$`, Example: "95014", RegionRequired: true},
}

// genericPostal is the format of a country the table does not list.
var genericPostal = PostalFormat{Pattern: `^[A-Za-z0-9][A-Za-z0-9 -]{1,11}$`, Example: ""}

// postalRegexps are the table's patterns, compiled once.
var postalRegexps = func() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{"": regexp.MustCompile(genericPostal.Pattern)}
	for _, f := range postalFormats {
		out[f.Country] = regexp.MustCompile(f.Pattern)
	}
	return out
}()

// PostalFormatOf returns the format of a country's addresses (ISO 3166-1
// alpha-2, either case); a country the table does not know gets a lenient
// format with no example.
func PostalFormatOf(country string) PostalFormat {
	country = strings.ToUpper(country)
	i := slices.IndexFunc(postalFormats, func(f PostalFormat) bool { return f.Country == country })
	if i < 0 {
		f := genericPostal
		f.Country = country
		return f
	}
	return postalFormats[i]
}

// ValidPostalCode reports whether code, trimmed, is a postal code of the
// country's format.
func ValidPostalCode(country, code string) bool {
	code = strings.TrimSpace(code)
	if len(code) > 16 {
		return false
	}
	re, ok := postalRegexps[strings.ToUpper(country)]
	if !ok {
		re = postalRegexps[""]
	}
	return re.MatchString(code)
}

// Countries lists the countries the catalog names as delivery
// destinations (its categories' filters), sorted. A category without a
// country filter delivers anywhere and adds none.
func (c *Catalog) Countries() []string {
	var out []string
	for _, cat := range c.Categories {
		for _, cc := range cat.Filter.Countries {
			cc = strings.ToUpper(cc)
			if !slices.Contains(out, cc) {
				out = append(out, cc)
			}
		}
	}
	slices.Sort(out)
	return out
}
