package options

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
)

// DefaultMaxLocations is the number of pickup locations offered per product
// when the category does not say.
const DefaultMaxLocations = 10

// DefaultMaxDistanceKm is how far a pickup location may be from the
// address when the category does not say.
const DefaultMaxDistanceKm = 50

// DefaultOptionTTL is how long computed options stay valid (ExpireTime).
const DefaultOptionTTL = 30 * time.Minute

// Options configures an Engine.
type Options struct {
	// Clock is "now" for estimates and expiry. Default: the system clock.
	Clock deliverykit.Clock
	// Geocoder places search addresses. Default: a PostalGeocoder over
	// the catalog.
	Geocoder Geocoder
	// OptionTTL sets Option.ExpireTime. Default: DefaultOptionTTL.
	OptionTTL time.Duration
	// LeadTimes, when set, are the lead times learned from delivered
	// parcels that products whose promise is learned or blend (the
	// catalog's Promise) are estimated with. Nil: every estimate is the
	// configured one.
	LeadTimes LeadTimes
	// Site is the site the catalog is, the LeadTimeKey.Site LeadTimes
	// are asked for.
	Site string
}

// Engine computes delivery options from one site's catalog. It is
// immutable after New and safe for concurrent use.
type Engine struct {
	cat      *catalog.Catalog
	clock    deliverykit.Clock
	geo      Geocoder
	ttl      time.Duration
	loc      localizer
	cals     map[string]*calendar // warehouse id → calendar
	products map[string]productEntry
	// parcels prices the products priced per parcel (parcels.go).
	parcels perParcel
	// carriers holds, per category id, the Carrier of each of its
	// products, made once and shared by every option of the product.
	carriers map[string][]*Carrier
	// optionIDs holds, per category id without locations, the ids of its
	// options by product position, made once. Ids at locations are made
	// per computation (optionIDsAt): a catalog may have a million
	// locations, of which a computation offers a few.
	optionIDs map[string][]string
	networks  map[string]*network // carrier + KeySep + country → locations
	site      string
	// leadTimes holds, per category id, its products' learned lead
	// times (nil: configured), when Options.LeadTimes is set.
	leadTimes map[string][]ProductLeadTimes
}

type productEntry struct {
	carrier *catalog.Carrier
	product *catalog.Product
	plan    productPlan
}

// network is the pickup locations of one carrier in one country.
type network struct {
	index *Index
	locs  []*catalog.PickupLocation // in catalog order; index items point here
	avail []availability            // parallel to locs
}

// New validates the catalog and prepares the engine: calendars, product
// plans and one spatial index per carrier and country. The catalog must not
// be modified afterwards.
func New(cat *catalog.Catalog, opts Options) (*Engine, error) {
	if err := cat.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{
		cat:      cat,
		clock:    opts.Clock,
		geo:      opts.Geocoder,
		ttl:      opts.OptionTTL,
		loc:      newLocalizer(cat.Locales),
		cals:     map[string]*calendar{},
		products: map[string]productEntry{},
		networks: map[string]*network{},
		site:     opts.Site,
	}
	if e.clock == nil {
		e.clock = deliverykit.SystemClock{}
	}
	if e.geo == nil {
		e.geo = NewPostalGeocoder(cat)
	}
	if e.ttl <= 0 {
		e.ttl = DefaultOptionTTL
	}
	for _, w := range cat.Warehouses {
		c, err := newCalendar(w.TimeZone, cat.Holidays)
		if err != nil {
			return nil, err
		}
		e.cals[w.ID] = c
	}
	for i := range cat.Carriers {
		cr := &cat.Carriers[i]
		for j := range cr.Products {
			p := &cr.Products[j]
			e.products[p.Ref] = productEntry{carrier: cr, product: p, plan: newPlan(*p)}
		}
	}
	e.parcels = newPerParcel(cat)
	// The carriers are built once per catalog locale, their product
	// names in that locale: options share them rather than copy them.
	e.carriers = make(map[string][]*Carrier, len(cat.Categories)*len(cat.Locales))
	for _, loc := range cat.Locales {
		for _, cc := range cat.Categories {
			cs := make([]Carrier, len(cc.Products))
			ps := make([]*Carrier, len(cc.Products))
			for sort, ref := range cc.Products {
				cs[sort] = e.carrier(ref, sort, loc)
				ps[sort] = &cs[sort]
			}
			e.carriers[carrierKey(loc, cc.ID)] = ps
		}
		if fb := cat.Fallback; fb != nil {
			c := e.carrier(fb.Product, 0, loc)
			e.carriers[carrierKey(loc, fallbackKey)] = []*Carrier{&c}
		}
	}
	coords := map[string][]catalog.Coordinates{}
	for i := range cat.PickupLocations {
		l := &cat.PickupLocations[i]
		key := l.Carrier + "\x00" + l.Address.Country
		n := e.networks[key]
		if n == nil {
			n = &network{}
			e.networks[key] = n
		}
		n.locs = append(n.locs, l)
		n.avail = append(n.avail, newAvailability(l))
		coords[key] = append(coords[key], *l.Address.Coordinates)
	}
	for key, n := range e.networks {
		n.index = NewIndex(coords[key])
	}
	if opts.LeadTimes != nil {
		e.leadTimes = e.learners(opts.LeadTimes)
	}
	e.optionIDs = make(map[string][]string, len(cat.Categories))
	for _, cc := range cat.Categories {
		if cc.DeliveryType.AtLocation() {
			continue
		}
		ids := make([]string, len(cc.Products))
		for sort, ref := range cc.Products {
			ids[sort] = cc.ID + "/" + ref
		}
		e.optionIDs[cc.ID] = ids
	}
	return e, nil
}

// fallbackKey keys the fallback's carrier in Engine.carriers; it starts
// with a NUL so that no category id can be the same.
const fallbackKey = "\x00fallback"

// carrierKey keys the carriers of a category (or the fallback) in a
// catalog locale in Engine.carriers.
func carrierKey(locale, category string) string { return locale + "\x00" + category }

// carrier describes the product with the given ref at a sort position,
// its name in the catalog locale.
func (e *Engine) carrier(ref string, sort int, locale string) Carrier {
	pe := e.products[ref]
	return Carrier{ID: pe.carrier.ID, Name: pe.carrier.Name, ProductID: pe.product.ID,
		ProductName: pe.product.Name.In(locale, e.cat.Locales[0]), ProductRef: ref, ExternalID: pe.product.ExternalID, SortOrder: sort,
		VATRate: cmp.Or(pe.product.VATRate, e.cat.VATRate), Supports: pe.product.Supports, Meta: pe.product.Meta}
}

// Catalog returns the engine's catalog (read-only).
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Request is what options are computed for: a cart or purchase and an
// address. Amounts are minor units.
type Request struct {
	// Currency (ISO 4217) selects the price rules.
	Currency string
	// Locales are the customer's preferences, best first ("sv-SE").
	Locales []string
	// CartValue is the cart's total after discount; it decides
	// free-shipping thresholds.
	CartValue int64
	// Attributes of the cart or delivery drive filter and price rules.
	Attributes []string
	Vouchers   []string
	Items      []Item
	// Address is where to deliver or search pickup points around;
	// Country is required.
	Address catalog.Address
	// ReadyAt is when the goods are ready; zero or past means now.
	ReadyAt time.Time
	// ReadyAtByTag moves ReadyAt later for the categories carrying a
	// tag: a category tagged with a key here is ready at the later of
	// ReadyAt and the key's time.
	ReadyAtByTag map[string]time.Time
	// Categories restricts the answer to these category ids (empty: all).
	// The catalog's fallback is offered when no category is, whatever
	// this says.
	Categories []string
}

// readyAt is when the goods are ready for a category with tags.
func (r *Request) readyAt(tags []string) time.Time {
	ready := r.ReadyAt
	for _, t := range tags {
		if at, ok := r.ReadyAtByTag[t]; ok && at.After(ready) {
			ready = at
		}
	}
	return ready
}

// Item is one cart line, as far as filters and prices care.
type Item struct {
	Quantity   int
	Weight     int // grams per unit; 0 when unknown
	Dimensions *catalog.Dimensions
}

// Result is the answer: categories in display order, each with options.
// It shares the catalog's data (pickup locations, their addresses and
// hours) rather than copying it, and it may be shared by the callers of a
// cache: treat it as read-only, and copy what a caller of yours may
// modify.
type Result struct {
	// Locale is the catalog locale names are in.
	Locale string `json:"locale"`
	// Coordinates of the address, when the geocoder could place it.
	Coordinates *catalog.Coordinates `json:"coordinates,omitempty"`
	Categories  []Category           `json:"categories"`
	// Preselected is the id of the option offered as the default ("" when
	// there is no option at all).
	Preselected string `json:"preselected,omitempty"`
	// Unplaced is set when the address could not be placed (an unknown
	// postal code) and a category that offers pickup locations had none to
	// offer for that reason: ask the customer for a postal code.
	Unplaced bool `json:"unplaced,omitempty"`
}

// Category is a catalog category with its options for one request.
type Category struct {
	ID           string               `json:"id"`
	ExternalID   string               `json:"external_id,omitempty"`
	Name         string               `json:"name"`
	CustomText   string               `json:"custom_text,omitempty"`
	DeliveryType catalog.DeliveryType `json:"delivery_type"`
	SortOrder    int                  `json:"sort_order"`
	Warehouse    catalog.Warehouse    `json:"warehouse"`
	Addons       []Addon              `json:"addons,omitempty"`
	Options      []Option             `json:"options"`
	Preselected  bool                 `json:"preselected,omitempty"`
	// Fallback marks the catalog's fallback, offered because no category
	// served the request; ETDText is its estimate in words, if configured.
	Fallback          bool     `json:"fallback,omitempty"`
	ETDText           string   `json:"etd_text,omitempty"`
	CustomWarningText string   `json:"custom_warning_text,omitempty"`
	Tags              []string `json:"tags,omitempty"`
	// BasePrice is the category's price before vouchers and free-shipping
	// thresholds, in minor units.
	BasePrice int64 `json:"base_price,omitempty"`
}

// Addon is a category addon with its localized name.
type Addon struct {
	ID          string            `json:"id"`
	ExternalID  string            `json:"external_id,omitempty"`
	Type        catalog.AddonType `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Price       int64             `json:"price"`
	Preselected bool              `json:"preselected,omitempty"`
}

// Option is one way to deliver: a carrier product, at a price, with an
// estimate, at a location for PICKUP and INSTORE.
type Option struct {
	// ID is stable across computations for the same category, product
	// and location, so a customer's choice survives a cart update.
	ID          string    `json:"id"`
	CategoryID  string    `json:"category_id"`
	Carrier     *Carrier  `json:"carrier"` // shared by the options of one product
	Price       int64     `json:"price"`
	Currency    string    `json:"currency"`
	ETD         ETD       `json:"etd"`
	Location    *Location `json:"location,omitempty"`
	Preselected bool      `json:"preselected,omitempty"`
	ExpireTime  time.Time `json:"expire_time"`
	// PromiseSource is where ETD comes from when the product's promise
	// is learned or blend: SourceLearned or SourceBlend when enough
	// delivered parcels stand behind it (PromiseSamples of them),
	// SourceConfigured when too few do yet. Empty for a configured
	// product.
	PromiseSource  string `json:"promise_source,omitempty"`
	PromiseSamples int    `json:"promise_samples,omitempty"`
}

// setPromise sets o's ETD and promise source from the estimate of its
// product.
func (o *Option) setPromise(etd ETD, l learned, mode catalog.PromiseMode) {
	o.ETD = etd
	switch {
	case l.source != "":
		o.PromiseSource, o.PromiseSamples = l.source, l.lt.Samples
	case mode != catalog.PromiseConfigured:
		o.PromiseSource = SourceConfigured
	}
}

// Carrier names the carrier product of an option.
type Carrier struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ProductID   string `json:"product_id"`
	ProductName string `json:"product_name"`
	ProductRef  string `json:"product_ref"`
	ExternalID  string `json:"external_id,omitempty"`
	SortOrder   int    `json:"sort_order"`
	// VATRate is the VAT included in the price, in basis points.
	VATRate  int              `json:"vat_rate,omitempty"`
	Supports catalog.Supports `json:"supports,omitzero"`
	// Meta is the catalog product's, shared: read-only.
	Meta map[string]string `json:"meta,omitempty"`
}

// Location is a pickup location with its distance from the address, when
// the address could be placed. The location is the catalog's own, shared
// rather than copied (a Result has dozens): like everything a Result
// holds, it is read-only.
type Location struct {
	*catalog.PickupLocation
	Distance *Distance `json:"distance,omitempty"`
}

// Option returns the category and option with the given id.
func (r *Result) Option(id string) (*Category, *Option, bool) {
	for i := range r.Categories {
		c := &r.Categories[i]
		for j := range c.Options {
			if c.Options[j].ID == id {
				return c, &c.Options[j], true
			}
		}
	}
	return nil, nil, false
}

// Compute answers the request. Bad input is an InvalidArgument naming the
// field of the request ("locales[1]", "address.country").
func (e *Engine) Compute(ctx context.Context, req Request) (*Result, error) {
	return e.ComputeFor(ctx, req, e.clock.Now())
}

// Now is the engine's clock reading: the "now" Compute uses.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// ComputeFor is Compute as of now rather than the engine's clock reading.
// With the Result's Coordinates, now is what ComputeAt needs to compute the
// same Result again without geocoding.
func (e *Engine) ComputeFor(ctx context.Context, req Request, now time.Time) (*Result, error) {
	return e.computeFor(ctx, req, now, nil)
}

// computeFor is ComputeFor with the result's memory in s (nil: made).
func (e *Engine) computeFor(ctx context.Context, req Request, now time.Time, s *Scratch) (*Result, error) {
	locale, err := e.loc.chooseFor("locales", req.Locales)
	if err != nil {
		return nil, err
	}
	if req.Address.Country == "" {
		return nil, deliverykit.InvalidField("address.country", "required", "is required")
	}
	var at *catalog.Coordinates
	if c, ok, err := e.geo.Geocode(ctx, req.Address); err != nil {
		return nil, fmt.Errorf("options: geocoding the address: %w", err)
	} else if ok {
		at = &c
	}
	return e.compute(locale, req, now, at, s), nil
}

// ComputeAt answers req as Compute did at now, for an address placed at at
// (nil: the geocoder could not place it), without geocoding. The result
// depends only on the engine's catalog, req, now and at (and, for
// products whose promise is learned, on the lead times learned by then:
// a window may move as parcels are delivered), so a caller may
// keep those few bytes instead of the Result, whose location details
// (addresses, opening hours) are copies of the catalog, and compute it
// again when needed, as the checkout and delivery sessions do. The
// Result's Coordinates is a copy of at.
func (e *Engine) ComputeAt(req Request, now time.Time, at *catalog.Coordinates) (*Result, error) {
	locale, err := e.loc.chooseFor("locales", req.Locales)
	if err != nil {
		return nil, err
	}
	if req.Address.Country == "" {
		return nil, deliverykit.InvalidField("address.country", "required", "is required")
	}
	if at != nil {
		c := *at
		at = &c
	}
	return e.compute(locale, req, now, at, nil), nil
}

// compute is Compute after validation and geocoding, for the display
// locale, with the result's memory in s (nil: made).
func (e *Engine) compute(locale string, req Request, now time.Time, at *catalog.Coordinates, s *Scratch) *Result {
	res := &Result{Locale: locale, Coordinates: at}
	q := query{
		req: req, locale: locale, now: now, expire: now.Add(e.ttl), at: at, scratch: s,
		weight:  cartWeight(req.Items),
		country: strings.ToUpper(req.Address.Country),
		postal:  catalog.NormalizePostalCode(req.Address.PostalCode),
	}
	// The categories offered, allocated at their number (a Category is
	// a few hundred bytes, and a request is seldom offered every
	// category of the catalog): gathered on the stack first, for the
	// few categories a catalog has. Still nil when nothing is offered.
	if n := len(e.cat.Categories); n > maxStackCategories {
		if cats := e.offered(s.categories(n)[:0], &q, res); len(cats) > 0 {
			res.Categories = cats
		}
	} else {
		var buf [maxStackCategories]Category
		if cats := e.offered(buf[:0], &q, res); len(cats) > 0 {
			res.Categories = s.categories(len(cats))
			copy(res.Categories, cats)
		}
	}
	slices.SortStableFunc(res.Categories, func(a, b Category) int {
		return cmp.Or(cmp.Compare(a.SortOrder, b.SortOrder), cmp.Compare(a.ID, b.ID))
	})
	// The fallback is not a category a request can name: it is offered
	// whenever nothing else is, whatever Request.Categories says, so that
	// a delivery restricted to some categories still gets an option where
	// none of them is served.
	if len(res.Categories) == 0 {
		if fb, ok := e.fallback(locale, req, now, q.weight); ok {
			res.Categories = []Category{fb}
		}
	}
	if len(res.Categories) > 0 {
		c := &res.Categories[0]
		c.Preselected = true
		c.Options[0].Preselected = true
		res.Preselected = c.Options[0].ID
	}
	return res
}

// maxStackCategories is how many categories compute gathers on the stack
// before allocating the Result's: more than a catalog usually has.
const maxStackCategories = 8

// offered appends to dst the categories of the catalog offered for q,
// those with options, in the catalog's order, and marks res Unplaced
// when an address that could not be placed left a location category
// without any.
func (e *Engine) offered(dst []Category, q *query, res *Result) []Category {
	for i := range e.cat.Categories {
		cc := &e.cat.Categories[i]
		cat, ok := e.category(cc, q)
		if !ok {
			continue
		}
		if cc.DeliveryType.AtLocation() && q.at == nil {
			res.Unplaced = true
		}
		if len(cat.Options) > 0 {
			dst = append(dst, cat)
		}
	}
	return dst
}

// query is what every category of one computation is answered for.
type query struct {
	req         Request
	locale      string
	now, expire time.Time
	at          *catalog.Coordinates // nil: the address could not be placed
	weight      int                  // of the cart
	country     string               // upper case
	postal      string               // normalized
	// parcels are the cart's parcels per set of boxes, packed once per
	// computation (parcels.go).
	parcels parcelCounts
	// learned keeps the learned lead times of the computation's first
	// products (nLearned of them; more are asked again); zone is the
	// destination's postal-code prefix, found by the first.
	learned  [8]learned
	nLearned int
	zone     string
	// scratch is where the categories, options and located pickup
	// points are taken from (nil: made).
	scratch *Scratch
}

// category answers catalog category cc for q with its options, or false
// when the request did not ask for it, its filter refuses the request or
// none of its price rules applies.
func (e *Engine) category(cc *catalog.Category, q *query) (Category, bool) {
	req := &q.req
	if len(req.Categories) > 0 && !slices.Contains(req.Categories, cc.ID) {
		return Category{}, false
	}
	if !admits(cc.Filter, q.country, q.postal, q.weight, *req) {
		return Category{}, false
	}
	price, ok := priceFor(cc.Prices, *req, q.weight)
	if !ok {
		return Category{}, false
	}
	base, _ := priceFor(cc.Prices, Request{Currency: req.Currency, Attributes: req.Attributes}, q.weight)
	wh, _ := e.cat.Warehouse(cc.Warehouse)
	cat := Category{
		ID: cc.ID, ExternalID: cc.ExternalID, DeliveryType: cc.DeliveryType, SortOrder: cc.SortOrder,
		Name:              e.loc.name(cc.DisplayName, q.locale),
		CustomText:        e.loc.name(cc.CustomText, q.locale),
		CustomWarningText: e.loc.name(cc.CustomWarningText, q.locale),
		Tags:              cc.Tags,
		BasePrice:         base,
		Warehouse:         wh,
	}
	if len(cc.Addons) > 0 {
		cat.Addons = make([]Addon, 0, len(cc.Addons))
	}
	for _, a := range cc.Addons {
		cat.Addons = append(cat.Addons, Addon{ID: a.ID, ExternalID: a.ExternalID, Type: a.Type,
			Name: e.loc.name(a.DisplayName, q.locale), Description: e.loc.name(a.Description, q.locale),
			Price: a.Price, Preselected: a.Preselected})
	}
	cat.Options = e.options(cc, q, wh.ID, e.cals[wh.ID], price)
	e.parcels.priceParcels(req.Items, &cat, &q.parcels)
	return cat, true
}

// options are the options of category cc at price, leaving from the
// warehouse with id origin: one per product, or at
// a location category one per nearby location of each product's carrier,
// nearest first across the products.
func (e *Engine) options(cc *catalog.Category, q *query, origin string, cal *calendar, price int64) []Option {
	ids := e.optionIDs[cc.ID]
	carriers := e.carriers[carrierKey(q.locale, cc.ID)]
	lts := e.leadTimes[cc.ID] // nil: every product configured
	learner := func(sort int) ProductLeadTimes {
		if lts == nil {
			return nil
		}
		return lts[sort]
	}
	ready := q.req.readyAt(cc.Tags)
	if !cc.DeliveryType.AtLocation() {
		opts := q.scratch.options(len(cc.Products))
		for sort, ref := range cc.Products {
			pe := e.products[ref]
			l := e.learnedFor(q, ref, origin, learner(sort))
			opts[sort] = Option{
				ID: ids[sort], CategoryID: cc.ID, Carrier: carriers[sort], Price: price, Currency: q.req.Currency,
				ExpireTime: q.expire,
			}
			opts[sort].setPromise(cal.promised(q.now, ready, pe.plan, l), l, e.cat.PromiseOf(pe.product))
		}
		return opts
	}
	if q.at == nil {
		return nil // see locations
	}
	// The locations of every product first, into one slice, so that the
	// options (a few hundred bytes each) are allocated once, at their
	// number.
	maxLocs := cmp.Or(cc.MaxLocations, DefaultMaxLocations)
	maxMeters := float64(cmp.Or(cc.MaxDistanceKm, DefaultMaxDistanceKm)) * 1000
	// Each product's network, on the stack for the few products a
	// category has.
	var netBuf [4]*network
	nets := netBuf[:]
	if len(cc.Products) > len(netBuf) {
		nets = make([]*network, len(cc.Products))
	}
	nets = nets[:len(cc.Products)]
	n := 0
	for sort := range cc.Products {
		if nets[sort] = e.networks[carriers[sort].ID+"\x00"+q.country]; nets[sort] != nil {
			n += min(maxLocs, len(nets[sort].locs))
		}
	}
	found := q.scratch.located(n)[:0]
	for sort, net := range nets {
		found = e.locations(found, sort, net, *q.at, maxLocs, maxMeters)
	}
	idsAt := optionIDsAt(cc, found)
	opts := q.scratch.options(len(found))
	var etd ETD
	var col collector
	var lt learned
	var mode catalog.PromiseMode
	for i := range found {
		l := &found[i]
		if i == 0 || l.product != found[i-1].product {
			ref := cc.Products[l.product]
			pe := e.products[ref]
			lt, mode = e.learnedFor(q, ref, origin, learner(l.product)), e.cat.PromiseOf(pe.product)
			etd = cal.promised(q.now, ready, pe.plan, lt)
			col = cal.collector(etd)
		}
		l.Location.Distance = &l.dist
		n := optionIDLen(cc, l)
		id := idsAt[:n]
		idsAt = idsAt[n:]
		opts[i] = Option{
			ID: id, CategoryID: cc.ID, Carrier: carriers[l.product], Price: price,
			Currency: q.req.Currency, Location: &l.Location, ExpireTime: q.expire,
		}
		opts[i].setPromise(col.at(l.avail), lt, mode)
	}
	// Nearest first across the category's products: the customer picks a
	// place, not a carrier.
	slices.SortStableFunc(opts, func(a, b Option) int {
		return cmp.Compare(a.Location.Distance.WalkingMeters, b.Location.Distance.WalkingMeters)
	})
	return opts
}

// optionIDsAt returns the ids of the options at the found locations of
// category cc, "category/product/location", in one allocation: the ids,
// in found's order, joined without a separator, each optionIDLen long.
func optionIDsAt(cc *catalog.Category, found []located) string {
	size := 0
	for i := range found {
		size += optionIDLen(cc, &found[i])
	}
	var b strings.Builder
	b.Grow(size)
	for i := range found {
		b.WriteString(cc.ID)
		b.WriteByte('/')
		b.WriteString(cc.Products[found[i].product])
		b.WriteByte('/')
		b.WriteString(found[i].Location.ID)
	}
	return b.String()
}

// optionIDLen is the length of the id of the option at l in category cc.
func optionIDLen(cc *catalog.Category, l *located) int {
	return len(cc.ID) + len(cc.Products[l.product]) + len(l.Location.ID) + 2
}

// fallback is the catalog's fallback category for a request no category
// serves, if the catalog has one and one of its price rules applies.
func (e *Engine) fallback(locale string, req Request, now time.Time, weight int) (Category, bool) {
	fb := e.cat.Fallback
	if fb == nil {
		return Category{}, false
	}
	price, ok := priceFor(fb.Prices, req, weight)
	if !ok {
		return Category{}, false
	}
	base, _ := priceFor(fb.Prices, Request{Currency: req.Currency, Attributes: req.Attributes}, weight)
	pe := e.products[fb.Product]
	wh, _ := e.cat.Warehouse("")
	opt := Option{
		ID: fb.ID + "/" + fb.Product, CategoryID: fb.ID, Carrier: e.carriers[carrierKey(locale, fallbackKey)][0],
		Price: price, Currency: req.Currency, ETD: e.cals[wh.ID].etd(now, req.ReadyAt, pe.plan),
		ExpireTime: now.Add(e.ttl),
	}
	cat := Category{
		ID: fb.ID, ExternalID: fb.ExternalID, DeliveryType: pe.product.DeliveryType,
		Name: e.loc.name(fb.DisplayName, locale), ETDText: e.loc.name(fb.ETDText, locale),
		Warehouse: wh, BasePrice: base, Fallback: true, Options: []Option{opt},
	}
	e.parcels.priceParcels(req.Items, &cat, &parcelCounts{})
	return cat, len(cat.Options) > 0
}

// cartWeight is the total weight of the items in grams. It saturates at the
// largest int rather than wrapping: a cart too heavy to count is too heavy
// for every weight band and filter, never a light one.
func cartWeight(items []Item) int {
	total := 0
	for _, it := range items {
		q, w := max(it.Quantity, 0), max(it.Weight, 0)
		if w != 0 && q > (math.MaxInt-total)/w {
			return math.MaxInt
		}
		total += q * w
	}
	return total
}

// located is a location offered, with when it is open, found for the
// product at position product of its category.
type located struct {
	Location
	dist    Distance // Location.Distance points here
	avail   *availability
	product int
}

// locations appends to dst the locations of network n (a carrier's in a
// country; nil: none) for the product at position product of its
// category: the nearest max to at within maxMeters, nearest first, with
// distances. An address the geocoder could not place gets none (the
// caller checks): offering arbitrary points, or points without distances,
// misleads more than asking for a postal code does (Result.Unplaced says
// so).
func (e *Engine) locations(dst []located, product int, n *network, at catalog.Coordinates, max int, maxMeters float64) []located {
	if n == nil {
		return dst
	}
	// The neighbors on the stack for a max of at most
	// maxStackNeighbors: only the located are kept.
	var buf [maxStackNeighbors]Neighbor
	for _, nb := range n.index.appendNearest(buf[:0], at, max) {
		if nb.Meters > maxMeters {
			break
		}
		dst = append(dst, located{Location: Location{PickupLocation: n.locs[nb.Item]}, dist: estimate(nb.Meters),
			avail: &n.avail[nb.Item], product: product})
	}
	return dst
}

// admits applies a category filter.
func admits(f catalog.Filter, country, postal string, weight int, req Request) bool {
	if len(f.Countries) > 0 && !slices.Contains(f.Countries, country) {
		return false
	}
	if len(f.PostalCodes) > 0 {
		in := false
		for _, r := range f.PostalCodes {
			from, to := catalog.NormalizePostalCode(r.From), catalog.NormalizePostalCode(r.To)
			if r.Country == country && len(postal) == len(from) && postal >= from && postal <= to {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	for _, a := range f.RequiredAttributes {
		if !slices.Contains(req.Attributes, a) {
			return false
		}
	}
	for _, a := range f.ExcludedAttributes {
		if slices.Contains(req.Attributes, a) {
			return false
		}
	}
	if f.MaxWeight > 0 && weight > f.MaxWeight {
		return false
	}
	if m := f.MaxDimensions; m != nil {
		limit := sorted3(m.Height, m.Length, m.Width)
		for _, it := range req.Items {
			if d := it.Dimensions; d != nil {
				got := sorted3(d.Height, d.Length, d.Width)
				if got[0] > limit[0] || got[1] > limit[1] || got[2] > limit[2] {
					return false
				}
			}
		}
	}
	return true
}

func sorted3(a, b, c int) [3]int {
	s := [3]int{a, b, c}
	slices.Sort(s[:])
	return s
}

// priceFor applies the first matching price rule.
func priceFor(rules []catalog.PriceRule, req Request, weight int) (int64, bool) {
	for _, r := range rules {
		if r.Currency != req.Currency {
			continue
		}
		if r.Voucher != "" && !slices.ContainsFunc(req.Vouchers, func(v string) bool { return strings.EqualFold(v, r.Voucher) }) {
			continue
		}
		if weight < r.MinWeight || r.MaxWeight > 0 && weight > r.MaxWeight {
			continue
		}
		ok := true
		for _, a := range r.Attributes {
			if !slices.Contains(req.Attributes, a) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if r.FreeAbove > 0 && req.CartValue >= r.FreeAbove {
			return 0, true
		}
		return r.Price, true
	}
	return 0, false
}

// IncludedVAT is the VAT part of value (a price that includes VAT) at rate
// basis points: value × rate / (10000 + rate), rounded half up. Checkout's
// price components and the delivery session's agentic tax both use it, so
// that the two areas never disagree by a rounding.
func IncludedVAT(value int64, rate int) int64 {
	if rate <= 0 || value <= 0 {
		return 0
	}
	// value ≤ 10^11 (validated prices) and rate ≤ 10^4: no overflow.
	d := int64(10000 + rate)
	return (value*int64(rate)*2 + d) / (2 * d)
}
