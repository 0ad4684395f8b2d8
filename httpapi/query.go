package httpapi

import (
	"net/url"
	"strings"
)

// queryValue is url.Values.Get of the parsed raw query, without parsing
// every parameter into a map: a query without escapes, '+' or ';' (every
// query a client library writes for an id) is scanned in place, anything
// else goes through url.ParseQuery, so the answer is the same either way
// (FuzzQueryValue).
func queryValue(raw, name string) string {
	if strings.ContainsAny(raw, "%+;") || strings.Count(raw, "&") >= maxPlainQueryParams {
		v, _ := url.ParseQuery(raw)
		return v.Get(name)
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if key, value, _ := strings.Cut(pair, "="); key == name && pair != "" {
			return value
		}
	}
	return ""
}

// maxPlainQueryParams keeps queries near url.ParseQuery's limit on
// parameters (past which it parses none) on its path.
const maxPlainQueryParams = 1000
