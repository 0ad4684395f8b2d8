package reliability

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/internal/racedetector"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
)

// flagAmpRounds is how often TestAmplification repeats its hostile set
// after the first round; see doc.go.
var (
	flagAmpRounds = flag.Int("reliability.amprounds", envInt("DELIVERYKIT_RELIABILITY_AMPROUNDS", 2),
		"how many more times TestAmplification sends its refused requests (env DELIVERYKIT_RELIABILITY_AMPROUNDS; 100 for the long run)")
	flagAmpAll = flag.Bool("reliability.ampall", os.Getenv("DELIVERYKIT_RELIABILITY_AMPALL") != "",
		"TestAmplification fills every string of every body, not the first two of each (env DELIVERYKIT_RELIABILITY_AMPALL)")
)

// The limits an answer to a hostile request must keep.
const (
	// maxErrorBody is the largest answer allowed, whatever the request.
	maxErrorBody = 8 << 10
	// maxHeapGrowth is how much the live heap may grow over the repeated
	// rounds: the requests are all refused, so nothing should stay.
	maxHeapGrowth = 4 << 20
	// fullBudget is how big the hostile bodies are: just under the body
	// limit, so they are read and decoded, not refused as too large.
	fullBudget = httpapi.DefaultMaxBodyBytes - 256
)

// bodyBudget is fullBudget, or a quarter of it under the race detector
// (CI's run), which makes each megabyte decode about twenty times slower:
// the lists are then 85,000 entries long instead of 350,000, still far
// past every limit. `go test ./reliability` runs the full size.
// The race detector makes decoding a megabyte of JSON about twenty times
// slower; the bodies' size scales down with it.
var bodyBudget = fullBudget / max(1, 4*btoi(racedetector.Enabled))

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ampCase is one hostile request.
type ampCase struct {
	name   string
	method string
	target string
	header map[string]string
	body   string
	// refuse: the answer must be a 4xx that committed nothing. Cases
	// that may be valid input (numbers at the edges of their types, long
	// query values that find nothing) must only never be a 5xx.
	refuse bool
}

// TestAmplification sends to every endpoint that reads a body or a query
// the requests that cost a server most per byte: arrays of empty objects
// that fill the body limit in each list field, strings that fill it in
// each string field, deeply nested JSON, maps with as many keys as fit,
// huge locale lists, numbers at the int32 and int64 edges and long query
// values and paths. Every answer must be small (maxErrorBody) and never a
// 5xx, and every list, string and nesting case must be a 4xx that
// committed nothing. The set is then sent again -reliability.amprounds
// times (100 for the long run), and the live heap after a garbage
// collection may not grow by more than maxHeapGrowth: a refused request
// leaves nothing behind. The figures (the largest answer, the most bytes
// one request allocated) are logged.
func TestAmplification(t *testing.T) {
	e := newQuietEnv(t)
	f := seed(e)
	cases := amplificationCases(f)

	// Round 1: every case, checked one by one.
	var biggest, mostAlloc uint64
	var biggestName, mostAllocName string
	type alloc struct {
		name  string
		bytes uint64
	}
	var allocs []alloc
	var repeated []ampCase
	for _, c := range cases {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		size, failure := checkAmp(e, c)
		runtime.ReadMemStats(&ms)
		if limit := allocLimit(c); failure == "" && c.refuse && ms.TotalAlloc-before > limit {
			failure = fmt.Sprintf("refusing it allocated %.1f MiB, more than %.1f MiB", float64(ms.TotalAlloc-before)/(1<<20), float64(limit)/(1<<20))
		}
		if failure != "" {
			t.Errorf("%s: %s", c.name, failure)
		}
		allocs = append(allocs, alloc{c.name, ms.TotalAlloc - before})
		if a := ms.TotalAlloc - before; a > mostAlloc {
			mostAlloc, mostAllocName = a, c.name
		}
		if size > biggest && failure == "" && size <= maxErrorBody {
			biggest, biggestName = size, c.name
		}
		if c.refuse {
			repeated = append(repeated, c)
		}
	}
	slices.SortFunc(allocs, func(a, b alloc) int { return cmp.Compare(b.bytes, a.bytes) })
	for _, a := range allocs[:min(12, len(allocs))] {
		t.Logf("allocated %6.1f MiB: %s", float64(a.bytes)/(1<<20), a.name)
	}
	t.Logf("%d hostile requests; largest error answer %d bytes (%s); most allocated by one request %.1f MiB (%s)",
		len(cases), biggest, biggestName, float64(mostAlloc)/(1<<20), mostAllocName)
	if t.Failed() {
		return
	}

	// The repeated rounds: only refusals, which must leave nothing behind.
	rounds := *flagAmpRounds
	if testing.Short() {
		rounds = 1
	}
	writes := e.store.writes.Load()
	heap := liveHeap()
	for round := range rounds {
		for _, c := range repeated {
			r := e.do(c.method, c.target, c.header, c.body)
			if r.status/100 != 4 || len(r.raw) > maxErrorBody {
				t.Fatalf("round %d, %s: %d, %d bytes", round+2, c.name, r.status, len(r.raw))
			}
		}
	}
	grown := int64(liveHeap()) - int64(heap)
	t.Logf("%d more rounds of %d refusals: live heap %+.2f MiB", rounds, len(repeated), float64(grown)/(1<<20))
	if grown > maxHeapGrowth {
		t.Errorf("the live heap grew by %.1f MiB over %d rounds of refused requests", float64(grown)/(1<<20), rounds)
	}
	if n := e.store.writes.Load() - writes; n != 0 {
		t.Errorf("refused requests committed %d writes", n)
	}
}

// checkAmp sends one case and checks its answer; it returns the answer's
// size and the name of what failed ("" when nothing did). Only error
// answers are held to maxErrorBody: a valid request may be answered with
// as much as it asks for.
func checkAmp(e *env, c ampCase) (uint64, string) {
	before := e.store.writes.Load()
	r := e.do(c.method, c.target, c.header, c.body)
	size := uint64(len(r.raw))
	switch {
	case r.status == http.StatusTooManyRequests:
		return size, "rate limited: the request never reached its handler"
	case r.status >= 500:
		return size, fmt.Sprintf("%d %.300s", r.status, r.raw)
	case c.refuse && r.status/100 != 4:
		return size, fmt.Sprintf("%d %.300s, want a 4xx", r.status, r.raw)
	case c.refuse && e.store.writes.Load() != before:
		return size, fmt.Sprintf("refused with %d but committed %d writes", r.status, e.store.writes.Load()-before)
	case r.status >= 400 && size > maxErrorBody:
		return size, fmt.Sprintf("%d answered with %d bytes: %.300s", r.status, size, r.raw)
	}
	return size, ""
}

// allocLimit is the most a refusal may allocate: what decoding a body
// into structs costs before its limits refuse it (strings, the few
// entries a list may have) plus a fixed allowance, never in proportion
// to the entries of a list over its limit.
func allocLimit(c ampCase) uint64 {
	return 16*uint64(len(c.body)+len(c.target)) + 2<<20
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// newQuietEnv is newEnv without the captured log: the access log of
// thousands of requests would be the largest thing the heap keeps. Rate
// limits are off, as in newEnv: one demo site sends everything, and a 429
// would prove nothing about the request.
func newQuietEnv(t *testing.T) *env {
	t.Helper()
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(start)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := &countingStore{Store: memory.New()}
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: clock, IDs: deliverykit.RandomIDs{}, PublicURL: "http://shop.test", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: logger, RateLimits: noRateLimits})
	return &env{t: t, h: h, svcs: svcs, store: store, clock: clock, log: &syncBuffer{}}
}

// extraLists are list and map fields the valid bodies of bodyEndpoints do
// not hold, by endpoint: path (in the body) and what an entry is.
var extraLists = map[string][]struct {
	path  []any
	entry string
}{
	"A order": {
		{[]any{"destination", "operational_hours", "mon"}, "{}"},
		{[]any{"destination", "address", "address_lines"}, `""`},
	},
	"A parcel": {
		{[]any{"attributes"}, "map"},
		{[]any{"line_items", 0, "properties"}, "map"},
	},
	"D create": {
		{[]any{"purchase", "vouchers"}, `""`},
		{[]any{"deliveries", 0, "nodes"}, "{}"},
		{[]any{"deliveries", 0, "attributes"}, `""`},
	},
	"F create": {
		{[]any{"parcels", 0, "line_items"}, "{}"},
		{[]any{"attributes"}, "map"},
	},
}

// amplificationCases builds the hostile set from the endpoints' valid
// bodies.
func amplificationCases(f fixture) []ampCase {
	var cases []ampCase
	for _, ep := range bodyEndpoints(f) {
		mk := func(what, body string, refuse bool) ampCase {
			return ampCase{name: ep.name + " " + what, method: ep.method, target: ep.path, header: ep.header, body: body, refuse: refuse}
		}
		var doc any
		if err := json.Unmarshal([]byte(ep.valid), &doc); err != nil {
			panic(ep.name + ": " + err.Error())
		}
		// Every list at any depth, filled with empty entries.
		walk(doc, nil, func(path []any, v any) {
			if a, ok := v.([]any); ok {
				entry := "{}"
				if len(a) > 0 {
					if _, isString := a[0].(string); isString {
						entry = `""`
					}
				}
				cases = append(cases, mk(pathName(path)+" filled with "+entry, fill(doc, path, entry), true))
			}
		})
		for _, x := range extraLists[ep.name] {
			cases = append(cases, mk(pathName(x.path)+" filled with "+x.entry, fill(doc, x.path, x.entry), true))
		}
		// Strings as long as the body allows (the first two of each body;
		// every one with -reliability.ampall: TestRequestLimits proves
		// the rest from the types); numbers at the edges.
		strs := 0
		walk(doc, nil, func(path []any, v any) {
			switch v.(type) {
			case string:
				if strs++; strs <= 2 || *flagAmpAll {
					cases = append(cases, mk(pathName(path)+" huge", fill(doc, path, "string"), true))
				}
			case float64:
				for _, n := range []string{"2147483647", "2147483648", "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e308", "-1e308"} {
					cases = append(cases, mk(pathName(path)+" = "+n, replaceRaw(doc, path, n), false))
				}
			}
		})
		// Nesting: deep arrays where an object is expected, and deep
		// objects under a member nobody reads.
		depth := bodyBudget / 8
		cases = append(cases,
			mk("nested arrays", strings.Repeat("[", depth)+strings.Repeat("]", depth), true),
			mk("nested objects in an unknown member", `{"x":`+strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth+1), true),
		)
	}

	// Query strings and paths. The example server reads at most 64 KiB
	// of header; a value of 20,000 escaped characters fits.
	long := url.QueryEscape(strings.Repeat("<", 20_000))
	locales := strings.Repeat("sv-SE,", 8_000) + "en"
	widget := map[string]string{"X-Widget-Token": f.widgetToken}
	queries := []struct {
		name   string
		path   string
		params []string
		header map[string]string
	}{
		{"A orders", "/v1/delivery_tracking/orders", []string{"external_id", "email", "locale", "site_id"}, site1.rest},
		{"A parcels", "/v1/delivery_tracking/parcels", []string{"external_id", "tracking_number", "token"}, site1.rest},
		{"B notifications", "/v1/delivery_tracking/notifications", []string{"external_id"}, site1.rest},
		{"A promise accuracy", "/v1/delivery_tracking/promise_accuracy", []string{"group_by", "from", "to"}, site1.rest},
		{"C session get", "/v1/siw/session.get", []string{"id"}, site1.rest},
		{"C2 session get", "/v1/delivery_checkout/session.get", []string{"checkout_session_id"}, site1.rest},
		{"C2 session pull", "/v1/delivery_checkout/session.pull", []string{"checkout_session_id"}, site1.rest},
		{"C widget state", "/v1/siw/_/widget/state", []string{"locale"}, widget},
		{"D get", "/delivery/v1/" + f.sessionName, nil, site1.rpc},
		{"E orders", "/returns/merchant/order", []string{"page", "size", "sort"}, site1.spring},
		{"E order", "/returns/merchant/order/A-1", []string{"idType"}, site1.spring},
		{"E returns", "/returns/merchant/return", []string{"afterId", "afterDate", "sort"}, site1.spring},
		{"E refunds", "/returns/merchant/refund/transaction", []string{"status"}, site1.spring},
		{"F shipment", "/v1/som/shipments.get", []string{"id", "external_id", "tracking_number"}, site1.rest},
		{"F delivery", "/v1/som/deliveries.get", []string{"tracking_number"}, site1.rest},
		{"F label", "/v1/som/labels/" + f.bookedTN, []string{"format"}, site1.rest},
	}
	for _, q := range queries {
		for _, p := range q.params {
			cases = append(cases, ampCase{name: q.name + " ?" + p + " long", method: "GET", target: q.path + "?" + p + "=" + long, header: q.header})
		}
		cases = append(cases, ampCase{name: q.name + " many parameters", method: "GET",
			target: q.path + "?" + strings.Repeat("x=1&", 10_000), header: q.header})
	}
	hugeSegment := strings.Repeat("x", 30_000)
	cases = append(cases,
		ampCase{name: "D get long name", method: "GET", target: "/delivery/v1/sessions/" + hugeSegment, header: site1.rpc, refuse: true},
		ampCase{name: "D convert long format", method: "POST", target: "/delivery/v1/" + f.sessionName + ":convert?format=" + long, header: site1.rpc, refuse: true},
		ampCase{name: "E order long id", method: "GET", target: "/returns/merchant/order/" + hugeSegment, header: site1.spring, refuse: true},
		ampCase{name: "F label long tracking number", method: "GET", target: "/v1/som/labels/" + hugeSegment, header: site1.rest, refuse: true},
		ampCase{name: "unknown path", method: "GET", target: "/v1/som/" + hugeSegment, header: site1.rest, refuse: true},
		ampCase{name: "A page many locales", method: "GET", target: tracking.PagePath + "no-such-token", header: map[string]string{"Accept-Language": locales}, refuse: true},
		ampCase{name: "A page long locale", method: "GET", target: tracking.PagePath + "no-such-token?locale=" + long, refuse: true},
		ampCase{name: "E status page many locales", method: "GET", target: "/returns/customer/return/no-such-token", header: map[string]string{"Accept-Language": locales}, refuse: true},
	)
	return cases
}

// pathName writes a path as a JSON path: cart.items[0].sku.
func pathName(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}

// marker stands for the value fill and replaceRaw put in place after
// encoding, so that a megabyte is never decoded and encoded again.
const marker = "\x00amplify\x00"

// fill returns doc with the value at path (created when absent, parents
// included) replaced by as much as fits in bodyBudget: a list of entry
// ("{}" or `""`), a map ("map": as many keys as fit) or a string
// ("string", of "<", which takes six bytes once escaped in an answer).
func fill(doc any, path []any, what string) string {
	rest := setAt(doc, path)
	room := bodyBudget - len(rest) + len(`"`+marker+`"`)
	var b strings.Builder
	b.Grow(room)
	switch what {
	case "string":
		b.WriteByte('"')
		b.WriteString(strings.Repeat("<", room-2))
		b.WriteByte('"')
	case "map":
		b.WriteByte('{')
		for i := 0; b.Len() < room-20; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":""`, i)
		}
		b.WriteByte('}')
	default:
		b.WriteByte('[')
		for i := 0; b.Len()+len(entry(what))+2 < room; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(entry(what))
		}
		b.WriteByte(']')
	}
	return strings.Replace(rest, `"`+marker+`"`, b.String(), 1)
}

func entry(what string) string { return what }

// replaceRaw returns doc with the value at path replaced by the raw JSON
// text raw.
func replaceRaw(doc any, path []any, raw string) string {
	return strings.Replace(setAt(doc, path), `"`+marker+`"`, raw, 1)
}

// setAt encodes a copy of doc with marker at path, creating missing
// objects on the way (a missing array index is not created: paths into
// arrays name entries the valid body has).
func setAt(doc any, path []any) string {
	var cp any
	b, _ := json.Marshal(doc)
	json.Unmarshal(b, &cp)
	parent := cp
	for i, p := range path[:len(path)-1] {
		next := get(parent, p)
		if next == nil {
			next = map[string]any{}
			if m, ok := parent.(map[string]any); ok {
				m[p.(string)] = next
			}
		}
		_ = i
		parent = next
	}
	switch x := parent.(type) {
	case map[string]any:
		x[path[len(path)-1].(string)] = marker
	case []any:
		x[path[len(path)-1].(int)] = marker
	}
	out, _ := json.Marshal(cp)
	// encoding/json escapes the NULs of the marker.
	return strings.Replace(string(out), `"\u0000amplify\u0000"`, `"`+marker+`"`, 1)
}
