package httpapi

import (
	"hash/maphash"
	"math"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is a token bucket: PerSecond requests a second on average, up
// to Burst at once.
type RateLimit struct {
	// PerSecond is the sustained rate. Zero means the default of the
	// limit's class; a negative value turns the limit off.
	PerSecond float64
	// Burst is how many requests may arrive at once after a quiet
	// period. Zero means twice PerSecond, rounded up (at least 1); with
	// PerSecond zero too, the default of the class.
	Burst int
}

// NoRateLimit turns a class of rate limits off.
var NoRateLimit = RateLimit{PerSecond: -1}

// The default rate limits, used for the zero RateLimit of each class.
var (
	// DefaultSiteRate limits each site's API keys together: a busy
	// merchant's backend stays well under it, a leaked or public key cannot
	// take the whole server.
	DefaultSiteRate = RateLimit{PerSecond: 100, Burst: 200}
	// DefaultWidgetTokenRate limits each checkout session's widget: a
	// shopper clicks, a script in a loop does not get far.
	DefaultWidgetTokenRate = RateLimit{PerSecond: 5, Burst: 20}
	// DefaultAddressRate limits each client address on the endpoints that
	// take no API key (customer pages, the customer return, the widget,
	// the OpenAPI documents) and on failed authentications. It is
	// generous because many customers can share one address behind a
	// carrier's NAT.
	DefaultAddressRate = RateLimit{PerSecond: 20, Burst: 60}
)

// DefaultMaxTracked is how many callers each class of rate limits tracks
// when RateLimits.MaxTracked is zero.
const DefaultMaxTracked = 10_000

// RateLimits configures the rate limits of the handler. A request over a
// limit is answered 429 in the area's error shape, with Retry-After.
type RateLimits struct {
	// Site limits authenticated requests per site (all of a site's API
	// keys share one bucket). Default: DefaultSiteRate.
	Site RateLimit
	// WidgetToken limits the checkout widget's requests per widget token,
	// on top of the client address limit. Default: DefaultWidgetTokenRate.
	WidgetToken RateLimit
	// Address limits requests without an API key, and requests whose key
	// is refused, per client address; IPv6 addresses count per /64, the
	// block one subscriber usually holds. Default: DefaultAddressRate.
	Address RateLimit
	// MaxTracked bounds how many callers each class tracks, so strangers
	// cannot grow memory without end. A caller's bucket is dropped once it
	// has filled up again (the caller was idle: nothing is forgotten).
	// When every tracked caller is active, new callers share one bucket
	// of the class's rate until buckets fill up again. Default:
	// DefaultMaxTracked.
	MaxTracked int
	// TrustedProxies are the addresses of the reverse proxies in front of
	// the server. Only for requests coming from one of them is
	// X-Forwarded-For read: the client is the rightmost address in it that
	// is not itself a trusted proxy. Empty: the connection's address is
	// the client's, and X-Forwarded-For is ignored (anyone can send it).
	TrustedProxies []netip.Prefix
}

// sweepInterval is how often a full limiter table may be swept for idle
// buckets: a sweep walks the whole table, so a flood of new callers must
// not trigger one per request.
const sweepInterval = time.Second

// limiterTable is one class of rate limits: a token bucket per caller,
// keyed by a seeded hash of the caller's key (a site, a token, an
// address), so keys of any length cost 8 bytes and nobody can aim at a
// collision. A nil table allows everything.
type limiterTable struct {
	limit rate.Limit
	burst int
	max   int
	seed  maphash.Seed

	mu        sync.Mutex
	buckets   map[uint64]*rate.Limiter
	shared    *rate.Limiter // for new callers while the table is full of active ones
	lastSweep time.Time
}

// newLimiterTable returns the table of rl, or nil when rl turns the limit
// off.
func newLimiterTable(rl, def RateLimit, maxTracked int) *limiterTable {
	if rl.PerSecond < 0 {
		return nil
	}
	if rl.PerSecond == 0 && rl.Burst == 0 {
		rl = def
	}
	if rl.PerSecond == 0 {
		rl.PerSecond = def.PerSecond
	}
	if rl.Burst <= 0 {
		rl.Burst = max(1, int(math.Ceil(2*rl.PerSecond)))
	}
	if maxTracked <= 0 {
		maxTracked = DefaultMaxTracked
	}
	return &limiterTable{
		limit:   rate.Limit(rl.PerSecond),
		burst:   rl.Burst,
		max:     maxTracked,
		seed:    maphash.MakeSeed(),
		buckets: make(map[uint64]*rate.Limiter),
		shared:  rate.NewLimiter(rate.Limit(rl.PerSecond), rl.Burst),
	}
}

// allow takes one request of key at now from its bucket. When the bucket
// is empty it returns false and how long until it holds a request again.
func (t *limiterTable) allow(key string, now time.Time) (bool, time.Duration) {
	if t == nil {
		return true, 0
	}
	lim := t.bucket(maphash.String(t.seed, key), now)
	if lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - lim.TokensAt(now)
	return false, time.Duration(missing / float64(t.limit) * float64(time.Second))
}

func (t *limiterTable) bucket(h uint64, now time.Time) *rate.Limiter {
	t.mu.Lock()
	defer t.mu.Unlock()
	if lim, ok := t.buckets[h]; ok {
		return lim
	}
	if len(t.buckets) >= t.max && now.Sub(t.lastSweep) >= sweepInterval {
		t.sweep(now)
	}
	if len(t.buckets) >= t.max {
		return t.shared
	}
	lim := rate.NewLimiter(t.limit, t.burst)
	t.buckets[h] = lim
	return lim
}

// sweep drops the buckets that are full again: their callers have been
// quiet long enough that a fresh bucket is exactly the same.
func (t *limiterTable) sweep(now time.Time) {
	t.lastSweep = now
	for h, lim := range t.buckets {
		if lim.TokensAt(now) >= float64(t.burst) {
			delete(t.buckets, h)
		}
	}
}

// len is the number of tracked callers, for tests.
func (t *limiterTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.buckets)
}

// limiters are the handler's rate limits, one table per class.
type limiters struct {
	site, token, address *limiterTable
	proxies              []netip.Prefix
}

func newLimiters(rl RateLimits) limiters {
	return limiters{
		site:    newLimiterTable(rl.Site, DefaultSiteRate, rl.MaxTracked),
		token:   newLimiterTable(rl.WidgetToken, DefaultWidgetTokenRate, rl.MaxTracked),
		address: newLimiterTable(rl.Address, DefaultAddressRate, rl.MaxTracked),
		proxies: rl.TrustedProxies,
	}
}

// limit takes one request from key's bucket in t; when it is empty, it
// answers 429 in style and returns false.
func (s *server) limit(w http.ResponseWriter, r *http.Request, style errorStyle, t *limiterTable, key string) bool {
	ok, wait := t.allow(key, s.now())
	if !ok {
		s.writeWire(w, r, style, tooManyRequests(wait))
	}
	return ok
}

// limitAddress is limit on the client address's bucket.
func (s *server) limitAddress(w http.ResponseWriter, r *http.Request, style errorStyle) bool {
	if s.limits.address == nil {
		return true
	}
	return s.limit(w, r, style, s.limits.address, addressKey(clientAddr(r, s.limits.proxies)))
}

// clientAddr is the address of the client: the connection's, or, when the
// connection comes from a trusted proxy, the rightmost address of
// X-Forwarded-For that is not a trusted proxy. Proxies append to the
// header, so only the entries added by trusted proxies can be believed; a
// client may have written anything to the left of them. The zero Addr
// means unknown (all unknown clients share one bucket).
func clientAddr(r *http.Request, proxies []netip.Prefix) netip.Addr {
	addr := parseAddr(r.RemoteAddr)
	if !addr.IsValid() || !trusted(addr, proxies) {
		return addr
	}
	values := r.Header.Values("X-Forwarded-For")
	for i := len(values) - 1; i >= 0; i-- {
		hops := strings.Split(values[i], ",")
		for j := len(hops) - 1; j >= 0; j-- {
			hop := parseAddr(strings.TrimSpace(hops[j]))
			if !hop.IsValid() {
				// A hop we cannot read: the trusted proxy that
				// passed it on is the last address we know.
				return addr
			}
			addr = hop
			if !trusted(addr, proxies) {
				return addr
			}
		}
	}
	return addr
}

// parseAddr reads "ip", "ip:port" or "[ipv6]:port"; invalid input gives the
// zero Addr.
func parseAddr(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap()
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone("")
	}
	return netip.Addr{}
}

func trusted(a netip.Addr, proxies []netip.Prefix) bool {
	for _, p := range proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// addressKey is the bucket of an address: an IPv4 address alone, an IPv6
// address by its /64, since one subscriber is usually given a whole /64 and
// could otherwise take a fresh bucket per request.
func addressKey(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	if a.Is6() {
		p, _ := a.WithZone("").Prefix(64)
		a = p.Addr()
	}
	b, _ := a.MarshalBinary()
	return string(b)
}
