package validation

import (
	"encoding/json"
	"net/url"
	"strconv"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"
)

// IsHTTPSURL reports whether s is a URL the areas accept in a field that
// holds one (a product image, a link, a logo): absolute, https, with a
// host, without user information and at most MaxURLLength characters.
//
// These URLs end up in pages and e-mails shown to customers, so only what
// a browser fetches over TLS is accepted. javascript: and data: URLs
// would run or embed the sender's content in the customer's page; a
// relative URL would resolve against whatever page shows it; http would
// load mixed content into https pages; "https://shop.example@evil.example"
// names a host other than the one it shows.
func IsHTTPSURL(s string) bool {
	if len(s) > utf8.UTFMax*MaxURLLength || utf8.RuneCountInString(s) > MaxURLLength {
		return false
	}
	for _, r := range s {
		// Spaces and control characters are never part of a URL a
		// client means; net/url tolerates some of them.
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	return u.Scheme == "https" && u.Opaque == "" && u.User == nil && u.Hostname() != ""
}

func isHTTPSURL(fl validator.FieldLevel) bool { return IsHTTPSURL(fl.Field().String()) }

// jsonSizeAtMost is the jsonsize=N rule: a free-form value (an any, or a
// map or slice of them) takes at most N bytes as JSON. It bounds what a
// type cannot, such as the nesting of a free-form attribute.
func jsonSizeAtMost(fl validator.FieldLevel) bool {
	n, err := strconv.Atoi(fl.Param())
	if err != nil {
		panic("validation: jsonsize needs a byte count, not " + strconv.Quote(fl.Param()))
	}
	f := fl.Field()
	if !f.IsValid() || !f.CanInterface() {
		return true
	}
	b, err := json.Marshal(f.Interface())
	return err == nil && len(b) <= n
}
