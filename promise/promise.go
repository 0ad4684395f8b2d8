package promise

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Sketch parameters: every sketch of the package has them, so any two
// merge.
const (
	// RelativeAccuracy is the sketches' guarantee: a quantile read is
	// within 1 % of a value of the data.
	RelativeAccuracy = 0.01
	// MaxBins bounds each sign's bins: with 1 % accuracy they span a
	// factor of about 29,000 (a few minutes to months of hours) before
	// the shortest lead times are collapsed together.
	MaxBins = 512
)

// Defaults of Options.
const (
	DefaultCacheTTL         = 5 * time.Minute
	DefaultPendingRetention = 90 * 24 * time.Hour
	DefaultReportRetention  = 400 * 24 * time.Hour
	// MaxParcelsPerOrder bounds the parcels of one order that are
	// measured; more are ignored (a pending record stays small).
	MaxParcelsPerOrder = 50
)

// Options configures a Service. A zero field means its default.
type Options struct {
	// Engines gives a site's options engine: the calendar lead times are
	// counted on, the product's warehouse, the destination zones and the
	// catalog's learning settings. Required.
	Engines func(site string) (*options.Engine, bool)
	// Clock defaults to the system clock.
	Clock deliverykit.Clock
	// CacheTTL is how long a key's lead time read from the store is
	// answered from memory before it is read again (another process may
	// have folded parcels in). Default DefaultCacheTTL.
	CacheTTL time.Duration
	// PendingRetention is how long an order waits for its parcels'
	// delivery; ReportRetention how long a day's tallies are kept.
	// Defaults DefaultPendingRetention and DefaultReportRetention.
	PendingRetention time.Duration
	ReportRetention  time.Duration
}

// Service learns lead times and tallies promises. It is safe for
// concurrent use.
type Service struct {
	store storage.Store
	opts  Options
	mu    sync.Mutex
	// products are the lead times engines hold, by product.
	products map[productKey]*productTimes
}

// New returns a Service keeping its records in store.
func New(st storage.Store, opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = deliverykit.SystemClock{}
	}
	opts.CacheTTL = cmp.Or(opts.CacheTTL, DefaultCacheTTL)
	opts.PendingRetention = cmp.Or(opts.PendingRetention, DefaultPendingRetention)
	opts.ReportRetention = cmp.Or(opts.ReportRetention, DefaultReportRetention)
	return &Service{store: st, opts: opts, products: map[productKey]*productTimes{}}
}

// consumer is the name the Service's handlers apply events under.
const consumer = "promise"

// orderRecord is a completed order waiting for its parcels' delivery.
type orderRecord struct {
	Schema      int       `json:"schema"`
	Product     string    `json:"product"`
	Origin      string    `json:"origin"`
	Country     string    `json:"country"`
	Zone        string    `json:"zone"`
	Source      string    `json:"source"`
	Earliest    time.Time `json:"earliest"`
	Latest      time.Time `json:"latest"`
	CompletedAt time.Time `json:"completed_at"`
	// Handovers are the hand-over times of its parcels not yet
	// delivered, by tracking number; Done the parcels folded in.
	Handovers map[string]time.Time `json:"handovers,omitempty"`
	Done      []string             `json:"done,omitempty"`
}

// sketchRecord is the lead times of one key.
type sketchRecord struct {
	Schema int `json:"schema"`
	// AsOf is the time the weights were last decayed to.
	AsOf   time.Time `json:"as_of"`
	Sketch []byte    `json:"sketch"`
}

// tallyRecord is one day's parcels of one (product, origin, zone,
// source), measured against their promises.
type tallyRecord struct {
	Schema  int `json:"schema"`
	Parcels int `json:"parcels"`
	OnTime  int `json:"on_time"`
	Early   int `json:"early"`
	Late    int `json:"late"`
	// Lateness is a sketch of hours late (negative: early; 0 on time).
	Lateness []byte `json:"lateness"`
}

const schema = 1

var (
	// orders are keyed by (site, tos_id).
	orders = storage.Collection[orderRecord]{Name: "promise.orders"}
	// sketches are keyed by sketchKey.
	sketches = storage.Collection[sketchRecord]{Name: "promise.sketches"}
	// tallies are keyed by (site, day, product, origin, zone, source).
	tallies = storage.Collection[tallyRecord]{Name: "promise.tallies"}
	// expiry indexes orders (class "order", at completion) and each
	// site's days of tallies (class "day", at the day's start; record
	// key (site, day)).
	expiry = retention.Index{Name: "promise.expiry"}
)

const (
	classOrder = "order"
	classDay   = "day"
)

func sketchKey(k options.LeadTimeKey) string {
	return storage.Key(k.Site, k.Product, k.Origin, k.Country, k.Zone)
}

// newSketch is an empty sketch of the package's parameters.
func newSketch() *ddsketch.DDSketch {
	s, err := ddsketch.LogCollapsingLowestDenseDDSketch(RelativeAccuracy, MaxBins)
	if err != nil {
		panic(err) // constant parameters
	}
	return s
}

var sketchMapping = sync.OnceValue(func() mapping.IndexMapping {
	m, err := mapping.NewLogarithmicMapping(RelativeAccuracy)
	if err != nil {
		panic(err)
	}
	return m
})

func collapsing() store.Store { return store.NewCollapsingLowestDenseStore(MaxBins) }

func decodeSketch(b []byte) (*ddsketch.DDSketch, error) {
	if len(b) == 0 {
		return newSketch(), nil
	}
	s, err := ddsketch.DecodeDDSketch(b, collapsing, sketchMapping())
	if err != nil {
		return nil, fmt.Errorf("promise: a stored sketch does not decode: %w", err)
	}
	return s, nil
}

func encodeSketch(s *ddsketch.DDSketch) []byte {
	var b []byte
	s.Encode(&b, true)
	return b
}

// decay is the weight left after age with a half-life of halfLifeDays.
func decay(age time.Duration, halfLifeDays int) float64 {
	if age <= 0 || halfLifeDays <= 0 {
		return 1
	}
	return math.Exp2(-age.Hours() / (24 * float64(halfLifeDays)))
}

// HandleOrderCompleted is the outbox consumer of event.TypeOrderCompleted:
// an order with a promise waits for its parcels. It is idempotent.
func (s *Service) HandleOrderCompleted(ctx context.Context, e event.Event) error {
	o, err := event.Decode[event.OrderCompleted](e)
	if err != nil {
		return err
	}
	if o.Promise == nil || o.ProductRef == "" || o.TosID == "" {
		return nil
	}
	eng, ok := s.opts.Engines(e.Site)
	if !ok {
		return nil
	}
	country, postal := o.Country, ""
	switch {
	case o.Pickup != nil:
		country, postal = cmp.Or(o.Pickup.Address.Country, country), o.Pickup.Address.PostalCode
	case o.CustomerAddress != nil:
		country, postal = cmp.Or(o.CustomerAddress.Country, country), o.CustomerAddress.PostalCode
	}
	rec := orderRecord{
		Schema: schema, Product: o.ProductRef, Origin: eng.Origin(o.ProductRef), Country: country,
		Zone: eng.Zone(country, postal), Source: cmp.Or(o.PromiseSource, options.SourceConfigured),
		Earliest: o.Promise.Earliest.UTC(), Latest: o.Promise.Latest.UTC(), CompletedAt: o.CompletedAt.UTC(),
	}
	key := storage.Key(e.Site, o.TosID)
	return s.store.Update(ctx, func(tx storage.Tx) error {
		if done, err := outbox.Applied(tx, consumer, e.ID); done || err != nil {
			return err
		}
		if _, err := orders.Put(tx, key, rec, storage.MustNotExist()); err != nil {
			if errors.Is(err, deliverykit.ErrConflict) {
				return nil // the order was completed twice: the first promise stands
			}
			return err
		}
		return expiry.Move(tx, key, retention.Entry{}, retention.Entry{Class: classOrder, At: rec.CompletedAt})
	})
}

// Delivered steps: a parcel's first of them is its delivery.
const (
	stepSubmitted     = "STEP_SUBMITTED_TO_CARRIER"
	stepDelivered     = "STEP_DELIVERED_TO_CONSUMER"
	stepAtPickupPoint = "STEP_DELIVERED_TO_PICKUP_POINT"
)

// HandleParcelChanged is the outbox consumer of event.TypeParcelChanged:
// an outbound parcel's hand-over is noted on its order, and its first
// delivered step folds its lead time into the order's keys and tallies
// it against the promise. It is idempotent.
func (s *Service) HandleParcelChanged(ctx context.Context, e event.Event) error {
	c, err := event.Decode[event.ParcelChanged](e)
	if err != nil {
		return err
	}
	if c.Direction != "" && c.Direction != event.DirectionOutbound || c.TosID == "" || c.TrackingNumber == "" {
		return nil
	}
	if c.Step != stepSubmitted && c.Step != stepDelivered && c.Step != stepAtPickupPoint {
		return nil
	}
	eng, ok := s.opts.Engines(e.Site)
	if !ok {
		return nil
	}
	var folded []options.LeadTimeKey
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		folded = folded[:0]
		if done, err := outbox.Applied(tx, consumer, e.ID); done || err != nil {
			return err
		}
		key := storage.Key(e.Site, c.TosID)
		it, err := orders.Get(tx, key)
		switch {
		case errors.Is(err, deliverykit.ErrNotFound) && c.Step == stepSubmitted && c.Promise != nil && c.ProductRef != "":
			// An order registered without a checkout: the parcel's
			// event brings its promise.
			if it, err = pendingFromParcel(tx, eng, key, &c); err != nil {
				return err
			}
		case errors.Is(err, deliverykit.ErrNotFound):
			return nil // no promise was made, or it was swept
		case err != nil:
			return err
		}
		o := it.Value
		tn := c.TrackingNumber
		if slices.Contains(o.Done, tn) {
			return nil
		}
		if c.Step == stepSubmitted {
			if _, seen := o.Handovers[tn]; seen || len(o.Handovers)+len(o.Done) >= MaxParcelsPerOrder {
				return nil
			}
			if o.Handovers == nil {
				o.Handovers = map[string]time.Time{}
			}
			o.Handovers[tn] = c.Time.UTC()
			_, err := orders.Put(tx, it.Key, o, storage.VersionIs(it.Version))
			return err
		}
		handover, ok := o.Handovers[tn]
		if !ok {
			return nil // delivered without a hand-over: nothing to measure from
		}
		delete(o.Handovers, tn)
		o.Done = append(o.Done, tn)
		if _, err := orders.Put(tx, it.Key, o, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		lc := eng.Catalog().Learning
		lead := eng.BusinessHours(o.Origin, handover, c.Time)
		for _, k := range levels(e.Site, &o) {
			if err := fold(tx, k, lead, c.Time.UTC(), lc.HalfLife()); err != nil {
				return err
			}
			folded = append(folded, k)
		}
		return tally(tx, e.Site, &o, c.Time.UTC())
	})
	if err != nil {
		return err
	}
	s.forget(folded)
	return nil
}

// pendingFromParcel writes the pending record of an order that no
// completed session announced, from its parcel's change c, and returns
// it. Its promise is the merchant's own: it counts as configured.
func pendingFromParcel(tx storage.Tx, eng *options.Engine, key string, c *event.ParcelChanged) (storage.Item[orderRecord], error) {
	rec := orderRecord{
		Schema: schema, Product: c.ProductRef, Origin: eng.Origin(c.ProductRef), Country: c.DestinationCountry,
		Zone: eng.Zone(c.DestinationCountry, c.DestinationPostalCode), Source: options.SourceConfigured,
		Earliest: c.Promise.Earliest.UTC(), Latest: c.Promise.Latest.UTC(), CompletedAt: c.Time.UTC(),
	}
	v, err := orders.Put(tx, key, rec, storage.MustNotExist())
	if err != nil {
		return storage.Item[orderRecord]{}, err
	}
	if err := expiry.Move(tx, key, retention.Entry{}, retention.Entry{Class: classOrder, At: rec.CompletedAt}); err != nil {
		return storage.Item[orderRecord]{}, err
	}
	return storage.Item[orderRecord]{Key: key, Value: rec, Version: v}, nil
}

// levels are the keys a parcel of order o is folded into, narrowest
// first.
func levels(site string, o *orderRecord) []options.LeadTimeKey {
	product := options.LeadTimeKey{Site: site, Product: o.Product, Origin: o.Origin}
	out := make([]options.LeadTimeKey, 0, 3)
	if o.Country != "" && o.Zone != "" {
		out = append(out, options.LeadTimeKey{Site: site, Product: o.Product, Origin: o.Origin, Country: o.Country, Zone: o.Zone})
	}
	if o.Country != "" {
		out = append(out, options.LeadTimeKey{Site: site, Product: o.Product, Origin: o.Origin, Country: o.Country})
	}
	return append(out, product)
}

// fold adds a lead time of hours, delivered at at, to key k's sketch,
// decaying the sketch's weights to the later of at and its last fold.
func fold(tx storage.Tx, k options.LeadTimeKey, hours float64, at time.Time, halfLife int) error {
	key := sketchKey(k)
	it, err := sketches.Get(tx, key)
	cond := storage.MustNotExist()
	rec := sketchRecord{Schema: schema, AsOf: at}
	switch {
	case err == nil:
		rec, cond = it.Value, storage.VersionIs(it.Version)
	case !errors.Is(err, deliverykit.ErrNotFound):
		return err
	}
	sk, err := decodeSketch(rec.Sketch)
	if err != nil {
		return err
	}
	weight := 1.0
	if at.After(rec.AsOf) {
		if err := sk.Reweight(decay(at.Sub(rec.AsOf), halfLife)); err != nil {
			return err
		}
		rec.AsOf = at
	} else {
		weight = decay(rec.AsOf.Sub(at), halfLife) // a parcel reported late weighs its age
	}
	if err := sk.AddWithCount(max(hours, 0), weight); err != nil {
		return err
	}
	rec.Sketch = encodeSketch(sk)
	_, err = sketches.Put(tx, key, rec, cond)
	return err
}

// tally counts a parcel of order o delivered at at in its day's tally.
func tally(tx storage.Tx, site string, o *orderRecord, at time.Time) error {
	day := at.UTC().Format(time.DateOnly)
	// A destination without a postal code is tallied under its country.
	key := storage.Key(site, day, o.Product, o.Origin, cmp.Or(o.Zone, o.Country), o.Source)
	it, err := tallies.Get(tx, key)
	cond := storage.MustNotExist()
	rec := tallyRecord{Schema: schema}
	switch {
	case err == nil:
		rec, cond = it.Value, storage.VersionIs(it.Version)
	case errors.Is(err, deliverykit.ErrNotFound):
		// A site's first tally of the day puts the day in the index.
		start, _ := time.Parse(time.DateOnly, day)
		if err := expiry.Move(tx, storage.Key(site, day), retention.Entry{}, retention.Entry{Class: classDay, At: start}); err != nil {
			return err
		}
	default:
		return err
	}
	sk, err := decodeSketch(rec.Lateness)
	if err != nil {
		return err
	}
	lateness := 0.0
	rec.Parcels++
	switch {
	case at.After(o.Latest):
		rec.Late++
		lateness = at.Sub(o.Latest).Hours()
	case at.Before(o.Earliest):
		rec.Early++
		lateness = at.Sub(o.Earliest).Hours()
	default:
		rec.OnTime++
	}
	if err := sk.Add(lateness); err != nil {
		return err
	}
	rec.Lateness = encodeSketch(sk)
	_, err = tallies.Put(tx, key, rec, cond)
	return err
}
