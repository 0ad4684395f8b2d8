package session

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/daycount"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// EngineSource returns a site's options engine. checkout.Engines satisfies
// it; it is declared here so that this package needs only the engine, not
// the checkout session.
type EngineSource interface {
	Engine(site string) (*options.Engine, error)
}

// completedOrder is one delivery of a completed session: everything an
// order needs.
type completedOrder struct {
	Site        string
	SessionName string
	// TosID is the order id the session gave the delivery; ExternalID is
	// the merchant's (DeliveryChoice.external_id), possibly empty.
	TosID       string
	ExternalID  string
	CompletedAt time.Time
	Purchase    Purchase
	// Delivery is the completed delivery, with its categories and the
	// chosen flags set.
	Delivery Delivery
	// Category, Option and Addons are what the customer chose; ProductRef
	// is the catalog's carrier product ref of the option (also in
	// Option.Carrier.Meta[MetaProductRef]).
	Category   DeliveryCategory
	Option     DeliveryOption
	ProductRef string
	Addons     []Addon
	// ShippingPrice is the option's price plus the chosen addons'.
	ShippingPrice int64
}

// Options configures a Service.
type Options struct {
	// Engines gives each site's options engine. Required.
	Engines EngineSource
	// Orders, when set, is asked before a session completes whether the
	// choices' external ids are free.
	Orders OrderChecker
	// OrderSource, when set, tells what became of completed deliveries:
	// Service.Order needs it. wiring sets it from tracking and returns.
	OrderSource OrderSource
	// Clock and IDs default to the system clock and RandomIDs. Session
	// ids must be unguessable in production.
	Clock deliverykit.Clock
	IDs   deliverykit.IDSource
	// Retention says how long sessions are kept after their last change
	// (ACTIVE) or their completion (Sweep); zero durations are
	// retention's defaults.
	Retention retention.Policy
}

// Service keeps delivery sessions (area D). It is safe for concurrent use.
type Service struct {
	store storage.Store
	// created counts the sessions created per site and day (retention.go).
	created *daycount.Pending
	engines EngineSource
	orders  OrderChecker
	// orderSource serves Order (order.go).
	orderSource OrderSource
	clock       deliverykit.Clock
	ids         deliverykit.IDSource
	// retention and backfilled serve Sweep (retention.go).
	retention  retention.Policy
	backfilled retention.Once
}

// record is a session as the service works with it, stored as a
// storedSession (records.go). It has no etag: the etag is the record's
// version. An ACTIVE session is stored without its delivery categories,
// which are mostly copies of the catalog (pickup location addresses and
// opening hours, tens of kilobytes for a delivery in a city): OptionsInputs keeps,
// per delivery, what they were computed from, and reading the session
// computes them again, exactly (restore). A COMPLETED session stores its
// categories with the customer's choice, as they were when it completed,
// and no inputs: a record of what was sold does not follow later catalog
// changes. Records written before inputs were stored have their categories
// and no inputs, and are read as stored.
type record struct {
	Session
	OptionsInputs []optionsInput
}

// newRecord returns the record of an ACTIVE session whose deliveries' options
// were computed from inputs.
func newRecord(sess Session, inputs []optionsInput) record {
	ds := make([]Delivery, len(sess.Deliveries))
	for i, d := range sess.Deliveries {
		d.DeliveryCategories = nil
		ds[i] = d
	}
	sess.Deliveries, sess.Etag = ds, ""
	return record{Session: sess, OptionsInputs: inputs}
}

// New returns a Service over store.
func New(store storage.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, fmt.Errorf("session: a store is required")
	}
	if opts.Engines == nil {
		return nil, fmt.Errorf("session: Options.Engines is required")
	}
	s := &Service{store: store, created: created.Pending(store), engines: opts.Engines, orders: opts.Orders, orderSource: opts.OrderSource, clock: opts.Clock, ids: opts.IDs, retention: opts.Retention}
	if s.clock == nil {
		s.clock = deliverykit.SystemClock{}
	}
	if s.ids == nil {
		s.ids = deliverykit.RandomIDs{}
	}
	return s, nil
}

// Etag returns the etag of a stored version: opaque to clients, a quoted
// base-36 number to us. Versions are never reused (see package storage), so
// an etag never matches a later state.
func Etag(version uint64) string {
	return `"` + strconv.FormatUint(version, 36) + `"`
}

// parseEtag returns the version an etag stands for; ok is false for a
// string no etag of ours looks like, which can never match.
func parseEtag(etag string) (uint64, bool) {
	s, ok := strings.CutPrefix(etag, `"`)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, `"`)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 36, 64)
	return v, err == nil && v > 0
}

// checkEtag compares a request's etag with the current version: absent
// means no check; a different one is Conflict (ABORTED on the wire).
func checkEtag(etag string, current uint64) error {
	if etag == "" {
		return nil
	}
	if v, ok := parseEtag(etag); !ok || v != current {
		return deliverykit.Errorf(deliverykit.KindConflict, "etag %s does not match the current etag %s: the session was changed; read it again", etag, Etag(current))
	}
	return nil
}

func notFound(name string) error {
	return deliverykit.Errorf(deliverykit.KindNotFound, "session %s not found", name)
}

// withEtag returns sess with the etag of version.
func withEtag(sess Session, version uint64) *Session {
	sess.Etag = Etag(version)
	return &sess
}

// Create computes the options of in and stores it as a new ACTIVE session.
// Read-only fields of in (name, state, times, returns_promise, categories,
// tos_id, external_id) are ignored.
func (s *Service) Create(ctx context.Context, site string, in Session) (*Session, error) {
	return s.create(ctx, site, in, nil)
}

// CreateAnd is Create handing the session to use rather than returning
// it, for a caller that only encodes it (the HTTP adapter): the session's
// delivery options are in memory the service reuses for a later session
// once use returns, so use must keep neither the session nor anything it
// points to. It returns Create's error, or nil once use has returned.
func (s *Service) CreateAnd(ctx context.Context, site string, in Session, use func(*Session)) error {
	mem := answers.Get().(*answerMemory)
	defer answers.Put(mem)
	defer mem.reset()
	sess, err := s.create(ctx, site, in, mem)
	if err != nil {
		return err
	}
	use(sess)
	return nil
}

// create is Create with the categories' values in mem (nil: allocated).
func (s *Service) create(ctx context.Context, site string, in Session, mem *answerMemory) (*Session, error) {
	if err := checkSession(&in); err != nil {
		return nil, err
	}
	eng, err := s.engines.Engine(site)
	if err != nil {
		return nil, err
	}
	c, err := compute(ctx, eng, &in, mem)
	if err != nil {
		return nil, err
	}
	now := At(s.clock.Now())
	id := s.ids.NewID("")
	sess := Session{
		Name:           "sessions/" + id,
		State:          StateActive,
		Purchase:       c.purchase,
		Deliveries:     c.deliveries,
		CreateTime:     now,
		UpdateTime:     now,
		ReturnsPromise: c.promise,
	}
	// What the transaction writes and answers, in one allocation: the
	// function's captures would each move to the heap on their own.
	w := &struct {
		rec     record
		version uint64
	}{rec: newRecord(sess, c.inputs)}
	if err := s.store.Update(ctx, func(tx storage.Tx) error {
		// The id is made for this session, and so is its index entry:
		// FreshKey lets a database store check both at commit.
		v, err := sessions.PutFrom(tx, storage.Key(site, id), &w.rec, storage.FreshKey())
		if err != nil {
			return err
		}
		w.version = v
		return expiry.Add(tx, storage.Key(site, id), entryOf(w.rec.State, w.rec.UpdateTime.Time))
	}); err != nil {
		return nil, err
	}
	s.created.Add(site, now.Time)
	return withEtag(sess, w.version), nil
}

// Get returns the session with the given name ("sessions/{id}"). A session
// of another site is NotFound.
func (s *Service) Get(ctx context.Context, site, name string) (*Session, error) {
	id, err := checkName(name)
	if err != nil {
		return nil, err
	}
	it, err := s.load(ctx, site, id)
	if deliverykit.KindOf(err) == deliverykit.KindNotFound {
		return nil, notFound(name)
	}
	if err != nil {
		return nil, err
	}
	// The options are computed outside the read transaction.
	if len(it.Value.OptionsInputs) > 0 {
		eng, err := s.engines.Engine(site)
		if err != nil {
			return nil, err
		}
		if err := restore(eng, &it.Value); err != nil {
			return nil, err
		}
	}
	return withEtag(it.Value.Session, it.Version), nil
}

// Patch replaces the purchase and deliveries of the ACTIVE session in.Name
// and recomputes its options. When in.Etag is set it must equal the current
// etag, else the patch is refused with Conflict (ABORTED). Without an etag
// there is no check: the read and the write happen in one transaction, so
// the patch applies to the latest state and is never refused for a
// concurrent change. A COMPLETED session is FailedPrecondition.
func (s *Service) Patch(ctx context.Context, site string, in Session) (*Session, error) {
	id, err := checkName(in.Name)
	if err != nil {
		return nil, err
	}
	if err := checkSession(&in); err != nil {
		return nil, err
	}
	eng, err := s.engines.Engine(site)
	if err != nil {
		return nil, err
	}
	// Options depend only on the request, so they are computed before
	// the transaction, which only checks and writes.
	c, err := compute(ctx, eng, &in, nil)
	if err != nil {
		return nil, err
	}
	now := At(s.clock.Now())
	var out *Session
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		key := storage.Key(site, id)
		it, err := sessions.Get(tx, key)
		if err != nil {
			return err
		}
		if err := checkEtag(in.Etag, it.Version); err != nil {
			return err
		}
		if err := checkActive(in.Name, it.Value.State); err != nil {
			return err
		}
		sess := it.Value.Session
		sess.Purchase, sess.Deliveries, sess.ReturnsPromise, sess.UpdateTime = c.purchase, c.deliveries, c.promise, now
		v, err := sessions.Put(tx, key, newRecord(sess, c.inputs), storage.VersionIs(it.Version))
		if err != nil {
			return err
		}
		if err := expiry.Move(tx, key, it.Value.expiryEntry(), entryOf(sess.State, sess.UpdateTime.Time)); err != nil {
			return err
		}
		out = withEtag(sess, v)
		return nil
	})
	if deliverykit.KindOf(err) == deliverykit.KindNotFound {
		return nil, notFound(in.Name)
	}
	return out, err
}

// state reads a stored session's state.
func (s *Service) state(ctx context.Context, site, id string) (State, error) {
	it, err := s.load(ctx, site, id)
	return it.Value.State, err
}

// load reads a stored session, the one record read of a GET and of the
// look before a change: with storage.Get, one statement on a store that
// offers it (PostgreSQL), where a View costs two round trips.
func (s *Service) load(ctx context.Context, site, id string) (storage.Item[record], error) {
	rec, err := storage.Get(ctx, s.store, sessions.Name, storage.Key(site, id))
	if err != nil {
		return storage.Item[record]{}, err
	}
	return sessions.Decode(rec)
}

func checkActive(name string, st State) error {
	if st != StateActive {
		return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "session %s is %s and cannot be changed", name, st)
	}
	return nil
}

// Complete saves the customer's choice for every delivery and moves the
// session to COMPLETED: the chosen category, option and addons get
// chosen=true, and every delivery gets a tos_id and the choice's
// external_id. Each delivery must be chosen exactly once; an unknown
// delivery, option or addon is InvalidArgument naming the choice's field;
// an option past its expire_time is FailedPrecondition (patch the session
// to refresh the options); an external_id that is already an order of the
// site (see OrderChecker) is AlreadyExists naming the choice's
// external_id. The etag rule is Patch's. The completing write
// also writes an event.OrderCompleted per delivery to the outbox.
func (s *Service) Complete(ctx context.Context, site, name string, req CompleteRequest) (*CompleteResponse, error) {
	id, err := checkName(name)
	if err != nil {
		return nil, err
	}
	if err := checkChoices(&req); err != nil {
		return nil, err
	}
	if err := s.checkOrders(ctx, site, req.DeliveryChoices); err != nil {
		// The order may be this very session's, completed by a
		// concurrent call: that call won, and this one hears what any
		// call on a completed session hears.
		if deliverykit.KindOf(err) == deliverykit.KindAlreadyExists {
			if st, serr := s.state(ctx, site, id); serr == nil && st != StateActive {
				return nil, checkActive(name, st)
			}
		}
		return nil, err
	}
	eng, err := s.engines.Engine(site)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var (
		out    *Session
		orders []completedOrder
	)
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		key := storage.Key(site, id)
		it, err := sessions.Get(tx, key)
		if err != nil {
			return err
		}
		if err := checkEtag(req.Etag, it.Version); err != nil {
			return err
		}
		if err := checkActive(name, it.Value.State); err != nil {
			return err
		}
		// The choices are checked against the options as computed
		// when the session was written. Computing them again here,
		// inside the transaction, costs microseconds per delivery
		// and needs no second read to catch a concurrent patch.
		rec := it.Value
		if err := restore(eng, &rec); err != nil {
			return err
		}
		sess := rec.Session
		sess.Deliveries = slices.Clone(sess.Deliveries)
		orders, err = s.apply(site, &sess, req.DeliveryChoices, now)
		if err != nil {
			return err
		}
		sess.State, sess.UpdateTime = StateCompleted, At(now)
		// Completed: the categories are stored as chosen, without
		// inputs.
		v, err := sessions.Put(tx, key, record{Session: sess}, storage.VersionIs(it.Version))
		if err != nil {
			return err
		}
		if err := expiry.Move(tx, key, it.Value.expiryEntry(), entryOf(sess.State, sess.UpdateTime.Time)); err != nil {
			return err
		}
		out = withEtag(sess, v)
		return s.emitCompleted(tx, orders)
	})
	if deliverykit.KindOf(err) == deliverykit.KindNotFound {
		return nil, notFound(name)
	}
	if err != nil {
		return nil, err
	}
	return &CompleteResponse{Session: out}, nil
}

// apply matches the choices against sess, sets the chosen flags, tos_id
// and external_id, and returns the orders to record. It has no effect
// outside sess, so the transaction that calls it may run more than once.
func (s *Service) apply(site string, sess *Session, choices []DeliveryChoice, now time.Time) ([]completedOrder, error) {
	picks, chosen, err := matchChoices(sess, choices, now)
	if err != nil {
		return nil, err
	}
	orders := make([]completedOrder, 0, len(picks))
	for _, pk := range picks {
		ch := choices[chosen[pk.delivery]-1]
		d := &sess.Deliveries[pk.delivery]
		d.DeliveryCategories = cloneCategories(d.DeliveryCategories)
		cat := &d.DeliveryCategories[pk.category]
		cat.Chosen = true
		opt := &cat.DeliveryOptions[pk.option]
		opt.Chosen = true
		price := int64(opt.Price)
		var addons []Addon
		for _, k := range pk.addons {
			cat.Addons[k].Chosen = true
			price += int64(cat.Addons[k].Price)
			addons = append(addons, cat.Addons[k])
		}
		d.TosID = s.ids.NewID("tos_")
		d.ExternalID = ch.ExternalID
		orders = append(orders, completedOrder{
			Site: site, SessionName: sess.Name, TosID: d.TosID, ExternalID: d.ExternalID,
			CompletedAt: now, Purchase: *sess.Purchase, Delivery: *d,
			Category: *cat, Option: *opt, ProductRef: opt.Carrier.Meta[MetaProductRef],
			Addons: addons, ShippingPrice: price,
		})
	}
	return orders, nil
}

// pick is a choice matched against its delivery: the indexes of its
// delivery, category, option and addons.
type pick struct {
	delivery, category, option int
	addons                     []int
}

// matchChoices matches the choices against sess's deliveries: one pick per
// choice, and, per delivery, 1 + the position of its choice. Every
// delivery must be chosen exactly once, with options that exist and have
// not expired.
func matchChoices(sess *Session, choices []DeliveryChoice, now time.Time) ([]pick, []int, error) {
	index := make(map[string]int, len(sess.Deliveries))
	for i, d := range sess.Deliveries {
		index[d.ID] = i
	}
	var vs validation.Violations
	chosen := make([]int, len(sess.Deliveries)) // 1 + position in choices
	picks := make([]pick, 0, len(choices))
	var expired []string
	for ci, ch := range choices {
		p := fmt.Sprintf("delivery_choices[%d].", ci)
		di, ok := index[ch.DeliveryID]
		if !ok {
			vs.Add(p+"delivery_id", "exists", fmt.Sprintf("the session has no delivery %q", ch.DeliveryID))
			continue
		}
		if chosen[di] != 0 {
			vs.Add(p+"delivery_id", "unique", fmt.Sprintf("delivery %q is already chosen in delivery_choices[%d]", ch.DeliveryID, chosen[di]-1))
			continue
		}
		chosen[di] = ci + 1
		pk, ok := matchChoice(&vs, p, &sess.Deliveries[di], di, ch)
		if !ok {
			continue
		}
		o := sess.Deliveries[di].DeliveryCategories[pk.category].DeliveryOptions[pk.option]
		if !o.ExpireTime.IsZero() && !now.Before(o.ExpireTime.Time) {
			expired = append(expired, fmt.Sprintf("option %q of delivery %q expired at %s", o.ID, ch.DeliveryID, o.ExpireTime.Format(time.RFC3339)))
		}
		picks = append(picks, pk)
	}
	for di, c := range chosen {
		if c == 0 && len(vs) == 0 {
			vs.Add("delivery_choices", "complete", fmt.Sprintf("delivery %q has no choice; every delivery must be chosen exactly once", sess.Deliveries[di].ID))
		}
	}
	if err := vs.Err(); err != nil {
		return nil, nil, err
	}
	if len(expired) > 0 {
		return nil, nil, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "%s; patch the session to refresh its options", strings.Join(expired, "; "))
	}
	return picks, chosen, nil
}

// matchChoice finds the option and addons of one choice (field prefix p)
// in delivery d, number di; a missing one is a violation.
func matchChoice(vs *validation.Violations, p string, d *Delivery, di int, ch DeliveryChoice) (pick, bool) {
	pk := pick{delivery: di, category: -1}
find:
	for i := range d.DeliveryCategories {
		for j := range d.DeliveryCategories[i].DeliveryOptions {
			if d.DeliveryCategories[i].DeliveryOptions[j].ID == ch.OptionID {
				pk.category, pk.option = i, j
				break find
			}
		}
	}
	if pk.category < 0 {
		vs.Add(p+"option_id", "exists", fmt.Sprintf("delivery %q has no option %q", ch.DeliveryID, ch.OptionID))
		return pk, false
	}
	cat := &d.DeliveryCategories[pk.category]
	for ai, aid := range ch.AddonIDs {
		k := slices.IndexFunc(cat.Addons, func(a Addon) bool { return a.ID == aid })
		switch {
		case k < 0:
			vs.Add(fmt.Sprintf("%saddon_ids[%d]", p, ai), "exists", fmt.Sprintf("category %q of delivery %q has no addon %q", cat.ID, ch.DeliveryID, aid))
		case slices.Contains(pk.addons, k):
			vs.Add(fmt.Sprintf("%saddon_ids[%d]", p, ai), "unique", fmt.Sprintf("addon %q is listed twice", aid))
		default:
			pk.addons = append(pk.addons, k)
		}
	}
	return pk, true
}

// cloneCategories copies what apply modifies, so a retried transaction
// never sees the flags of an earlier attempt.
func cloneCategories(cs []DeliveryCategory) []DeliveryCategory {
	out := slices.Clone(cs)
	for i := range out {
		out[i].DeliveryOptions = slices.Clone(out[i].DeliveryOptions)
		out[i].Addons = slices.Clone(out[i].Addons)
	}
	return out
}
