package httpapi

import (
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync"
)

// queryFirst sets vals[i] to r.URL.Query().Get(names[i]) for every i: the
// first value of the parameter, unescaped, or "". A query of a few plain
// parameters (nothing escaped, no semicolon) is read in place, without
// the map and the slices url.ParseQuery makes of every parameter; any
// other is read by url.ParseQuery, so the answer is always its answer.
// vals must be as long as names, at most 64.
func queryFirst(r *http.Request, names []string, vals []string) {
	raw := r.URL.RawQuery
	if strings.ContainsAny(raw, "%+;") || strings.Count(raw, "&") >= maxPlainParams || queryLimitSet() {
		q := r.URL.Query()
		for i, n := range names {
			vals[i] = q.Get(n)
		}
		return
	}
	var found uint64
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		for i, n := range names {
			if found&(1<<i) == 0 && k == n {
				vals[i], found = v, found|1<<i
			}
		}
	}
	for i := range names {
		if found&(1<<i) == 0 {
			vals[i] = ""
		}
	}
}

// maxPlainParams bounds the parameters queryFirst reads in place: a
// longer query is not one of ours, and url.ParseQuery refuses one of more
// than its limit (10,000 by default) whole.
const maxPlainParams = 16

// queryLimitSet reports whether GODEBUG's urlmaxqueryparams is set, in
// the environment or as the program's default: a limit below
// maxPlainParams would make url.ParseQuery refuse a query queryFirst
// reads in place.
func queryLimitSet() bool {
	return strings.Contains(os.Getenv("GODEBUG"), "urlmaxqueryparams") || defaultQueryLimitSet()
}

var defaultQueryLimitSet = sync.OnceValue(func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "DefaultGODEBUG" && strings.Contains(s.Value, "urlmaxqueryparams") {
			return true
		}
	}
	return false
})
