package tracking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
	"golang.org/x/text/language"
)

// PagePath is the path of the customer tracking page, under which the
// portal link puts the order's token: PortalURL + PagePath + token.
const PagePath = "/v1/delivery_tracking/_/page/"

// Defaults of Options.
const (
	DefaultPortalURL            = "http://127.0.0.1:8080"
	DefaultCarrierFallbackAfter = 48 * time.Hour
	DefaultMaxOrders            = 100
	// DefaultLinkLifetime is how long a tracking link works: delivery
	// takes days to weeks, and a customer may come back to the page
	// during a 30-day return window and the return's own transit. Past
	// that, a link forwarded or left in an old mailbox should no longer
	// show the customer's name, address and goods.
	DefaultLinkLifetime = 90 * 24 * time.Hour
)

// Site is what tracking shows about a merchant site.
type Site struct {
	// Name is site_name and the default sender_name.
	Name string
	// MerchantLink, when set, is the merchant's own tracking page; it is
	// returned as MERCHANT_PROVIDED_LINK. The placeholders {external_id},
	// {tos_id} and {locale} are replaced by the query-escaped values; a
	// query parameter that is only a placeholder without a value is left
	// out (see catalog.FillURL).
	MerchantLink string
	// TimeZone is the IANA zone ("Europe/Stockholm") of the site's
	// orders whose destination is in no country of the zone table (see
	// PrivateOrder.TimeZone): the zone of the catalog's warehouse.
	// Optional; New refuses an unknown zone.
	TimeZone string
}

// Options configures a Service. Products is required.
type Options struct {
	// Products resolves carrier_product_ref. Required.
	Products Products
	// PickupPoints adds the catalog's pickup instructions and opening
	// hours in words to a parcel's location. Default: Products, when it
	// is also a PickupPoints (CatalogProducts is); else none.
	PickupPoints PickupPoints
	// Sites names the merchant sites; a site missing here has no name
	// and no merchant link.
	Sites map[string]Site
	// PortalURL is the scheme and host (and optional path prefix) of
	// the customer tracking page links. Default DefaultPortalURL.
	PortalURL string
	// CarrierFallbackAfter is how long after its registration a parcel
	// without any carrier event is shown with carrier_fallback_enabled.
	// Default DefaultCarrierFallbackAfter.
	CarrierFallbackAfter time.Duration
	// MaxOrders caps GET /orders without external_id. Default
	// DefaultMaxOrders.
	MaxOrders int
	// LinkLifetime is how long a tracking link (its token) works after it
	// was last handed out: when the order was registered, when
	// GenerateLink returned it, or when a parcel change was written to the
	// outbox (whose notifications carry the link). An expired link
	// shows a page saying so, never the order. Default
	// DefaultLinkLifetime.
	LinkLifetime time.Duration
	// Retention says how long orders are kept after their last activity
	// (Retention.Tracking; see Sweep). Default: every default of
	// retention.Policy.
	Retention retention.Policy
	// Clock and IDs default to the system clock and RandomIDs. Tokens
	// come from IDs: in production it must be RandomIDs.
	Clock deliverykit.Clock
	IDs   deliverykit.IDSource
}

// Service keeps tracking orders, parcels, their progress and the tokens of
// tracking links. It is safe for concurrent use.
type Service struct {
	store storage.Store
	opts  Options
	swept sweepState
	// orderCache and parcelCache keep the records GET /parcels decoded,
	// by stored version (readcache.go).
	orderCache  readCache[orderRecord]
	parcelCache readCache[parcelRecord]
	// answers keeps GET /parcels' rendered answers (rendered.go).
	answers answerCache
}

// New returns a Service on store.
func New(store storage.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("tracking: store is required")
	}
	if opts.Products == nil {
		return nil, errors.New("tracking: Options.Products is required")
	}
	if opts.Clock == nil {
		opts.Clock = deliverykit.SystemClock{}
	}
	if opts.IDs == nil {
		opts.IDs = deliverykit.RandomIDs{}
	}
	if opts.PickupPoints == nil {
		opts.PickupPoints, _ = opts.Products.(PickupPoints)
	}
	if opts.PortalURL == "" {
		opts.PortalURL = DefaultPortalURL
	}
	opts.PortalURL = strings.TrimRight(opts.PortalURL, "/")
	if opts.CarrierFallbackAfter <= 0 {
		opts.CarrierFallbackAfter = DefaultCarrierFallbackAfter
	}
	if opts.MaxOrders <= 0 {
		opts.MaxOrders = DefaultMaxOrders
	}
	if opts.LinkLifetime <= 0 {
		opts.LinkLifetime = DefaultLinkLifetime
	}
	for id, site := range opts.Sites {
		if site.TimeZone != "" {
			if _, err := time.LoadLocation(site.TimeZone); err != nil {
				return nil, fmt.Errorf("tracking: Options.Sites[%q].TimeZone: %w", id, err)
			}
		}
	}
	s := &Service{store: store, opts: opts}
	s.orderCache.Budget, s.parcelCache.Budget = ReadCacheBytes, ReadCacheBytes
	s.answers.limit()
	return s, nil
}

// Orders and parcels as the service works with them: stored as a
// storedOrder and a storedParcel (records.go). Keys start with the site,
// except tokens, which are globally unique and are the only thing a
// customer page request carries.
type orderRecord struct {
	TosID       string
	AnalyticsID string
	Token       string
	Request     CreateTrackingOrderRequest
	CreatedAt   time.Time
	// ActiveAt is the order's last activity (retention.go).
	ActiveAt time.Time
	Parcels  []parcelRef
	// LinkTokens are extra links to the order, handed out for booked
	// shipment parcels; rotating the order's link retires them.
	LinkTokens []string
	// Cancelled are the cancelled quantities of the cart's SKUs, by SKU.
	Cancelled []CancelledLine
}

type parcelRef struct {
	TrackingNumber string `json:"tracking_number"`
	CarrierID      string `json:"carrier_id"`
}

type parcelRecord struct {
	TosID     string
	CarrierID string
	Index     int32
	Request   CreateParcelRequest
	CreatedAt time.Time
	// Progress is sorted by time; equal times keep arrival order.
	Progress []ProgressItem
	// Alerts are the reported and event-derived alerts, by created_at.
	// Delay alerts are derived when read (see deriveAlerts).
	Alerts []Alert
	// Exceptions are the carrier's exceptions, by created_at.
	Exceptions []ParcelException
	// Estimate is the carrier's latest delivery estimate, if any.
	Estimate    *DateTimeRange
	LastEventAt time.Time
}

type tokenRecord struct {
	Site  string `json:"site"`
	TosID string `json:"tos_id"`
	// ExpiresAt is when the link stops working. Tokens stored before
	// links expired have none: they expire LinkLifetime after their
	// order's registration.
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// TrackingNumber is the parcel the link points at (a booked
	// shipment parcel's link); empty for the order's own link.
	TrackingNumber string `json:"tracking_number,omitempty"`
}

type idRecord struct {
	TosID string `json:"tos_id"`
}

var (
	ordersByExtID   = storage.Collection[idRecord]{Name: "tracking.orders_by_external_id"}
	ordersByEmail   = storage.Collection[idRecord]{Name: "tracking.orders_by_email"}
	tokens          = storage.Collection[tokenRecord]{Name: "tracking.tokens"}
	errOrderMissing = deliverykit.E(deliverykit.KindNotFound, "tracking order not found")
)

func parcelKey(site, trackingNumber, carrierID string) string {
	return storage.Key(site, trackingNumber, carrierID)
}

// CreateOrder registers a tracking order and returns its id (tos_id).
// Registering the same external_id again with an identical request returns
// the first id; a different request for a known external_id is a Conflict,
// so that a retried call never duplicates an order and a reused external id
// never silently replaces one.
func (s *Service) CreateOrder(ctx context.Context, site string, req CreateTrackingOrderRequest) (string, error) {
	return s.createOrder(ctx, site, "", req)
}

// RecordOrder registers an order under an id the caller chose: the tos_id
// of a completed checkout or delivery session, so that the id the customer
// and merchant already hold is the tracking order's id. It is idempotent
// by tos_id: recording the same order again changes nothing; a different
// order under a known tos_id or external_id is a Conflict. Checkout,
// delivery sessions and shipment declare their own recorder interfaces;
// the caller adapts them to this method.
func (s *Service) RecordOrder(ctx context.Context, site, tosID string, req CreateTrackingOrderRequest) error {
	if tosID == "" || strings.Contains(tosID, storage.KeySep) {
		return deliverykit.InvalidField("tos_id", "required", "is required")
	}
	_, err := s.createOrder(ctx, site, tosID, req)
	return err
}

func (s *Service) createOrder(ctx context.Context, site, tosID string, req CreateTrackingOrderRequest) (string, error) {
	if err := checkSite(site, &req.SiteID); err != nil {
		return "", err
	}
	if err := check(&req, orderRules(&req)); err != nil {
		return "", err
	}
	if _, ok := s.opts.Products.Product(site, req.CarrierProductRef); !ok {
		return "", deliverykit.InvalidField("carrier_product_ref", "known", "is not a carrier product of the site's catalog")
	}
	given := tosID != ""
	if !given {
		tosID = s.opts.IDs.NewID("tos_")
	}
	rec := orderRecord{
		TosID:       tosID,
		AnalyticsID: s.opts.IDs.NewID("an_"),
		Token:       s.opts.IDs.NewID("tt_"),
		Request:     req,
		CreatedAt:   s.opts.Clock.Now().UTC(),
	}
	rec.ActiveAt = rec.CreatedAt
	expires := rec.CreatedAt.Add(s.opts.LinkLifetime)
	id := rec.TosID
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		extKey := storage.Key(site, req.ExternalID)
		if ex, err := ordersByExtID.Get(tx, extKey); err == nil {
			old, err := orders.Get(tx, storage.Key(site, ex.Value.TosID))
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(normalized(old.Value.Request), normalized(req)) {
				return deliverykit.Errorf(deliverykit.KindConflict, "external_id %q is already registered with different content", req.ExternalID)
			}
			if given && old.Value.TosID != rec.TosID {
				return deliverykit.Errorf(deliverykit.KindConflict, "external_id %q is already registered under another tos_id", req.ExternalID)
			}
			id = old.Value.TosID
			return nil
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if given {
			if _, err := orders.Get(tx, storage.Key(site, rec.TosID)); err == nil {
				return deliverykit.Errorf(deliverykit.KindConflict, "tos_id %q is already registered for another external_id", rec.TosID)
			} else if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
		id = rec.TosID
		if _, err := orders.Put(tx, storage.Key(site, rec.TosID), rec, storage.MustNotExist()); err != nil {
			return err
		}
		if _, err := ordersByExtID.Put(tx, extKey, idRecord{TosID: rec.TosID}, storage.MustNotExist()); err != nil {
			return err
		}
		if email := strings.ToLower(req.Receiver.Email); email != "" {
			if _, err := ordersByEmail.Put(tx, storage.Key(site, email, rec.TosID), idRecord{TosID: rec.TosID}, storage.AnyVersion); err != nil {
				return err
			}
		}
		if err := expiry.Move(tx, storage.Key(site, rec.TosID), retention.Entry{}, rec.expiryEntry()); err != nil {
			return err
		}
		return putToken(tx, rec.Token, tokenRecord{Site: site, TosID: rec.TosID, ExpiresAt: expires})
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// normalized makes a request comparable with a stored one.
func normalized(r CreateTrackingOrderRequest) CreateTrackingOrderRequest { return roundTrip(r) }

// roundTrip returns v as storage returns it, after JSON encoding: empty and
// absent collections become the same, numbers in free objects become
// float64. Comparing two round-tripped values compares what was sent.
func roundTrip[T any](v T) T {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}

// CreateParcel registers a parcel of an order. The order (tos_id) must be
// the site's; delivery_type defaults to the order's (or, for an order of
// type UNKNOWN, to the product's). A tracking number is unique per site and
// carrier: repeating an identical registration is accepted and changes
// nothing, a different one is a Conflict. The transaction that stores the
// parcel writes its event.ParcelRegistered.
func (s *Service) CreateParcel(ctx context.Context, site string, req CreateParcelRequest) error {
	return s.createParcel(ctx, site, req, true)
}

// createParcel is CreateParcel; announce writes the parcel.registered.
func (s *Service) createParcel(ctx context.Context, site string, req CreateParcelRequest, announce bool) error {
	if err := checkSite(site, &req.SiteID); err != nil {
		return err
	}
	if err := check(&req, nil); err != nil {
		return err
	}
	prod, ok := s.opts.Products.Product(site, req.CarrierProductRef)
	if !ok {
		return deliverykit.InvalidField("carrier_product_ref", "known", "is not a carrier product of the site's catalog")
	}
	now := s.opts.Clock.Now().UTC()
	return s.store.Update(ctx, func(tx storage.Tx) error {
		ord, err := orders.Get(tx, storage.Key(site, req.TosID))
		if errors.Is(err, storage.ErrNotFound) {
			return &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "tracking order not found",
				Violations: []deliverykit.FieldViolation{violation("tos_id", "exists", "names no tracking order of the site")}}
		}
		if err != nil {
			return err
		}
		r := req
		if r.DeliveryType == "" {
			r.DeliveryType = parcelTypeOf(ord.Value.Request.DeliveryType, prod.DeliveryType)
		}
		key := parcelKey(site, r.TrackingNumber, prod.CarrierID)
		if old, err := parcels.Get(tx, key); err == nil {
			if old.Value.TosID == r.TosID && reflect.DeepEqual(roundTrip(old.Value.Request), roundTrip(r)) {
				return nil
			}
			return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "tracking number already registered for this carrier",
				Violations: []deliverykit.FieldViolation{violation("tracking_number", "unique", "is already registered for this carrier with different content")}}
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		o := ord.Value
		rec := parcelRecord{TosID: o.TosID, CarrierID: prod.CarrierID, Index: int32(len(o.Parcels)), Request: r, CreatedAt: now}
		if _, err := parcels.Put(tx, key, rec, storage.MustNotExist()); err != nil {
			return err
		}
		o.Parcels = append(o.Parcels, parcelRef{TrackingNumber: r.TrackingNumber, CarrierID: prod.CarrierID})
		if err := o.active(tx, ord.Key, now); err != nil {
			return err
		}
		if _, err = orders.Put(tx, ord.Key, o, storage.VersionIs(ord.Version)); err != nil || !announce {
			return err
		}
		ev, err := event.New("", site, r.TrackingNumber, now, event.ParcelRegistered{TosID: o.TosID, OrderExternalID: o.Request.ExternalID,
			TrackingNumber: r.TrackingNumber, ProductRef: r.CarrierProductRef, Direction: string(r.DirectionType), DeliveryType: string(r.DeliveryType),
			RegisteredAt: now})
		if err != nil {
			return err
		}
		return outbox.Add(tx, ev)
	})
}

// parcelTypeOf maps an order's delivery type to the parcel default.
func parcelTypeOf(t OrderDeliveryType, product DeliveryType) DeliveryType {
	switch t {
	case OrderDeliveryDelivery:
		return DeliveryDelivery
	case OrderDeliveryPickup:
		return DeliveryPickup
	case OrderDeliveryInstore:
		return DeliveryInstore
	}
	if product != "" {
		return product
	}
	return DeliveryUnknown
}

// getOrder reads an order of site by tos_id or, failing that, external id.
func getOrder(tx storage.Tx, site, id string) (storage.Item[orderRecord], error) {
	it, err := orders.Get(tx, storage.Key(site, id))
	if err == nil || !errors.Is(err, storage.ErrNotFound) {
		return it, err
	}
	return orderByExternalID(tx, site, id)
}

func orderByExternalID(tx storage.Tx, site, ext string) (storage.Item[orderRecord], error) {
	ix, err := ordersByExtID.Get(tx, storage.Key(site, ext))
	if errors.Is(err, storage.ErrNotFound) {
		return storage.Item[orderRecord]{}, errOrderMissing
	}
	if err != nil {
		return storage.Item[orderRecord]{}, err
	}
	return orders.Get(tx, storage.Key(site, ix.Value.TosID))
}

// parcelsByNumber returns the site's parcels with the tracking number (one
// per carrier that uses it), by an index range of the parcel keys.
// parcelsPerNumber bounds the parcels a tracking number is read for (one
// per carrier using it).
const parcelsPerNumber = 16

func parcelsByNumber(tx storage.Tx, site, trackingNumber string) ([]storage.Item[parcelRecord], error) {
	var out []storage.Item[parcelRecord]
	for it, err := range parcels.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, trackingNumber), Limit: parcelsPerNumber}) {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// portalLink is the customer page of the order in the locale.
func (s *Service) portalLink(token, locale string) string {
	u := s.opts.PortalURL + PagePath + url.PathEscape(token)
	if locale != "" {
		u += "?locale=" + url.QueryEscape(locale)
	}
	return u
}

func (s *Service) links(site string, o *orderRecord, locale string) *TrackingLinks {
	l := &TrackingLinks{Links: []TrackingLink{{Type: LinkServicePortal, URL: s.portalLink(o.Token, locale)}}}
	if m := o.Request.MerchantTrackingLink; m != "" {
		// The order's own link wins over the site's template.
		l.Links = append(l.Links, TrackingLink{Type: LinkMerchantProvided, URL: m})
	} else if tpl := s.opts.Sites[site].MerchantLink; tpl != "" {
		m := catalog.FillURL(tpl,
			"{external_id}", o.Request.ExternalID,
			"{tos_id}", o.TosID,
			"{locale}", locale)
		l.Links = append(l.Links, TrackingLink{Type: LinkMerchantProvided, URL: m})
	}
	return l
}

// withParcel adds the tracking number of the parcel a portal link points
// at to the link.
func withParcel(link, trackingNumber string) string {
	sep := "?"
	if strings.Contains(link, "?") {
		sep = "&"
	}
	return link + sep + "tracking_number=" + url.QueryEscape(trackingNumber)
}

// parseLocale checks a BCP 47 locale such as "sv-SE".
func parseLocale(field, locale string) (language.Tag, error) {
	t, err := language.Parse(locale)
	if err != nil {
		return language.Und, deliverykit.InvalidField(field, "locale", "must be a locale such as sv-SE")
	}
	return t, nil
}

// GenerateLink returns the customer tracking page link of an order, named
// by order_id (tos_id or external_id) or by the tracking number of one of
// its parcels. When both are given, the parcel must belong to the order.
// The link carries the order's token, 128 random bits, so every link of
// one order is the same page.
//
// The link works for Options.LinkLifetime from this call (expires_at in
// the answer): a call extends the token's life, writing at most once a
// day. When the token has expired, or when the request asks to rotate it,
// the order gets a new token and the old link stops working for good (its
// page says it expired).
func (s *Service) GenerateLink(ctx context.Context, site string, req GenerateTrackingPageLinkRequest) (*GenerateTrackingPageLinkResponse, error) {
	if err := checkSite(site, &req.SiteID); err != nil {
		return nil, err
	}
	var extra []deliverykit.FieldViolation
	if req.OrderID == "" && req.TrackingNumber == "" {
		extra = append(extra, violation("order_id", "required_without", "order_id or tracking_number is required"))
	}
	if err := check(&req, extra); err != nil {
		return nil, err
	}
	if _, err := parseLocale("locale", req.Locale); err != nil {
		return nil, err
	}
	now := s.opts.Clock.Now().UTC()
	var o orderRecord
	var expires time.Time
	var action linkAction
	err := s.store.View(ctx, func(tx storage.Tx) error {
		it, err := s.linkOrder(tx, site, req)
		if err != nil {
			return err
		}
		o = it.Value
		expires, action, err = s.linkState(tx, &o, now, req.Rotate)
		return err
	})
	if err != nil {
		return nil, err
	}
	if action != linkKeep {
		fresh := ""
		if action == linkReplace {
			fresh = s.opts.IDs.NewID("tt_")
		}
		err = s.updateWithToken(ctx, fresh, func(tx storage.Tx, fresh string) error {
			it, err := orders.Get(tx, storage.Key(site, o.TosID))
			if err != nil {
				return err
			}
			o = it.Value
			var replaced bool
			if expires, replaced, err = s.keepLink(tx, site, &o, now, req.Rotate, fresh); err != nil {
				return err
			}
			if replaced {
				_, err = orders.Put(tx, it.Key, o, storage.VersionIs(it.Version))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	links := s.links(site, &o, req.Locale)
	if req.TrackingNumber != "" {
		// A link asked for by tracking number points at that parcel:
		// the page preselects it.
		links.Links[0].URL = withParcel(links.Links[0].URL, req.TrackingNumber)
	}
	return &GenerateTrackingPageLinkResponse{TrackingLink: links.Links[0].URL, TrackingLinks: links, ExpiresAt: formatTime(expires)}, nil
}

// linkOrder finds the order a GenerateTrackingPageLinkRequest names.
func (s *Service) linkOrder(tx storage.Tx, site string, req GenerateTrackingPageLinkRequest) (storage.Item[orderRecord], error) {
	var none, o storage.Item[orderRecord]
	if req.OrderID != "" {
		it, err := getOrder(tx, site, req.OrderID)
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, deliverykit.ErrNotFound) {
			return none, &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "tracking order not found",
				Violations: []deliverykit.FieldViolation{violation("order_id", "exists", "names no tracking order of the site")}}
		}
		if err != nil {
			return none, err
		}
		o = it
	}
	if req.TrackingNumber == "" {
		return o, nil
	}
	ps, err := parcelsByNumber(tx, site, req.TrackingNumber)
	if err != nil {
		return none, err
	}
	if len(ps) == 0 {
		return none, &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "parcel not found",
			Violations: []deliverykit.FieldViolation{violation("tracking_number", "exists", "names no parcel of the site")}}
	}
	if o.Value.TosID != "" {
		for _, p := range ps {
			if p.Value.TosID == o.Value.TosID {
				return o, nil
			}
		}
		return none, deliverykit.InvalidField("tracking_number", "belongs", "is not a parcel of the order named by order_id")
	}
	tos, err := oneOrder(ps)
	if err != nil {
		return none, err
	}
	return orders.Get(tx, storage.Key(site, tos))
}

// oneOrder returns the order of parcels found by tracking number, which
// must be a single one.
func oneOrder(ps []storage.Item[parcelRecord]) (string, error) {
	tos := ps[0].Value.TosID
	for _, p := range ps[1:] {
		if p.Value.TosID != tos {
			return "", deliverykit.InvalidField("tracking_number", "ambiguous", "is used by parcels of several orders (different carriers); use external_id")
		}
	}
	return tos, nil
}
