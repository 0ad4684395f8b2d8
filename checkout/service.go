package checkout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/internal/daycount"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// DefaultSessionTTL is how long a session stays open after its last change.
const DefaultSessionTTL = 24 * time.Hour

// DefaultWidgetBaseURL is where the widget is served when
// Options.WidgetBaseURL is empty: the path httpapi serves it under.
const DefaultWidgetBaseURL = "/v1/siw/_/"

// OrderChecker is asked before a session completes whether an order with
// the given external id may be recorded for the site. It is declared here,
// by its caller; tracking answers it through an adapter.
type OrderChecker interface {
	CheckOrder(ctx context.Context, site, externalID string) error
}

// EngineSource returns the options engine of a site.
type EngineSource interface {
	Engine(site string) (*options.Engine, error)
}

// Engines is an EngineSource over a fixed set of sites.
type Engines map[string]*options.Engine

// Engine implements EngineSource. A site without a catalog cannot open
// checkout sessions: FailedPrecondition.
func (e Engines) Engine(site string) (*options.Engine, error) {
	if en, ok := e[site]; ok {
		return en, nil
	}
	return nil, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "site %q has no delivery catalog", site)
}

// NewEngines builds one engine per catalog (config.Config.Catalogs()).
func NewEngines(catalogs map[string]*catalog.Catalog, opts options.Options) (Engines, error) {
	out := Engines{}
	for site, c := range catalogs {
		o := opts
		o.Site = site // the key of its learned lead times
		e, err := options.New(c, o)
		if err != nil {
			return nil, fmt.Errorf("catalog of site %s: %w", site, err)
		}
		out[site] = e
	}
	return out, nil
}

// Options configures a Service.
type Options struct {
	// Engines gives each site's options engine. Required.
	Engines EngineSource
	// Orders, when set, is asked before a session completes whether its
	// order number is free; its error (a Conflict naming external_id)
	// fails the completion and nothing is frozen.
	Orders OrderChecker
	// Clock and IDs default to the system clock and RandomIDs. Session
	// ids and widget tokens must be unguessable in production.
	Clock deliverykit.Clock
	IDs   deliverykit.IDSource
	// SessionTTL sets expires_at after every change. Default:
	// DefaultSessionTTL.
	SessionTTL time.Duration
	// WidgetBaseURL is where html_snippet loads the widget from, ending
	// in "/": the public https URL merchants' pages reach this service at
	// (wiring sets it from its PublicURL). Default: DefaultWidgetBaseURL, a
	// path, which works only on pages of this service's own origin.
	WidgetBaseURL string
	// CacheBytes bounds the cache of recently read sessions (an estimate
	// of the heap the cached sessions hold, with the answers GetRendered
	// keeps for them). Zero means DefaultCacheBytes; negative turns the
	// cache off.
	CacheBytes int64
	// Retention says how long sessions are kept once expired or
	// completed (Sweep); zero durations are retention's defaults.
	Retention retention.Policy
}

// Service keeps checkout shipping sessions (area C). It is safe for
// concurrent use.
type Service struct {
	store storage.Store
	// created counts the sessions created per site and day (retention.go).
	created *daycount.Pending
	engines EngineSource
	orders  OrderChecker
	clock   deliverykit.Clock
	ids     deliverykit.IDSource
	ttl     time.Duration
	base    string
	// cache keeps recently read sessions with their options, so that
	// reading a session again neither decodes nor computes anything.
	cache recordCache
	// retention and swept serve Sweep (retention.go).
	retention retention.Policy
	swept     sweepState
}

var (
	tokens   = storage.Collection[tokenRecord]{Name: "checkout.widget_tokens"}
	tosIndex = storage.Collection[string]{Name: "checkout.tos"}
	// externalIDs maps site + order external id → the completed session
	// that holds it; clones maps site + origin tos_id + session id → the
	// session created from that order.
	externalIDs = storage.Collection[string]{Name: "checkout.external_ids"}
	clones      = storage.Collection[string]{Name: "checkout.clones"}
)

// record is a session as the service works with it, stored as a
// storedSession (records.go).
type record struct {
	ID            string
	Site          string
	Status        Status
	Country       string
	Currency      string
	Locales       []string
	Cart          Cart
	SearchAddress *SearchAddress
	Customer      *Customer
	// SearchCoordinates are coordinates the merchant sent with the search
	// address (SearchAddress.Coordinates is where the service placed it).
	SearchCoordinates *Coordinates
	ExternalID        string
	Meta              Meta
	// Origin is the tos_id of the completed session this one was created
	// from (session.createFromOrder).
	Origin string
	// CollectAddresses is set when the widget collects the shopper's
	// addresses (sessions of the newer API generation, or created with
	// address_form); DeliveryAddress and BillingAddress are what the
	// shopper entered (BillingAddress nil: billed to the delivery
	// address).
	CollectAddresses bool
	DeliveryAddress  *DeliveryAddress
	BillingAddress   *BillingAddress
	// Options are the delivery options in effect. They are not stored:
	// refresh computes them and records in OptionsInput what they were
	// computed from, and load computes them again from that, exactly
	// (options.Engine.ComputeAt). A stored Result is mostly copies of the
	// catalog (location addresses and hours), many times the size of its
	// inputs, and recomputing is cheaper than decoding it (BENCHMARKS.md,
	// "Figures behind the code's choices"). A record of the
	// first format has the options it stored and no inputs
	// (upgradeSession); its next change computes them afresh.
	Options      *options.Result
	OptionsInput *optionsInput
	OptionsFor   catalog.Address
	Choice       string // option id the customer chose
	Addons       []string
	// ChoiceDropped is set when new options no longer offered the
	// customer's choice, until the customer chooses again.
	ChoiceDropped bool
	TosID         string
	WidgetToken   string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	ExpiresAt     time.Time
	CompletedAt   time.Time
	Revision      int // counts committed writes
	// Snippet names the container and global of the session's
	// html_snippet (zero: the defaults).
	Snippet SnippetConfiguration
}

// optionsInput is what a session's options were computed from, besides
// the address (record.OptionsFor) and the site's catalog.
type optionsInput struct {
	Currency   string
	Locales    []string
	CartValue  int64
	Attributes []string
	Vouchers   []string
	Quantities []int // one per cart item
	// Weights (grams per unit) and Dimensions are per cart item too,
	// absent in records written before items carried them.
	Weights    []int
	Dimensions []*catalog.Dimensions
	// At is the computation's "now": estimates and expiry depend on it.
	At time.Time
	// Coordinates are where the geocoder placed OptionsFor (nil: it
	// could not), kept so that recomputing never geocodes again.
	Coordinates *catalog.Coordinates
	// ReadyAt and TagReady are when the goods can ship (the cart's
	// shipping dates): see ShippingDate.
	ReadyAt  time.Time
	TagReady map[string]time.Time
}

// request is the options request in rebuilds, for the address addr.
func (in *optionsInput) request(addr catalog.Address) options.Request {
	req := options.Request{Currency: in.Currency, Locales: in.Locales, CartValue: in.CartValue,
		Attributes: in.Attributes, Vouchers: in.Vouchers, Address: addr, ReadyAt: in.ReadyAt, ReadyAtByTag: in.TagReady}
	for i, q := range in.Quantities {
		it := options.Item{Quantity: q}
		if i < len(in.Weights) {
			it.Weight = in.Weights[i]
		}
		if i < len(in.Dimensions) {
			it.Dimensions = in.Dimensions[i]
		}
		req.Items = append(req.Items, it)
	}
	return req
}

// tokenRecord maps a widget token to its session.
type tokenRecord struct {
	Site      string `json:"site"`
	SessionID string `json:"session_id"`
}

// New returns a Service over store.
func New(store storage.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("checkout: a store is required")
	}
	if opts.Engines == nil {
		return nil, errors.New("checkout: Options.Engines is required")
	}
	s := &Service{store: store, created: created.Pending(store), engines: opts.Engines, orders: opts.Orders,
		clock: opts.Clock, ids: opts.IDs, ttl: opts.SessionTTL, base: opts.WidgetBaseURL, retention: opts.Retention}
	if s.clock == nil {
		s.clock = deliverykit.SystemClock{}
	}
	if s.ids == nil {
		s.ids = deliverykit.RandomIDs{}
	}
	if s.ttl <= 0 {
		s.ttl = DefaultSessionTTL
	}
	if s.base == "" {
		s.base = DefaultWidgetBaseURL
	}
	if err := checkWidgetBase(s.base); err != nil {
		return nil, err
	}
	s.cache.budget = opts.CacheBytes
	if s.cache.budget == 0 {
		s.cache.budget = DefaultCacheBytes
	}
	return s, nil
}

// Create opens a session for a cart (state: none → ACTIVE) and computes
// its options.
func (s *Service) Create(ctx context.Context, site string, req CreateRequest) (*View, error) {
	// The session's options are computed in memory of the pool's: the
	// view copies what it shows of them, and the record, the only other
	// holder, is dropped here (decision 0039).
	scratch := scratches.Get().(*options.Scratch)
	defer func() {
		scratch.Reset()
		scratches.Put(scratch)
	}()
	rec, engine, err := s.create(ctx, site, req, scratch)
	if err != nil {
		return nil, err
	}
	return s.view(engine, rec), nil
}

// scratches are the options memory of Create (options.Scratch), each
// reset before it goes back.
var scratches = sync.Pool{New: func() any { return new(options.Scratch) }}

// create stores a new session and returns it with its site's engine. Its
// options are in scratch (nil: allocated): the caller must not keep the
// record past scratch's reset.
func (s *Service) create(ctx context.Context, site string, req CreateRequest, scratch *options.Scratch) (*record, *options.Engine, error) {
	if err := check(&req); err != nil {
		return nil, nil, err
	}
	locales, field := req.Locales, "locales"
	if len(locales) == 0 && req.Locale != "" {
		locales, field = []string{req.Locale}, "locale"
	}
	if len(locales) == 0 {
		return nil, nil, deliverykit.InvalidField("locales", "required", "at least one locale such as sv-SE is required")
	}
	if _, err := options.ParseLocales("locales", locales); err != nil {
		if field == "locale" {
			return nil, nil, deliverykit.InvalidField("locale", "locale", fmt.Sprintf("%q is not a locale like sv-SE (language-COUNTRY)", req.Locale))
		}
		return nil, nil, err
	}
	cart := *req.Cart
	if err := checkCart(&cart, req.PurchaseCurrency); err != nil {
		return nil, nil, err
	}
	engine, err := s.engines.Engine(site)
	if err != nil {
		return nil, nil, err
	}
	now := s.clock.Now()
	rec := record{
		ID: s.ids.NewID("siw_"), Site: site, Status: StatusActive,
		Country: req.PurchaseCountry, Currency: req.PurchaseCurrency, Locales: locales,
		Cart: cart, Customer: req.Customer, ExternalID: req.ExternalID, Meta: req.Meta, WidgetToken: s.ids.NewID("wt_"),
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.ttl), Revision: 1, CollectAddresses: req.AddressForm,
	}
	if c := req.SnippetConfiguration; c != nil {
		rec.Snippet = *c
	}
	rec.setSearchAddress(req.SearchAddress)
	if err := s.insert(ctx, engine, &rec, scratch); err != nil {
		return nil, nil, err
	}
	return &rec, engine, nil
}

// insert computes a new session's options, in scratch (nil: allocated),
// and stores it with its widget token.
func (s *Service) insert(ctx context.Context, engine *options.Engine, rec *record, scratch *options.Scratch) error {
	if err := s.refresh(ctx, engine, rec, scratch); err != nil {
		return err
	}
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		// Every key is made for this session (its id, its index entry,
		// its clone entry, its token): FreshKey lets a database store
		// check them at commit rather than wait for each (a taken one
		// still fails the create).
		if _, err := sessions.PutFrom(tx, storage.Key(rec.Site, rec.ID), rec, storage.FreshKey()); err != nil {
			return err
		}
		if err := expiry.Add(tx, storage.Key(rec.Site, rec.ID), rec.expiryEntry()); err != nil {
			return err
		}
		if rec.Origin != "" {
			if _, err := clones.Put(tx, storage.Key(rec.Site, rec.Origin, rec.ID), rec.ID, storage.FreshKey()); err != nil {
				return err
			}
		}
		if _, err := tokens.Put(tx, rec.WidgetToken, tokenRecord{Site: rec.Site, SessionID: rec.ID}, storage.FreshKey()); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkout: storing the session: %w", err)
	}
	s.created.Add(rec.Site, rec.CreatedAt)
	return nil
}

// setSearchAddress takes the merchant's search address; coordinates it
// sends are kept apart and used as given.
func (r *record) setSearchAddress(sa *SearchAddress) {
	if sa == nil {
		return
	}
	r.SearchAddress = &SearchAddress{PostalCode: sa.PostalCode, Country: cmp.Or(sa.Country, r.Country),
		Region: sa.Region, City: sa.City, AddressLines: slices.Clone(sa.AddressLines)}
	r.SearchCoordinates = nil
	if c := sa.Coordinates; c != nil {
		cc := *c
		r.SearchCoordinates = &cc
	}
}

// CreateFromOrder opens a new ACTIVE session with the cart, customer,
// search address and locales of the completed session whose tos_id is
// given (the session is "cloned by tos_id"). ExternalID and Meta, when
// given, are the new session's; Locales, when given, replace the old ones.
// The clone has no choice yet: its options are computed afresh. A tos_id
// of another site is NotFound.
func (s *Service) CreateFromOrder(ctx context.Context, site string, req CreateFromOrderRequest) (*View, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	locales := req.Locales
	if len(locales) > 0 {
		if _, err := options.ParseLocales("locales", locales); err != nil {
			return nil, err
		}
	}
	var origin record
	err := s.store.View(ctx, func(tx storage.Tx) error {
		id, err := tosIndex.Get(tx, storage.Key(site, req.TosID))
		if err != nil {
			return err
		}
		it, err := sessions.Get(tx, storage.Key(site, id.Value))
		origin = it.Value
		return err
	})
	if errors.Is(err, deliverykit.ErrNotFound) {
		return nil, &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "no completed session has this tos_id",
			Violations: []deliverykit.FieldViolation{{Field: "tos_id", Rule: "exists", Message: "is not the tos_id of a completed session of this site"}}}
	}
	if err != nil {
		return nil, fmt.Errorf("checkout: reading the order's session: %w", err)
	}
	engine, err := s.engines.Engine(site)
	if err != nil {
		return nil, err
	}
	if len(locales) == 0 {
		locales = origin.Locales
	}
	meta := req.Meta
	if meta == nil {
		meta = maps.Clone(origin.Meta)
	}
	now := s.clock.Now()
	rec := record{
		ID: s.ids.NewID("siw_"), Site: site, Status: StatusActive, Origin: req.TosID,
		Country: origin.Country, Currency: origin.Currency, Locales: locales,
		Cart: origin.Cart.clone(), Customer: origin.Customer.clone(), SearchAddress: origin.SearchAddress.clone(),
		ExternalID: req.ExternalID, Meta: meta, WidgetToken: s.ids.NewID("wt_"),
		CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(s.ttl), Revision: 1,
		CollectAddresses: origin.CollectAddresses, DeliveryAddress: origin.DeliveryAddress.clone(), BillingAddress: origin.BillingAddress.clone(),
		Snippet: origin.Snippet,
	}
	if c := req.SnippetConfiguration; c != nil {
		rec.Snippet = *c
	}
	if c := origin.SearchCoordinates; c != nil {
		cc := *c
		rec.SearchCoordinates = &cc
	}
	if err := s.insert(ctx, engine, &rec, nil); err != nil {
		return nil, err
	}
	return s.view(engine, &rec), nil
}

// MaxSummaries bounds the sessions Summaries lists.
const MaxSummaries = 100

// Summaries lists the sessions of an order: the completed session whose
// tos_id is given and the sessions created from it (CreateFromOrder),
// oldest first, at most MaxSummaries, each with its result. An unknown
// tos_id lists nothing.
func (s *Service) Summaries(ctx context.Context, site, tosID string) (*Summaries, error) {
	if tosID == "" {
		return nil, deliverykit.InvalidField("tos_id", "required", "is required")
	}
	if len(tosID) > 128 {
		return nil, deliverykit.InvalidField("tos_id", "max", "must be at most 128 characters long")
	}
	var ids []string
	err := s.store.View(ctx, func(tx storage.Tx) error {
		if it, err := tosIndex.Get(tx, storage.Key(site, tosID)); err == nil {
			ids = append(ids, it.Value)
		} else if !errors.Is(err, deliverykit.ErrNotFound) {
			return err
		}
		for it, err := range clones.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, tosID), Limit: MaxSummaries}) {
			if err != nil {
				return err
			}
			ids = append(ids, it.Value)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checkout: listing the order's sessions: %w", err)
	}
	out := &Summaries{Results: []Summary{}}
	engine, _ := s.engines.Engine(site)
	for _, id := range ids[:min(len(ids), MaxSummaries)] {
		r, err := s.loadShared(ctx, site, id)
		if errors.Is(err, deliverykit.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, Summary{SessionID: r.ID, Result: s.view(engine, r).Session.Result})
	}
	return out, nil
}

// Get returns a session.
func (s *Service) Get(ctx context.Context, site, id string) (*View, error) {
	if id == "" {
		return nil, deliverykit.InvalidField("id", "required", "is required")
	}
	r, err := s.loadShared(ctx, site, id)
	if err != nil {
		return nil, err
	}
	engine, _ := s.engines.Engine(site)
	return s.view(engine, r), nil
}

// Update replaces the cart and/or the customer of an ACTIVE session and
// refreshes its options when the cart or the address they are computed for
// changed. A customer's choice survives when its option is still offered.
func (s *Service) Update(ctx context.Context, site string, req UpdateRequest) (*View, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	if req.Cart == nil && req.Customer == nil && req.SearchAddress == nil && req.ExternalID == "" && req.Meta == nil && req.SnippetConfiguration == nil {
		return nil, deliverykit.InvalidField("cart", "required", "one of cart, customer, search_address, external_id, meta and snippet_configuration is required")
	}
	rec, engine, err := s.update(ctx, site, req)
	if err != nil {
		return nil, err
	}
	return s.view(engine, rec), nil
}

// update applies a checked update request.
func (s *Service) update(ctx context.Context, site string, req UpdateRequest) (*record, *options.Engine, error) {
	var cart Cart
	if req.Cart != nil {
		cart = *req.Cart
	}
	return s.modify(ctx, site, req.ID, func(r *record) (bool, error) {
		changed := false
		if req.Cart != nil {
			if err := checkCart(&cart, r.Currency); err != nil {
				return false, err
			}
			r.Cart = cart
			changed = true
		}
		if req.Customer != nil {
			r.Customer = req.Customer
		}
		if req.SearchAddress != nil {
			r.setSearchAddress(req.SearchAddress)
		}
		if req.ExternalID != "" {
			r.ExternalID = req.ExternalID
		}
		if req.Meta != nil {
			r.Meta = req.Meta
		}
		if req.SnippetConfiguration != nil {
			r.Snippet = *req.SnippetConfiguration
		}
		return changed, nil
	}, nil)
}

// Complete freezes the session (ACTIVE → COMPLETE) with the customer
// (given here or by an earlier update) and returns its tos_id. A session
// whose shopper entered the delivery address in the widget (created with
// address_form, or by the newer generation) completes without a customer
// address, as CompleteCheckout does: the order's receiver is then the
// widget's address. Without either it is InvalidArgument naming customer
// (or customer.address). When the
// customer made no choice, the preselected option for the customer's
// address is taken. The completing write also writes an
// event.OrderCompleted to the outbox, so the order is tracked (and
// returnable) once it commits, whatever happens after.
func (s *Service) Complete(ctx context.Context, site string, req CompleteRequest) (*Completed, error) {
	if err := check(&req); err != nil {
		return nil, err
	}
	rec, engine, err := s.complete(ctx, site, req.ID, "customer.address", func(r *record) error {
		if req.Customer != nil {
			r.Customer = req.Customer
		}
		if req.ExternalID != "" {
			r.ExternalID = req.ExternalID
		}
		if c := r.Customer; (c == nil || c.Address == nil) && r.DeliveryAddress != nil {
			// The shopper's own address, checked by the widget's
			// form, is the receiver (see orderCompleted).
			return nil
		}
		return customerComplete(r.Customer)
	})
	if err != nil {
		return nil, err
	}
	v := s.view(engine, rec)
	return &Completed{Session: v.Session, TosID: rec.TosID}, nil
}

// customerComplete refuses a customer without the address a completion
// needs.
func customerComplete(c *Customer) error {
	if c == nil {
		return deliverykit.InvalidField("customer", "required", "the customer is required to complete a session")
	}
	if c.Address == nil {
		return deliverykit.InvalidField("customer.address", "required", "the customer's address is required to complete a session")
	}
	var vs []deliverykit.FieldViolation
	if c.Address.Country == "" {
		vs = append(vs, deliverykit.FieldViolation{Field: "customer.address.country", Rule: "required", Message: "is required"})
	}
	if strings.TrimSpace(c.Address.PostalCode) == "" {
		vs = append(vs, deliverykit.FieldViolation{Field: "customer.address.postal_code", Rule: "required", Message: "is required"})
	}
	if len(vs) > 0 {
		return deliverykit.Invalid(vs...)
	}
	return nil
}

// complete is the completion both API generations share: prepare takes
// the call's customer and order number and refuses what cannot complete;
// then the order number is checked, options are made fresh for the
// receiver's address (named by field when none is offered for it), and
// the session is frozen with its tos_id and event.OrderCompleted.
func (s *Service) complete(ctx context.Context, site, id, field string, prepare func(*record) error) (*record, *options.Engine, error) {
	var tos string
	return s.modify(ctx, site, id, func(r *record) (bool, error) {
		if err := prepare(r); err != nil {
			return false, err
		}
		// Checked before anything is frozen: a merchant order number that
		// is already another order's is the caller's 409, not a
		// completed session without a tracking order.
		if s.orders != nil {
			if err := s.orders.CheckOrder(ctx, site, r.orderExternalID()); err != nil {
				// The order may be this very session's, completed by a
				// concurrent call since it was read: that call won, and
				// this one is told to repeat (and then hears the session
				// is completed), as any other lost race is.
				if deliverykit.KindOf(err) == deliverykit.KindConflict && s.changedSince(ctx, site, id, r.Revision) {
					return false, errConflict
				}
				return false, err
			}
		}
		tos = s.ids.NewID("tos_")
		return false, nil
	}, func(r *record, now time.Time) error {
		// Runs after the options are fresh for the receiver's address.
		if r.Options == nil || r.Options.Preselected == "" {
			return &deliverykit.Error{Kind: deliverykit.KindFailedPrecondition,
				Message:    "no delivery option is available for the customer's address",
				Violations: []deliverykit.FieldViolation{{Field: field, Rule: "deliverable", Message: "no delivery option is offered for this address"}}}
		}
		r.Status = StatusComplete
		r.TosID = tos
		r.CompletedAt = now
		return nil
	})
}

// errConflict is what a lost compare-and-set becomes: the HTTP adapter
// answers 409 and clients repeat the call.
var errConflict = deliverykit.E(deliverykit.KindConflict, "the session was changed by a concurrent call; repeat the call")

// modify is the read → compute → compare-and-set cycle every change goes
// through. change edits a copy of the record and reports whether the cart
// changed; options are recomputed (outside the write transaction) when it
// did, when the address they are for changed, or when they expired. final,
// if set, runs after that. The write succeeds only if the record still has
// the version that was read; otherwise the caller gets Conflict.
func (s *Service) modify(ctx context.Context, site, id string, change func(*record) (bool, error), final func(*record, time.Time) error) (*record, *options.Engine, error) {
	if id == "" {
		return nil, nil, deliverykit.InvalidField("id", "required", "is required")
	}
	it, err := s.load(ctx, site, id)
	if err != nil {
		return nil, nil, err
	}
	rec := it.Value
	now := s.clock.Now()
	if err := writable(&rec, now); err != nil {
		return nil, nil, err
	}
	engine, err := s.engines.Engine(site)
	if err != nil {
		return nil, nil, err
	}
	cartChanged, err := change(&rec)
	if err != nil {
		return nil, nil, err
	}
	if cartChanged || !sameAddress(rec.OptionsFor, rec.optionsAddress()) || rec.optionsExpired(now) {
		if err := s.refresh(ctx, engine, &rec, nil); err != nil {
			return nil, nil, err
		}
	}
	if final != nil {
		if err := final(&rec, now); err != nil {
			return nil, nil, err
		}
	}
	rec.Revision++
	rec.UpdatedAt = now
	if rec.Status == StatusActive {
		rec.ExpiresAt = now.Add(s.ttl)
	}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if _, err := sessions.Put(tx, storage.Key(site, id), rec, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		if err := expiry.Move(tx, storage.Key(site, id), it.Value.expiryEntry(), rec.expiryEntry()); err != nil {
			return err
		}
		if rec.Status == StatusComplete {
			if _, err := tosIndex.Put(tx, storage.Key(site, rec.TosID), rec.ID, storage.MustNotExist()); err != nil {
				return err
			}
			if err := claimExternalID(tx, &rec); err != nil {
				return err
			}
			return s.emitCompleted(tx, &rec)
		}
		return nil
	})
	if errors.Is(err, errExternalIDTaken) {
		return nil, nil, &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "external_id is already another session's order",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "is already the order number of another completed session"}}}
	}
	if errors.Is(err, deliverykit.ErrConflict) {
		return nil, nil, errConflict
	}
	if err != nil {
		return nil, nil, fmt.Errorf("checkout: storing the session: %w", err)
	}
	return &rec, engine, nil
}

// errExternalIDTaken is what claimExternalID returns inside the write.
var errExternalIDTaken = errors.New("checkout: external id taken")

// claimExternalID records, in the completing write, that the session's
// order number is its own; another completed session holding it already
// fails the write. Completions racing for one number thus cannot both
// succeed, whatever the recorder later does.
func claimExternalID(tx storage.Tx, r *record) error {
	key := storage.Key(r.Site, r.orderExternalID())
	it, err := externalIDs.Get(tx, key)
	switch {
	case err == nil && it.Value != r.ID:
		return errExternalIDTaken
	case err == nil:
		return nil
	case !errors.Is(err, deliverykit.ErrNotFound):
		return err
	}
	_, err = externalIDs.Put(tx, key, r.ID, storage.MustNotExist())
	return err
}

// orderExternalID is the external id the session's order gets: the
// merchant's order number, else its cart id, else the tos_id.
func (r *record) orderExternalID() string {
	return cmp.Or(r.ExternalID, r.Cart.CartID, r.TosID)
}

// load reads a session for a change: a record of its own, which the
// caller may modify, with its options computed again from what they were
// computed from (outside the read transaction) or taken from the cache.
// It never puts the record into the cache: the caller goes on to modify
// it, and a cached record is shared by readers.
func (s *Service) load(ctx context.Context, site, id string) (storage.Item[record], error) {
	key := storage.Key(site, id)
	raw, err := s.read(ctx, key, id)
	if err != nil {
		return storage.Item[record]{}, err
	}
	it, err := sessions.Decode(raw)
	if err != nil {
		return it, fmt.Errorf("checkout: loading the session: %w", err)
	}
	if cached := s.cache.get(key, it.Version); cached != nil {
		it.Value.Options = cached.Options
		return it, nil
	}
	if err := s.restoreOptions(site, &it.Value); err != nil {
		return it, err
	}
	return it, nil
}

// loadShared reads a session for reading only: the record may be shared
// with other readers through the cache and must not be modified. A session
// read again soon after it was read costs a lookup of its
// version, without decoding or computing anything.
func (s *Service) loadShared(ctx context.Context, site, id string) (*record, error) {
	key := storage.Key(site, id)
	raw, err := s.read(ctx, key, id)
	if err != nil {
		return nil, err
	}
	return s.shared(site, key, raw, cacheable(ctx))
}

// cacheable reports whether what ctx reads may be cached: not inside an
// idempotency unit, whose writes are not committed yet. Were the unit
// rolled back, the version it wrote could be drawn again for other
// content, and a cached entry keyed by that version would be stale.
func cacheable(ctx context.Context) bool { return !idempotency.InUnit(ctx) }

// shared is loadShared once the stored session is read; keep says
// whether the record may go into the cache.
func (s *Service) shared(site, key string, raw storage.Record, keep bool) (*record, error) {
	if cached := s.cache.get(key, raw.Version); cached != nil {
		return cached, nil
	}
	it, err := sessions.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("checkout: loading the session: %w", err)
	}
	if err := s.restoreOptions(site, &it.Value); err != nil {
		return nil, err
	}
	if !keep {
		return &it.Value, nil
	}
	return s.cache.put(key, it.Version, &it.Value, len(raw.Value)), nil
}

// changedSince reports whether the stored session is no longer at
// revision, read past the cache.
func (s *Service) changedSince(ctx context.Context, site, id string, revision int) bool {
	raw, err := s.read(ctx, storage.Key(site, id), id)
	if err != nil {
		return false
	}
	it, err := sessions.Decode(raw)
	return err == nil && it.Value.Revision != revision
}

// read returns the stored, still encoded session. It is the one read of
// session.get and of the start of every change, so it reads with
// storage.Get: one statement on a store that offers it (PostgreSQL),
// where a View costs two round trips.
func (s *Service) read(ctx context.Context, key, id string) (storage.Record, error) {
	raw, err := storage.Get(ctx, s.store, sessions.Name, key)
	if errors.Is(err, deliverykit.ErrNotFound) {
		return raw, &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "no such session",
			Violations: []deliverykit.FieldViolation{{Field: "id", Rule: "exists", Message: fmt.Sprintf("no session has id %q", id)}}}
	}
	if err != nil {
		return raw, fmt.Errorf("checkout: loading the session: %w", err)
	}
	return raw, nil
}

// restoreOptions sets r.Options from r.OptionsInput. A record of the first
// format has none and keeps the options it stored.
func (s *Service) restoreOptions(site string, r *record) error {
	in := r.OptionsInput
	if in == nil {
		return nil
	}
	engine, err := s.engines.Engine(site)
	if err != nil {
		return err
	}
	res, err := engine.ComputeAt(in.request(r.OptionsFor), in.At, in.Coordinates)
	if err != nil {
		return deliverykit.Errorf(deliverykit.KindInternal, "checkout: recomputing the options of session %s: %w", r.ID, err)
	}
	r.Options = res
	return nil
}

// writable refuses changes to completed and expired sessions. A completed
// session answers PermissionDenied (HTTP 403), which existing clients of
// this API handle; it is never a silent no-op.
func writable(r *record, now time.Time) error {
	if r.Status == StatusComplete {
		return deliverykit.Errorf(deliverykit.KindPermissionDenied, "the session is completed (tos_id %s) and cannot be modified", r.TosID)
	}
	if !now.Before(r.ExpiresAt) {
		return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the session expired at %s; create a new one", r.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// checkCart fills the cart currency from the session and refuses another.
// It lower-cases the vouchers, folds the older single voucher into them
// and drops repeats.
func checkCart(c *Cart, currency string) error {
	if c.Currency == "" {
		c.Currency = currency
	}
	if c.Currency != currency {
		return deliverykit.InvalidField("cart.currency", "eqfield", fmt.Sprintf("must be the purchase currency %s", currency))
	}
	// The list is made at the first voucher: a cart without any
	// allocates nothing here.
	var vs []string
	add := func(v string) {
		v = strings.ToLower(strings.TrimSpace(v))
		if v != "" && !slices.Contains(vs, v) {
			if vs == nil {
				vs = make([]string, 0, len(c.Vouchers)+1)
			}
			vs = append(vs, v)
		}
	}
	for _, v := range c.Vouchers {
		add(v)
	}
	add(c.Voucher)
	c.Vouchers, c.Voucher = vs, ""
	if err := checkShippingDate("cart.shipping_date", c.ShippingDate); err != nil {
		return err
	}
	for i := range c.Items {
		// The field's name is made only for an item with a date: it
		// is one string per item otherwise.
		if d := c.Items[i].ShippingDate; d != nil {
			if err := checkShippingDate(fmt.Sprintf("cart.items[%d].shipping_date", i), d); err != nil {
				return err
			}
		}
	}
	return nil
}

// optionsAddress is where options are computed for: the customer's
// address once known, else the delivery address the shopper entered in
// the widget, else the search address, else the purchase country.
// Coordinates the merchant sent with that address place it.
func (r *record) optionsAddress() catalog.Address {
	if c := r.Customer; c != nil && c.Address != nil && c.Address.Country != "" {
		return catalog.Address{Country: c.Address.Country, PostalCode: c.Address.PostalCode, City: c.Address.City,
			Coordinates: copyCoordinates(c.Address.Coordinates)}
	}
	if d := r.DeliveryAddress; d != nil {
		return catalog.Address{Country: d.Country, PostalCode: d.PostalCode, City: d.City, Coordinates: copyCoordinates(d.Coordinates)}
	}
	if sa := r.SearchAddress; sa != nil {
		return catalog.Address{Country: cmp.Or(sa.Country, r.Country), PostalCode: sa.PostalCode, City: sa.City,
			Coordinates: copyCoordinates(r.SearchCoordinates)}
	}
	return catalog.Address{Country: r.Country}
}

// copyCoordinates copies c, so that the options' address never shares the
// record's coordinates.
func copyCoordinates(c *Coordinates) *Coordinates {
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}

func sameAddress(a, b catalog.Address) bool {
	return strings.EqualFold(a.Country, b.Country) && catalog.NormalizePostalCode(a.PostalCode) == catalog.NormalizePostalCode(b.PostalCode) &&
		sameCoordinates(a.Coordinates, b.Coordinates)
}

func sameCoordinates(a, b *catalog.Coordinates) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// optionsExpired reports whether the options must be computed again
// before a write: when the first option expired, and always for options
// without inputs (a record of the first format), so that every record
// written has its inputs.
func (r *record) optionsExpired(now time.Time) bool {
	if r.Options == nil || r.OptionsInput == nil {
		return true
	}
	for _, c := range r.Options.Categories {
		for _, o := range c.Options {
			return !now.Before(o.ExpireTime)
		}
	}
	return false
}

// refresh recomputes the options, in scratch (nil: allocated; see
// options.Scratch), and keeps the customer's choice (and its addons) only
// if that option is still offered.
func (s *Service) refresh(ctx context.Context, engine *options.Engine, r *record, scratch *options.Scratch) error {
	addr := r.optionsAddress()
	// The inputs and where the address was placed are kept together:
	// one allocation.
	b := new(struct {
		in optionsInput
		at catalog.Coordinates
	})
	in := &b.in
	*in = optionsInput{Currency: r.Currency, Locales: r.Locales, CartValue: r.Cart.TotalValue, At: engine.Now(),
		Vouchers: r.Cart.Vouchers, Attributes: slices.Clone(r.Cart.Attributes)}
	in.ReadyAt, in.TagReady = readiness(&r.Cart)
	weighed := slices.ContainsFunc(r.Cart.Items, func(it CartItem) bool { return it.Weight > 0 || it.Dimensions != nil })
	for _, it := range r.Cart.Items {
		in.Quantities = append(in.Quantities, int(it.Quantity))
		if weighed {
			in.Weights = append(in.Weights, int(it.Weight))
			var d *catalog.Dimensions
			if it.Dimensions != nil {
				d = &catalog.Dimensions{Height: int(it.Dimensions.Height), Length: int(it.Dimensions.Length), Width: int(it.Dimensions.Width)}
			}
			in.Dimensions = append(in.Dimensions, d)
		}
		for _, a := range it.Attributes {
			if !slices.Contains(in.Attributes, a) {
				in.Attributes = append(in.Attributes, a)
			}
		}
	}
	// Geocoded once, here; later the options are computed from the
	// stored inputs alone.
	res, err := engine.ComputeForIn(ctx, in.request(addr), in.At, scratch)
	if err != nil {
		return err
	}
	if c := res.Coordinates; c != nil {
		b.at = catalog.Coordinates{Lat: c.Lat, Lng: c.Lng}
		in.Coordinates = &b.at
	}
	r.Options = res
	r.OptionsInput = in
	r.OptionsFor = addr
	if sa := r.SearchAddress; sa != nil && sameAddress(addr, catalog.Address{Country: cmp.Or(sa.Country, r.Country),
		PostalCode: sa.PostalCode, Coordinates: copyCoordinates(r.SearchCoordinates)}) {
		sa.Coordinates = nil
		if res.Coordinates != nil {
			sa.Coordinates = &Coordinates{Lat: res.Coordinates.Lat, Lng: res.Coordinates.Lng}
		}
	}
	if r.Choice != "" {
		cat, _, ok := res.Option(r.Choice)
		if !ok {
			r.Choice, r.Addons, r.ChoiceDropped = "", nil, true
			return nil
		}
		r.Addons = slices.DeleteFunc(r.Addons, func(id string) bool {
			return !slices.ContainsFunc(cat.Addons, func(a options.Addon) bool { return a.ID == id })
		})
	}
	return nil
}

// chosen returns the category, option and addons in effect: the
// customer's choice, else the preselected option with its category's
// preselected addons.
func (r *record) chosen() (*options.Category, *options.Option, []options.Addon) {
	if r.Options == nil {
		return nil, nil, nil
	}
	id := cmp.Or(r.Choice, r.Options.Preselected)
	cat, opt, ok := r.Options.Option(id)
	if !ok {
		return nil, nil, nil
	}
	var addons []options.Addon
	for _, a := range cat.Addons {
		if r.Choice != "" && slices.Contains(r.Addons, a.ID) || r.Choice == "" && a.Preselected {
			addons = append(addons, a)
		}
	}
	return cat, opt, addons
}

// selection says how the chosen option, of category cat, came to be.
func (r *record) selection(cat *options.Category) Selection {
	switch {
	case r.Choice != "":
		return SelectionUser
	case cat.Fallback && r.ChoiceDropped:
		return SelectionFallbackFromUser
	case cat.Fallback:
		return SelectionFallbackFromPreselected
	}
	return SelectionPreselected
}

// checkWidgetBase accepts an absolute http(s) URL or an absolute path,
// ending in "/": the snippet loads <base>widget.js.
func checkWidgetBase(base string) error {
	u, err := url.Parse(base)
	switch {
	case err != nil:
		return fmt.Errorf("checkout: Options.WidgetBaseURL: %w", err)
	case !strings.HasSuffix(base, "/"):
		return fmt.Errorf("checkout: Options.WidgetBaseURL %q must end in /", base)
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(base, "/") && !strings.HasPrefix(base, "//"):
		return nil
	case (u.Scheme == "https" || u.Scheme == "http") && u.Host != "":
		return nil
	}
	return fmt.Errorf("checkout: Options.WidgetBaseURL %q must be an http(s) URL or a path", base)
}

// WidgetBaseURL returns where html_snippet loads the widget from. An HTTP
// adapter that sees a path (the default) makes it absolute with the
// request's origin, so the snippet works on the merchant's own domain.
func (s *Service) WidgetBaseURL() string { return s.base }
