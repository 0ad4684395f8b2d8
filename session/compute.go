package session

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/options"

	// The drop-in codec the store uses (docs/decisions/0002-storage.md,
	// "JSON").
	json "github.com/goccy/go-json"
)

// computed is what the engine answers for a session: the deliveries with
// their categories, what each delivery's options were computed from, and
// the returns promise.
type computed struct {
	purchase   *Purchase // a copy of the request's
	deliveries []Delivery
	inputs     []optionsInput // one per delivery
	promise    *ReturnsPromise
}

// optionsInput is what a delivery's options were computed from besides the
// stored purchase and delivery and the site's catalog: the computation's
// "now" (estimates and expiry depend on it) and where the geocoder placed
// the recipient (nil: it could not), so that computing again never
// geocodes.
type optionsInput struct {
	At          time.Time
	Coordinates *catalog.Coordinates
}

// compute runs the options engine for every delivery of in. It does not
// touch the store: callers run it before their write transaction.
//
// The categories' values are taken from mem, nil: allocated (see
// answerMemory).
func compute(ctx context.Context, eng *options.Engine, in *Session, mem *answerMemory) (*computed, error) {
	purchase, deliveries, err := ownCopy(in)
	if err != nil {
		return nil, err
	}
	out := &computed{purchase: purchase, deliveries: deliveries, inputs: make([]optionsInput, len(deliveries))}
	now := eng.Now()
	// Each delivery's options are computed in pooled memory: categories
	// copies all a session shows of them, and nothing else keeps them
	// (decision 0039).
	scratch := scratches.Get().(*options.Scratch)
	defer scratches.Put(scratch)
	defer scratch.Reset()
	for i := range deliveries {
		d := &deliveries[i]
		req := engineRequest(purchase, d)
		res, err := eng.ComputeForIn(ctx, req, now, scratch)
		if err != nil {
			if deliverykit.KindOf(err) == deliverykit.KindInvalidArgument {
				// checkSession has already checked what the engine
				// checks; name the delivery if it still objects.
				return nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "deliveries[%d]: %w", i, err)
			}
			return nil, fmt.Errorf("session: computing the options of deliveries[%d]: %w", i, err)
		}
		d.DeliveryCategories = categories(res, mem)
		nodeDistances(d, res.Coordinates)
		out.inputs[i] = optionsInput{At: now, Coordinates: res.Coordinates} // not the scratch's
		scratch.Reset()
	}
	out.promise = returnsPromise(eng.Catalog().ReturnPolicy, purchase.CurrencyCode)
	return out, nil
}

// scratches are the options memory of compute (options.Scratch), each
// reset before it goes back.
var scratches = sync.Pool{New: func() any { return new(options.Scratch) }}

// restore sets the categories of a stored ACTIVE session's deliveries
// again from its options inputs: options.Engine.ComputeAt gives exactly
// the categories computed when the session was written, as long as the
// site's catalog is the same. A record without inputs (a COMPLETED
// session, or one written before inputs were stored) keeps its stored
// categories.
func restore(eng *options.Engine, r *record) error {
	if len(r.OptionsInputs) == 0 {
		return nil
	}
	if len(r.OptionsInputs) != len(r.Deliveries) {
		return deliverykit.Errorf(deliverykit.KindInternal, "session %s: %d options inputs for %d deliveries", r.Name, len(r.OptionsInputs), len(r.Deliveries))
	}
	for i := range r.Deliveries {
		d := &r.Deliveries[i]
		in := r.OptionsInputs[i]
		res, err := eng.ComputeAt(engineRequest(r.Purchase, d), in.At, in.Coordinates)
		if err != nil {
			return deliverykit.Errorf(deliverykit.KindInternal, "session %s: computing the options of deliveries[%d] again: %w", r.Name, i, err)
		}
		d.DeliveryCategories = categories(res, nil)
		nodeDistances(d, res.Coordinates)
	}
	return nil
}

// nodeDistances sets the read-only distances of d's node locations from
// the recipient (at, where the engine placed the address), estimated as
// the engine estimates the way to an option's pickup location. A node
// location without coordinates, or a recipient the engine could not
// place, gets none; distances a request carried are replaced.
func nodeDistances(d *Delivery, at *catalog.Coordinates) {
	for i := range d.Nodes {
		l := d.Nodes[i].Location
		if l == nil {
			continue
		}
		l.Distances = nil
		if at == nil || l.VisitingContact == nil || l.VisitingContact.Address == nil || l.VisitingContact.Address.Coordinates == nil {
			continue
		}
		c := l.VisitingContact.Address.Coordinates
		l.Distances = distances(options.DistanceBetween(*at, catalog.Coordinates{Lat: c.Lat, Lng: c.Lng}))
	}
}

func distances(dist options.Distance) *Distances {
	return &Distances{
		Walking: &Distance{Meters: Int64(dist.WalkingMeters), Minutes: Int64(dist.WalkingMinutes)},
		Driving: &Distance{Meters: Int64(dist.DrivingMeters), Minutes: Int64(dist.DrivingMinutes)},
	}
}

// engineRequest maps a delivery to the engine's request:
//   - items: quantity, weight and dimensions of every line item;
//   - attributes: the delivery's and every line item's;
//   - readiness: the latest earliest_time of the fulfillments (all goods
//     must be ready) and of the handoffs at ORIGIN nodes;
//   - categories: the category tags every fulfillment allows (a
//     fulfillment without tags allows every category);
//   - address: the recipient's.
func engineRequest(p *Purchase, d *Delivery) options.Request {
	req := options.Request{
		Currency:   p.CurrencyCode,
		Locales:    p.Locales,
		CartValue:  int64(p.TotalValue),
		Vouchers:   p.Vouchers,
		Attributes: slices.Clone(d.Attributes),
	}
	for _, li := range d.LineItems {
		it := options.Item{Quantity: int(li.Quantity)}
		if li.Weight != nil {
			it.Weight = int(*li.Weight)
		}
		if dm := li.Dimensions; dm != nil {
			it.Dimensions = &catalog.Dimensions{Height: int(dm.Height), Length: int(dm.Length), Width: int(dm.Width)}
		}
		req.Items = append(req.Items, it)
		for _, a := range li.Attributes {
			if !slices.Contains(req.Attributes, a) {
				req.Attributes = append(req.Attributes, a)
			}
		}
	}
	ready := time.Time{}
	var allowed []string
	restricted := false
	for _, f := range d.Fulfillments {
		if f.Readiness != nil && f.Readiness.EarliestTime.After(ready) {
			ready = f.Readiness.EarliestTime.Time
		}
		if len(f.CategoryTags) == 0 {
			continue
		}
		if !restricted {
			allowed, restricted = slices.Clone(f.CategoryTags), true
			continue
		}
		allowed = slices.DeleteFunc(allowed, func(t string) bool { return !slices.Contains(f.CategoryTags, t) })
	}
	for _, n := range d.Nodes {
		if n.Handoff != nil && slices.Contains(n.Roles, RoleOrigin) && n.Handoff.EarliestTime.After(ready) {
			ready = n.Handoff.EarliestTime.Time
		}
	}
	req.ReadyAt = ready
	if restricted {
		if len(allowed) == 0 {
			// No category is allowed by every fulfillment; an empty
			// list would mean "all", so ask for one that cannot exist.
			allowed = []string{"\x00none"}
		}
		req.Categories = allowed
	}
	if c := d.RecipientContact; c != nil && c.Address != nil {
		a := c.Address
		req.Address = catalog.Address{Country: a.CountryCode, PostalCode: a.PostalCode, City: a.City, AddressLines: slices.Clone(a.AddressLines)}
		if a.Coordinates != nil {
			req.Address.Coordinates = &catalog.Coordinates{Lat: a.Coordinates.Lat, Lng: a.Coordinates.Lng}
		}
	}
	return req
}

// categories maps the engine's answer to the wire, its values taken from
// mem (nil: allocated).
func categories(res *options.Result, mem *answerMemory) []DeliveryCategory {
	out := make([]DeliveryCategory, 0, len(res.Categories))
	m := newOptionMemory(res, mem)
	for _, c := range res.Categories {
		wh := take(&m.warehouses)
		*wh = Warehouse{ID: c.Warehouse.ID, ExternalID: c.Warehouse.ExternalID, Address: m.address(c.Warehouse.Address)}
		dc := DeliveryCategory{
			ID:            c.ID,
			DeliveryType:  DeliveryType(c.DeliveryType),
			DisplayName:   c.Name,
			SortOrder:     int32(c.SortOrder),
			OptionsSource: source(c),
			ExternalID:    c.ExternalID,
			Preselected:   c.Preselected,
			Warehouse:     wh,
			// Clipped to the category's options: appending to one
			// category's list never writes into the next one's.
			DeliveryOptions: takeN(&m.options, len(c.Options))[:0],
		}
		if len(c.Addons) > 0 {
			dc.Addons = takeN(&m.addons, len(c.Addons))[:0]
		}
		for _, a := range c.Addons {
			dc.Addons = append(dc.Addons, Addon{ID: a.ID, DisplayName: a.Name, Price: Int64(a.Price), AddonType: AddonType(a.Type), Preselected: a.Preselected})
		}
		for _, o := range c.Options {
			do := option(o, m)
			if c.ETDText != "" {
				// The fallback's estimate in words replaces dates the
				// merchant did not promise.
				do.ETD = ETD{Custom: &CustomETD{Text: c.ETDText}}
			}
			dc.DeliveryOptions = append(dc.DeliveryOptions, do)
		}
		out = append(out, dc)
	}
	return out
}

// source says where a category's options come from: the catalog's
// fallback, offered because no carrier product serves the delivery, or the
// carriers.
func source(c options.Category) OptionsSource {
	if c.Fallback {
		return OptionsSourceFallback
	}
	return OptionsSourceCarrier
}

func option(o options.Option, m *optionMemory) DeliveryOption {
	ext := cmp.Or(o.Carrier.ExternalID, o.Carrier.ProductRef)
	etd := take(&m.etds)
	*etd = AbsoluteETD{EarliestTime: At(o.ETD.Earliest), LatestTime: At(o.ETD.Latest)}
	do := DeliveryOption{
		ID: o.ID,
		Carrier: Carrier{
			Name:        o.Carrier.Name,
			ProductName: o.Carrier.ProductName,
			ProductID:   o.Carrier.ProductRef,
			ExternalID:  ext,
			SortOrder:   int32(o.Carrier.SortOrder),
			Meta:        m.meta(o.Carrier.ProductRef),
		},
		ETD:         ETD{Absolute: etd},
		Price:       Int64(o.Price),
		Preselected: o.Preselected,
		ExpireTime:  At(o.ExpireTime),
		VATRate:     o.Carrier.VATRate,
	}
	if o.PromiseSource != "" {
		// Where a learned or blended product's estimate came from.
		do.Carrier.Meta[options.MetaPromiseSource] = o.PromiseSource
		do.Carrier.Meta[options.MetaPromiseSamples] = strconv.Itoa(o.PromiseSamples)
	}
	if l := o.Location; l != nil {
		pl := take(&m.locations)
		*pl = PickupLocation{
			ID:           l.ID,
			ExternalID:   l.ExternalID,
			Title:        l.Name,
			LocationType: LocationType(l.Type),
			// The catalog has one address per location, where customers
			// come and carriers deliver: both contacts are it, as
			// separate values a caller may change on its own.
			VisitingContact: m.contact(l.PickupLocation),
			DeliveryContact: m.contact(l.PickupLocation),
			Sections:        m.sections(l.Sections),
		}
		if len(l.Hours) > 0 || len(l.HoursText) > 0 {
			h := l.Hours
			// Copies: a returned session is the caller's to modify,
			// and these slices belong to the catalog.
			c := cloneAllInto(&m.strings, [8][]string{h["mon"], h["tue"], h["wed"], h["thu"], h["fri"], h["sat"], h["sun"], l.HoursText})
			pl.OperationalHours = take(&m.hours)
			*pl.OperationalHours = OperationalHours{
				Monday: c[0], Tuesday: c[1], Wednesday: c[2], Thursday: c[3],
				Friday: c[4], Saturday: c[5], Sunday: c[6], FreeText: c[7],
			}
		}
		if dist := l.Distance; dist != nil {
			d := take(&m.distances)
			walking, driving := take(&m.distance), take(&m.distance)
			*walking = Distance{Meters: Int64(dist.WalkingMeters), Minutes: Int64(dist.WalkingMinutes)}
			*driving = Distance{Meters: Int64(dist.DrivingMeters), Minutes: Int64(dist.DrivingMinutes)}
			*d = Distances{Walking: walking, Driving: driving}
			pl.Distances = d
		}
		do.PickupLocation = pl
	}
	return do
}

// optionMemory is what the delivery options of one computation point to,
// allocated once per type for all of them: each option's estimate, pickup
// location, contacts, addresses, opening hours and distances are elements
// of these slices (take), each value its own as before. A session's
// answer has a dozen options of about fifteen such values each, a third
// of a create's allocations when each was allocated on its own. The
// categories' lists of options and addons, and their warehouses, come
// from here too.
type optionMemory struct {
	options    []DeliveryOption
	addons     []Addon
	warehouses []Warehouse
	etds       []AbsoluteETD
	locations  []PickupLocation
	contacts   []Contact
	addresses  []Address
	coords     []Coordinates
	phones     []PhoneNumber
	hours      []OperationalHours
	distances  []Distances
	distance   []Distance
	strings    []string // address lines and opening hours
	// A location's sections, their columns and the columns' items.
	sectionList []Section
	columns     []Column
	items       []ColumnItem
	// metas are the carriers' meta maps, reused and cleared (nil: each
	// made).
	metas *mapChunk
}

// newOptionMemory sizes the memory of res's options, taken from mem
// (nil: allocated).
func newOptionMemory(res *options.Result, mem *answerMemory) *optionMemory {
	var etds, locs, coords, phones, hours, dists, strs, sects, cols, items int
	var addons, whCoords int
	for _, c := range res.Categories {
		addons += len(c.Addons)
		strs += len(c.Warehouse.Address.AddressLines)
		if c.Warehouse.Address.Coordinates != nil {
			whCoords++
		}
		for _, o := range c.Options {
			etds++
			l := o.Location
			if l == nil {
				continue
			}
			locs++
			if l.Address.Coordinates != nil {
				coords++
			}
			if l.Phone != nil {
				phones++
			}
			if l.Distance != nil {
				dists++
			}
			strs += 2 * len(l.Address.AddressLines)
			sects += len(l.Sections)
			for _, sec := range l.Sections {
				cols += len(sec.Columns)
				for _, c := range sec.Columns {
					items += len(c.Items)
				}
			}
			if len(l.Hours) > 0 || len(l.HoursText) > 0 {
				hours++
				for _, day := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
					strs += len(l.Hours[day])
				}
				strs += len(l.HoursText)
			}
		}
	}
	// The pieces come from mem, or without it from a memory of nothing,
	// where each slice is made at its size. The maps only from mem:
	// taken from from, they would move a fresh memory to the heap.
	from := mem
	if from == nil {
		from = new(answerMemory)
	}
	var metas *mapChunk // nil: each map made
	if mem != nil {
		metas = &mem.metas
	}
	return &optionMemory{
		options:    from.options.Take(etds),
		addons:     from.addons.Take(addons),
		warehouses: from.warehouses.Take(len(res.Categories)),

		etds:      from.etds.Take(etds),
		locations: from.locations.Take(locs),
		contacts:  from.contacts.Take(2 * locs),
		addresses: from.addresses.Take(2 * locs),
		coords:    from.coords.Take(2*coords + whCoords),
		phones:    from.phones.Take(2 * phones),
		hours:     from.hours.Take(hours),
		distances: from.distances.Take(dists),
		distance:  from.distance.Take(2 * dists),
		strings:   from.strings.Take(strs),

		sectionList: from.sections.Take(sects),
		columns:     from.columns.Take(cols),
		items:       from.items.Take(items),

		metas: metas,
	}
}

// take returns the next element of *s, or a new value when *s is used up.
func take[T any](s *[]T) *T {
	if len(*s) == 0 {
		return new(T)
	}
	p := &(*s)[0]
	*s = (*s)[1:]
	return p
}

// takeN returns the next n elements of *s, clipped so that an append to
// them never writes into the next ones, or a new slice of n when *s is
// used up. Zero elements are an empty slice, not nil, as make gives.
func takeN[T any](s *[]T, n int) []T {
	if len(*s) < n || n == 0 {
		return make([]T, n)
	}
	out := (*s)[:n:n]
	*s = (*s)[n:]
	return out
}

// meta is a carrier's meta map with its product ref: an empty map of
// m's, or a new one.
func (m *optionMemory) meta(ref string) map[string]string {
	meta := m.metas.take()
	meta[MetaProductRef] = ref
	return meta
}

// contact is a catalog location's address (its name the contact's),
// e-mail and phone, in m.
func (m *optionMemory) contact(l *catalog.PickupLocation) *Contact {
	a := &l.Address
	addr := take(&m.addresses)
	*addr = m.address(*a)
	c := take(&m.contacts)
	*c = Contact{Name: a.Name, Address: addr, Email: l.Email}
	if p := l.Phone; p != nil {
		c.PhoneNumber = take(&m.phones)
		*c.PhoneNumber = PhoneNumber{CountryCode: p.CountryCode, Number: p.Number, Extension: p.Extension}
	}
	return c
}

// address copies a catalog address to the wire, its lines and
// coordinates in m.
func (m *optionMemory) address(a catalog.Address) Address {
	lines := cloneAllInto(&m.strings, [8][]string{a.AddressLines})
	out := Address{CountryCode: a.Country, RegionCode: a.RegionCode, PostalCode: a.PostalCode, City: a.City, AddressLines: lines[0]}
	if a.Coordinates != nil {
		out.Coordinates = take(&m.coords)
		*out.Coordinates = Coordinates{Lat: a.Coordinates.Lat, Lng: a.Coordinates.Lng}
	}
	return out
}

// cloneAll is slices.Clone of each of src, in one allocation for all
// (a pickup option's opening hours are eight slices): each copy is clipped
// to its length, so that an append to one never writes into the next, and
// a nil slice stays nil.
func cloneAll(src [8][]string) [8][]string {
	var backing []string
	return cloneAllInto(&backing, src)
}

// cloneAllInto is cloneAll taking the copies from *backing, or from one
// new allocation when *backing is too short for them all.
func cloneAllInto(backing *[]string, src [8][]string) [8][]string {
	n := 0
	for _, s := range src {
		n += len(s)
	}
	b := *backing
	if len(b) < n {
		b = make([]string, n)
	} else {
		*backing = b[n:]
	}
	var out [8][]string
	for i, s := range src {
		switch {
		case s == nil:
		case len(s) == 0:
			out[i] = []string{} // empty, not nil, as slices.Clone keeps it
		default:
			k := copy(b, s)
			out[i], b = b[:k:k], b[k:]
		}
	}
	return out
}

// sections copies a catalog location's sections into m.
func (m *optionMemory) sections(in []catalog.Section) []Section {
	if len(in) == 0 {
		return nil
	}
	out := takeN(&m.sectionList, len(in))
	for i, s := range in {
		out[i] = Section{Title: s.Title, Columns: takeN(&m.columns, len(s.Columns))}
		for j, c := range s.Columns {
			items := takeN(&m.items, len(c.Items))
			for k, it := range c.Items {
				items[k] = ColumnItem{IconURI: it.IconURI, Text: it.Text, LinkURI: it.LinkURI}
			}
			out[i].Columns[j] = Column{Items: items}
		}
	}
	return out
}

// returnsPromise maps the catalog's return policy. A promise in another
// currency than the purchase's cannot be made, and no policy means none
// can be computed: both are is_unavailable.
func returnsPromise(p *catalog.ReturnPolicy, currency string) *ReturnsPromise {
	if p == nil || p.Currency != currency {
		return &ReturnsPromise{IsUnavailable: true}
	}
	return &ReturnsPromise{
		ID:               promiseID(p),
		CurrencyCode:     p.Currency,
		ReturnsEnabled:   p.ReturnsEnabled,
		ReturnCost:       Int64(p.ReturnCost),
		ExchangesEnabled: p.ExchangesEnabled,
		ExchangeCost:     Int64(p.ExchangeCost),
		ReturnTimeDays:   int32(p.ReturnTimeDays),
		ReturnPolicyText: p.PolicyText,
		ReturnPolicyURL:  p.PolicyURL,
	}
}

// promiseID identifies the policy a promise comes from: the catalog's id
// for it, or else "policy-" and 16 hex digits of a SHA-256 of its terms,
// so that an agent comparing two promises' ids sees whether the terms
// changed.
func promiseID(p *catalog.ReturnPolicy) string {
	if p.ID != "" {
		return p.ID
	}
	b, err := json.Marshal(p)
	if err != nil {
		// A catalog policy is plain data and always encodes; were it
		// ever not to, the promise goes without an id rather than
		// failing the session.
		return ""
	}
	sum := sha256.Sum256(b)
	return "policy-" + hex.EncodeToString(sum[:8])
}
