package checkout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
)

// The newer generation of the checkout API (served under
// /v1/delivery_checkout by package httpapi) shows the same sessions in
// another shape: a session is a CheckoutSession whose one DeliveryGroup
// holds what /v1/siw calls the result, and the widget collects the
// shopper's delivery and billing addresses, so that completing needs no
// customer from the merchant. Both generations read and change the same
// stored sessions through this Service: a session created in one is read,
// updated and completed in the other. This file holds the generation's
// wire types and their mapping from a session; view.go holds /v1/siw's.

// StatusUnknown is the newer generation's zero status. It is listed for
// clients that switch on every value; no session has it.
const StatusUnknown Status = "UNKNOWN"

// GroupID is the group_id of a session's one delivery group: a session
// ships as one delivery.
const GroupID = "1"

// GroupSelection says how a delivery group's option was chosen: the
// values of Selection, with DELIVERY_GROUP_SELECTION_UNDEFINED for a
// group without an option.
type GroupSelection string

// GroupSelectionUndefined is the selection of a group with no option.
const GroupSelectionUndefined GroupSelection = "DELIVERY_GROUP_SELECTION_UNDEFINED"

// GroupSelections lists every GroupSelection value.
var GroupSelections = []GroupSelection{GroupSelectionUndefined, GroupSelection(SelectionPreselected), GroupSelection(SelectionUser),
	GroupSelection(SelectionFallbackFromUser), GroupSelection(SelectionFallbackFromPreselected),
	GroupSelection(SelectionFallbackFailedForUser), GroupSelection(SelectionFallbackFailedForPreselected)}

// CheckoutSession is a session as the newer generation shows it, under
// the key "session" of every answer. Empty values are left out.
type CheckoutSession struct {
	CheckoutSessionID string          `json:"checkout_session_id"`
	Status            Status          `json:"status"`
	UpdatedAt         time.Time       `json:"updated_at"`
	PurchaseCountry   string          `json:"purchase_country"`
	Cart              CheckoutCart    `json:"cart"`
	DeliveryGroups    []DeliveryGroup `json:"delivery_groups"`
}

// DeliveryGroup is a delivery of the session's items and what the shopper
// chose for it. A session has exactly one.
type DeliveryGroup struct {
	GroupID string `json:"group_id"`
	// Header is the merchant's data for the group: the session's meta
	// (an empty object when it has none).
	Header map[string]string `json:"header"`
	// ExternalID is the merchant's order number (the session's).
	ExternalID   string         `json:"external_id,omitempty"`
	Items        []GroupItem    `json:"items,omitempty"`
	Shipping     *GroupShipping `json:"shipping,omitempty"`
	Category     *GroupCategory `json:"category,omitempty"`
	Pricing      *GroupPricing  `json:"pricing,omitempty"`
	Selection    GroupSelection `json:"selection"`
	DeliveryTime *DeliveryTime  `json:"delivery_time,omitempty"`
	Addresses    GroupAddresses `json:"addresses"`
	// TosID names the order once the session is completed.
	TosID string `json:"tos_id,omitempty"`
}

// GroupItem is a cart line the group delivers.
type GroupItem struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity,omitempty"`
}

// GroupShipping is the chosen shipping of a group. CarrierProductID is the
// merchant's id for the carrier product when the catalog has one (the
// /v1/siw result's external_method_id), else the product's reference
// (shipping_method).
type GroupShipping struct {
	DeliveryType     string          `json:"delivery_type"`
	Carrier          string          `json:"carrier"`
	Product          string          `json:"product"`
	CarrierProductID string          `json:"carrier_product_id"`
	Addons           []Addon         `json:"addons,omitempty"`
	DeliveryAddons   []DeliveryAddon `json:"delivery_addons,omitempty"`
	// Meta is the result's shipping.meta: the catalog product's meta and
	// the session's (an empty object when neither has any).
	Meta map[string]string `json:"meta"`
	// Route is the way the goods take: the warehouse they leave from
	// (origin), the carrier and its product's reference.
	Route     GroupRoute    `json:"route"`
	Supports  GroupSupports `json:"supports"`
	Warehouse *Warehouse    `json:"warehouse,omitempty"`
}

// GroupRoute is the way a group's goods take.
type GroupRoute struct {
	Origin  string `json:"origin,omitempty"`
	Carrier string `json:"carrier,omitempty"`
	Product string `json:"product,omitempty"`
}

// GroupSupports says what the shopper may enter for the chosen product;
// false is left out, as everywhere in this generation.
type GroupSupports struct {
	CourierInstructions bool `json:"courier_instructions,omitempty"`
	CustomerNumber      bool `json:"customer_number,omitempty"`
	DoorCode            bool `json:"door_code,omitempty"`
	Search              bool `json:"search,omitempty"`
}

// GroupCategory is the chosen category of a group (the /v1/siw result's
// category, with empty values left out).
type GroupCategory struct {
	ID                    string        `json:"id"`
	Name                  string        `json:"name"`
	PresentedCategoryName string        `json:"presented_category_name,omitempty"`
	ExternalID            string        `json:"external_id,omitempty"`
	BasePrice             int64         `json:"base_price,omitempty"`
	CustomText            string        `json:"custom_text,omitempty"`
	CustomWarningText     string        `json:"custom_warning_text,omitempty"`
	Tags                  []CategoryTag `json:"tags,omitempty"`
}

// GroupPricing is a group's shipping price. Price and NetPrice are always
// present, 0 for free shipping: clients read net_price ?? price, and a
// missing key would be undefined rather than free. Everything else leaves
// out its zero.
type GroupPricing struct {
	Currency        string                `json:"currency"`
	Price           int64                 `json:"price"`
	NetPrice        int64                 `json:"net_price"`
	PriceComponents []GroupPriceComponent `json:"price_components,omitempty"`
}

// GroupPriceComponent is a PriceComponent with its zeros left out.
type GroupPriceComponent struct {
	Type    PriceComponentType `json:"type"`
	ID      string             `json:"id,omitempty"`
	Name    string             `json:"name,omitempty"`
	Value   int64              `json:"value,omitempty"`
	VAT     int64              `json:"vat,omitempty"`
	VATRate int                `json:"vat_rate,omitempty"`
}

// CheckoutCart is the cart of the newer generation: what the merchant
// sent, echoed as sent (its attributes and the items' image_url
// included), empty values left out.
type CheckoutCart struct {
	CartID        string         `json:"cart_id,omitempty" validate:"max_ref"`
	TotalValue    int64          `json:"total_value,omitempty" validate:"gte=0,checkout_amount"`
	TotalDiscount int64          `json:"total_discount,omitempty" validate:"gte=0,checkout_amount"`
	Currency      string         `json:"currency,omitempty" validate:"omitempty,iso4217"`
	Vouchers      []string       `json:"vouchers,omitempty" validate:"checkout_vouchers,dive,max_code"`
	Attributes    []string       `json:"attributes,omitempty" validate:"checkout_attributes,dive,max_id"`
	Items         []CheckoutItem `json:"items,omitempty" validate:"checkout_cart_items,dive"`
	ShippingDate  *ShippingDate  `json:"shipping_date,omitempty"`
}

// CheckoutItem is a cart line of the newer generation.
type CheckoutItem struct {
	SKU          string        `json:"sku,omitempty" validate:"required,max_id"`
	Name         string        `json:"name,omitempty" validate:"max_name"`
	Quantity     int64         `json:"quantity,omitempty" validate:"gte=0,checkout_quantity"`
	Price        int64         `json:"price,omitempty" validate:"gte=0,checkout_amount"`
	Discount     int64         `json:"discount,omitempty" validate:"gte=0,checkout_amount"`
	Attributes   []string      `json:"attributes,omitempty" validate:"checkout_attributes,dive,max_id"`
	ImageURL     string        `json:"image_url,omitempty" validate:"omitempty,httpsurl"`
	OutOfStock   bool          `json:"out_of_stock,omitempty"`
	Weight       int64         `json:"weight,omitempty" validate:"gte=0,checkout_weight"`
	Dimensions   *Dimensions   `json:"dimensions,omitempty"`
	ShippingDate *ShippingDate `json:"shipping_date,omitempty"`
}

// cart is c as /v1/siw keeps it.
func (c *CheckoutCart) cart() *Cart {
	if c == nil {
		return nil
	}
	out := &Cart{CartID: c.CartID, TotalValue: c.TotalValue, TotalDiscount: c.TotalDiscount, Currency: c.Currency,
		Vouchers: c.Vouchers, Attributes: c.Attributes, ShippingDate: c.ShippingDate, Items: make([]CartItem, len(c.Items))}
	for i, it := range c.Items {
		out.Items[i] = CartItem{SKU: it.SKU, Name: it.Name, Quantity: it.Quantity, Price: it.Price, Discount: it.Discount,
			Attributes: it.Attributes, Image: it.ImageURL, OutOfStock: it.OutOfStock, Weight: it.Weight, Dimensions: it.Dimensions,
			ShippingDate: it.ShippingDate}
	}
	return out
}

// checkoutCart is c (a view's copy) in the newer generation's shape.
func checkoutCart(c Cart) CheckoutCart {
	out := CheckoutCart{CartID: c.CartID, TotalValue: c.TotalValue, TotalDiscount: c.TotalDiscount, Currency: c.Currency,
		Vouchers: c.Vouchers, Attributes: c.Attributes, ShippingDate: c.ShippingDate}
	if len(c.Items) > 0 {
		out.Items = make([]CheckoutItem, len(c.Items))
	}
	for i, it := range c.Items {
		out.Items[i] = CheckoutItem{SKU: it.SKU, Name: it.Name, Quantity: it.Quantity, Price: it.Price, Discount: it.Discount,
			Attributes: it.Attributes, ImageURL: it.Image, OutOfStock: it.OutOfStock, Weight: it.Weight, Dimensions: it.Dimensions,
			ShippingDate: it.ShippingDate}
	}
	return out
}

// groupPricing is p in the newer generation's shape.
func groupPricing(p *Pricing) *GroupPricing {
	if p == nil {
		return nil
	}
	out := &GroupPricing{Currency: p.Currency, Price: p.Price, NetPrice: p.NetPrice}
	if len(p.PriceComponents) > 0 {
		out.PriceComponents = make([]GroupPriceComponent, len(p.PriceComponents))
	}
	for i, c := range p.PriceComponents {
		out.PriceComponents[i] = GroupPriceComponent(c)
	}
	return out
}

// groupCategory is c in the newer generation's shape.
func groupCategory(c *ResultCategory) *GroupCategory {
	if c == nil {
		return nil
	}
	g := GroupCategory(*c)
	return &g
}

// GroupAddresses are the addresses of a group: what the shopper entered
// (DeliveryAddress; BillingAddress, which is the delivery address unless
// the shopper gave another), the customer (the merchant's, else the
// shopper's delivery address), the chosen pickup location and the search
// address.
type GroupAddresses struct {
	DeliveryAddress *DeliveryAddress `json:"delivery_address,omitempty"`
	BillingAddress  *BillingAddress  `json:"billing_address,omitempty"`
	Customer        *GroupCustomer   `json:"customer,omitempty"`
	Location        *Location        `json:"location,omitempty"`
	SearchAddress   *SearchAddress   `json:"search_address,omitempty"`
}

// GroupCustomer is the order's receiver: who and where, in one object.
type GroupCustomer struct {
	Name            string       `json:"name,omitempty" validate:"max_name"`
	Email           string       `json:"email,omitempty" validate:"omitempty,max=254,email"`
	Phone           string       `json:"phone,omitempty" validate:"checkout_short"`
	AddressLines    []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	Street          string       `json:"street,omitempty" validate:"max_name"`
	StreetNumber    string       `json:"street_number,omitempty" validate:"checkout_short"`
	ApartmentNumber string       `json:"apartment_number,omitempty" validate:"checkout_short"`
	City            string       `json:"city,omitempty" validate:"max_id"`
	PostalCode      string       `json:"postal_code,omitempty" validate:"checkout_short"`
	Region          string       `json:"region,omitempty" validate:"max_id"`
	Country         string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	CareOf          string       `json:"care_of,omitempty" validate:"max_name"`
	Attn            string       `json:"attn,omitempty" validate:"max_name"`
	DoorCode        string       `json:"door_code,omitempty" validate:"checkout_short"`
	Coordinates     *Coordinates `json:"coordinates,omitempty"`
}

// CheckoutCreateRequest is the body of the newer generation's
// session.create. The widget collects the shopper's addresses.
type CheckoutCreateRequest struct {
	PurchaseCountry  string         `json:"purchase_country" validate:"required,iso3166_1_alpha2"`
	PurchaseCurrency string         `json:"purchase_currency" validate:"required,iso4217"`
	Locales          []string       `json:"locales,omitempty" validate:"max_locales,dive,max_locale"`
	Cart             *CheckoutCart  `json:"cart" validate:"required"`
	SearchAddress    *SearchAddress `json:"search_address,omitempty"`
	ExternalID       string         `json:"external_id,omitempty" validate:"max_ref,keysafe"`
	Meta             Meta           `json:"meta,omitempty" validate:"checkout_meta,dive,keys,max_code,endkeys,max_ref"`

	// SnippetConfiguration renames html_snippet's container and global
	// (see /v1/siw's CreateRequest and UpdateRequest).
	SnippetConfiguration *SnippetConfiguration `json:"snippet_configuration,omitempty"`
}

// CheckoutUpdateRequest is the body of session.update: any of cart,
// search address, external id and meta.
type CheckoutUpdateRequest struct {
	CheckoutSessionID string         `json:"checkout_session_id" validate:"required,max_id"`
	Cart              *CheckoutCart  `json:"cart,omitempty"`
	SearchAddress     *SearchAddress `json:"search_address,omitempty"`
	ExternalID        string         `json:"external_id,omitempty" validate:"max_ref,keysafe"`
	Meta              Meta           `json:"meta,omitempty" validate:"checkout_meta,dive,keys,max_code,endkeys,max_ref"`

	// SnippetConfiguration renames html_snippet's container and global
	// (see /v1/siw's CreateRequest and UpdateRequest).
	SnippetConfiguration *SnippetConfiguration `json:"snippet_configuration,omitempty"`
}

// CheckoutCompleteRequest is the body of session.complete. Customer is
// optional: without one the order goes to the delivery address the
// shopper entered in the widget.
type CheckoutCompleteRequest struct {
	CheckoutSessionID string         `json:"checkout_session_id" validate:"required,max_id"`
	Customer          *GroupCustomer `json:"customer,omitempty"`
	ExternalID        string         `json:"external_id,omitempty" validate:"max_ref,keysafe"`
}

// CheckoutView is a session with its widget. Token, the widget token, is
// answered by create only.
type CheckoutView struct {
	Session     CheckoutSession `json:"session"`
	HTMLSnippet string          `json:"html_snippet"`
	Token       string          `json:"token,omitempty"`
}

// CheckoutCompleted is what session.complete answers.
type CheckoutCompleted struct {
	Session CheckoutSession `json:"session"`
}

// CheckoutSummary is what the newer generation's sessions_summaries.list
// answers: one summary of the order, from the session completed with its
// tos_id (not a list: /v1/siw's list of sessions stays on /v1/siw).
type CheckoutSummary struct {
	ExternalID      string         `json:"external_id,omitempty"`
	PurchaseCountry string         `json:"purchase_country,omitempty"`
	TosID           string         `json:"tos_id,omitempty"`
	Result          *SummaryResult `json:"result,omitempty"`
}

// SummaryResult is the outcome of the order's session: its delivery
// group's choice.
type SummaryResult struct {
	Addresses    *GroupAddresses `json:"addresses,omitempty"`
	Category     *GroupCategory  `json:"category,omitempty"`
	DeliveryTime *DeliveryTime   `json:"delivery_time,omitempty"`
	Pricing      *GroupPricing   `json:"pricing,omitempty"`
	Selection    GroupSelection  `json:"selection,omitempty"`
	Shipping     *GroupShipping  `json:"shipping,omitempty"`
}

// CreateCheckout opens a session whose widget collects the shopper's
// addresses (state: none → ACTIVE).
func (s *Service) CreateCheckout(ctx context.Context, site string, req CheckoutCreateRequest) (*CheckoutView, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	rec, engine, err := s.create(ctx, site, CreateRequest{PurchaseCountry: req.PurchaseCountry, PurchaseCurrency: req.PurchaseCurrency,
		Locales: req.Locales, Cart: req.Cart.cart(), SearchAddress: req.SearchAddress, ExternalID: req.ExternalID, Meta: req.Meta,
		AddressForm: true, SnippetConfiguration: req.SnippetConfiguration}, nil)
	if err != nil {
		return nil, err
	}
	v := s.checkoutView(engine, rec)
	v.Token = rec.WidgetToken
	return v, nil
}

// GetCheckout returns a session in the newer generation's shape; token,
// when given, is put in the view (create answers it).
func (s *Service) GetCheckout(ctx context.Context, site, id, token string) (*CheckoutView, error) {
	if id == "" {
		return nil, deliverykit.InvalidField("checkout_session_id", "required", "is required")
	}
	r, err := s.loadShared(ctx, site, id)
	if err != nil {
		return nil, sessionIDField(err)
	}
	engine, _ := s.engines.Engine(site)
	v := s.checkoutView(engine, r)
	v.Token = token
	return v, nil
}

// PullCheckout returns a session with its options computed afresh (prices,
// estimates and expiry as of now); the choice is kept while it is still
// offered. The session is written only when the offer changed: a pull
// that finds the same options, prices and estimates answers the session
// as stored (its updated_at and expiry unchanged). A completed or expired session cannot change and is answered as
// GetCheckout answers it.
func (s *Service) PullCheckout(ctx context.Context, site, id string) (*CheckoutView, error) {
	if id == "" {
		return nil, deliverykit.InvalidField("checkout_session_id", "required", "is required")
	}
	// A pull that finds the offer as stored writes nothing: clients pull
	// on every page view, and a write per read would make every view a
	// write (and a 409 for a concurrent update).
	if v, ok, err := s.pullUnchanged(ctx, site, id); err != nil || ok {
		return v, err
	}
	rec, engine, err := s.modify(ctx, site, id, func(*record) (bool, error) { return true, nil }, nil)
	if errors.Is(err, deliverykit.ErrPermissionDenied) || errors.Is(err, deliverykit.ErrFailedPrecondition) {
		return s.GetCheckout(ctx, site, id, "")
	}
	if err != nil {
		return nil, sessionIDField(err)
	}
	return s.checkoutView(engine, rec), nil
}

// pullUnchanged computes the options of session id afresh and reports
// whether they are what the session holds (the same categories, options,
// prices, estimates and choice; only their expiry differs): then the
// session as stored is the answer, and nothing is written. A session that
// cannot change is answered as GetCheckout answers it.
func (s *Service) pullUnchanged(ctx context.Context, site, id string) (*CheckoutView, bool, error) {
	it, err := s.load(ctx, site, id)
	if err != nil {
		return nil, false, sessionIDField(err)
	}
	stored := it.Value
	if writable(&stored, s.clock.Now()) != nil {
		v, err := s.GetCheckout(ctx, site, id, "")
		return v, true, err
	}
	engine, err := s.engines.Engine(site)
	if err != nil || stored.Options == nil {
		return nil, false, nil // the write path reports it, or computes the first options
	}
	fresh := stored
	fresh.Addons = slices.Clone(stored.Addons) // refresh trims them in place
	if err := s.refresh(ctx, engine, &fresh, nil); err != nil {
		return nil, false, err
	}
	if fresh.Choice != stored.Choice || !slices.Equal(fresh.Addons, stored.Addons) || !sameOffer(stored.Options, fresh.Options) {
		return nil, false, nil
	}
	return s.checkoutView(engine, &stored), true, nil
}

// sameOffer reports whether two computations offer the same: categories,
// options, prices and estimates, whatever their expiry.
func sameOffer(a, b *options.Result) bool {
	if a.Locale != b.Locale || a.Preselected != b.Preselected || a.Unplaced != b.Unplaced || len(a.Categories) != len(b.Categories) {
		return false
	}
	for i := range a.Categories {
		ca, cb := &a.Categories[i], &b.Categories[i]
		if ca.ID != cb.ID || ca.BasePrice != cb.BasePrice || ca.Fallback != cb.Fallback || len(ca.Options) != len(cb.Options) ||
			!slices.Equal(ca.Addons, cb.Addons) {
			return false
		}
		for j := range ca.Options {
			oa, ob := &ca.Options[j], &cb.Options[j]
			if oa.ID != ob.ID || oa.Price != ob.Price || oa.Currency != ob.Currency || !sameETD(oa.ETD, ob.ETD) ||
				(oa.Location == nil) != (ob.Location == nil) || oa.Location != nil && !sameDistance(oa.Location.Distance, ob.Location.Distance) {
				return false
			}
		}
	}
	return true
}

func sameETD(a, b options.ETD) bool {
	return a.Handover.Equal(b.Handover) && a.Earliest.Equal(b.Earliest) && a.Latest.Equal(b.Latest) &&
		a.EarliestDays == b.EarliestDays && a.LatestDays == b.LatestDays
}

func sameDistance(a, b *options.Distance) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// UpdateCheckout changes an ACTIVE session as Update does.
func (s *Service) UpdateCheckout(ctx context.Context, site string, req CheckoutUpdateRequest) (*CheckoutView, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	if req.Cart == nil && req.SearchAddress == nil && req.ExternalID == "" && req.Meta == nil && req.SnippetConfiguration == nil {
		return nil, deliverykit.InvalidField("cart", "required", "one of cart, search_address, external_id, meta and snippet_configuration is required")
	}
	rec, engine, err := s.update(ctx, site, UpdateRequest{ID: req.CheckoutSessionID, Cart: req.Cart.cart(), SearchAddress: req.SearchAddress,
		ExternalID: req.ExternalID, Meta: req.Meta, SnippetConfiguration: req.SnippetConfiguration})
	if err != nil {
		return nil, sessionIDField(err)
	}
	return s.checkoutView(engine, rec), nil
}

// CompleteCheckout freezes the session (ACTIVE → COMPLETE). The order's
// receiver is the customer of the call, else the merchant's customer of
// an earlier /v1/siw call, else the delivery address the shopper entered
// in the widget; with none of them it is InvalidArgument naming
// delivery_address. The answer's delivery group carries the tos_id.
func (s *Service) CompleteCheckout(ctx context.Context, site string, req CheckoutCompleteRequest) (*CheckoutCompleted, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	rec, engine, err := s.complete(ctx, site, req.CheckoutSessionID, "delivery_address", func(r *record) error {
		if c := req.Customer; c != nil {
			r.Customer = c.customer()
		}
		if req.ExternalID != "" {
			r.ExternalID = req.ExternalID
		}
		if r.Customer != nil && r.Customer.Address != nil {
			return customerComplete(r.Customer)
		}
		if r.DeliveryAddress == nil {
			return &deliverykit.Error{Kind: deliverykit.KindInvalidArgument, Message: "the shopper has not entered a delivery address",
				Violations: []deliverykit.FieldViolation{{Field: "delivery_address", Rule: "required",
					Message: "is required: the shopper enters it in the widget (or send customer)"}}}
		}
		return nil
	})
	if err != nil {
		return nil, sessionIDField(err)
	}
	return &CheckoutCompleted{Session: s.checkoutView(engine, rec).Session}, nil
}

// CheckoutSummaries summarises the order tosID as the newer generation
// does: the session completed with that tos_id, without the sessions
// cloned from it. An unknown tos_id is NotFound.
func (s *Service) CheckoutSummaries(ctx context.Context, site, tosID string) (*CheckoutSummary, error) {
	if tosID == "" {
		return nil, deliverykit.InvalidField("tos_id", "required", "is required")
	}
	if len(tosID) > 128 {
		return nil, deliverykit.InvalidField("tos_id", "max", "must be at most 128 characters long")
	}
	var id string
	err := s.store.View(ctx, func(tx storage.Tx) error {
		it, err := tosIndex.Get(tx, storage.Key(site, tosID))
		id = it.Value
		return err
	})
	if errors.Is(err, deliverykit.ErrNotFound) {
		return nil, deliverykit.Errorf(deliverykit.KindNotFound, "no order with tos_id %q", tosID)
	}
	if err != nil {
		return nil, fmt.Errorf("checkout: finding the order's session: %w", err)
	}
	r, err := s.loadShared(ctx, site, id)
	if err != nil {
		return nil, err
	}
	engine, _ := s.engines.Engine(site)
	g := s.checkoutView(engine, r).Session.DeliveryGroups[0]
	return &CheckoutSummary{ExternalID: r.ExternalID, PurchaseCountry: r.Country, TosID: r.TosID, Result: &SummaryResult{
		Addresses: &g.Addresses, Category: g.Category, DeliveryTime: g.DeliveryTime, Pricing: g.Pricing,
		Selection: g.Selection, Shipping: g.Shipping}}, nil
}

// checkoutView renders the record in the newer generation's shape. It
// takes the result from view, so both generations show the same option,
// prices and promises.
func (s *Service) checkoutView(engine *options.Engine, r *record) *CheckoutView {
	v := s.view(engine, r)
	sess := CheckoutSession{CheckoutSessionID: r.ID, Status: r.Status, UpdatedAt: r.UpdatedAt, PurchaseCountry: r.Country, Cart: checkoutCart(v.Session.Cart)}
	g := DeliveryGroup{GroupID: GroupID, ExternalID: r.ExternalID, TosID: r.TosID, Selection: GroupSelectionUndefined,
		Header: maps.Clone(r.Meta)}
	if g.Header == nil {
		g.Header = map[string]string{}
	}
	for _, it := range r.Cart.Items {
		g.Items = append(g.Items, GroupItem{SKU: it.SKU, Quantity: it.Quantity})
	}
	if res := v.Session.Result; res != nil {
		sh := res.Shipping
		g.Shipping = &GroupShipping{DeliveryType: sh.DeliveryType, Carrier: sh.Carrier, Product: sh.Product,
			CarrierProductID: cmp.Or(sh.ExternalMethodID, sh.ShippingMethod), Addons: sh.Addons, DeliveryAddons: sh.DeliveryAddons,
			Meta: sh.Meta, Supports: GroupSupports(sh.Supports), Warehouse: sh.Warehouse,
			Route: routeOf(r)}
		g.Category, g.Pricing, g.DeliveryTime = groupCategory(res.Category), groupPricing(res.Pricing), res.DeliveryTime
		g.Selection = GroupSelection(res.Selection)
		g.Addresses.Location = sh.Location
	}
	g.Addresses.SearchAddress = v.Session.SearchAddress
	g.Addresses.DeliveryAddress = r.DeliveryAddress.clone()
	g.Addresses.BillingAddress = r.BillingAddress.clone()
	if g.Addresses.BillingAddress == nil && r.DeliveryAddress != nil {
		g.Addresses.BillingAddress = r.DeliveryAddress.billing()
	}
	g.Addresses.Customer = groupCustomer(v.Session.Customer, r.DeliveryAddress)
	sess.DeliveryGroups = []DeliveryGroup{g}
	return &CheckoutView{Session: sess, HTMLSnippet: v.HTMLSnippet}
}

// routeOf is the route of r's chosen option.
func routeOf(r *record) GroupRoute {
	cat, opt, _ := r.chosen()
	if opt == nil {
		return GroupRoute{}
	}
	return GroupRoute{Origin: cat.Warehouse.ID, Carrier: opt.Carrier.ID, Product: opt.Carrier.ProductRef}
}

// groupCustomer is the receiver the newer generation shows: the
// merchant's customer, else the shopper's delivery address.
func groupCustomer(c *Customer, d *DeliveryAddress) *GroupCustomer {
	if c != nil {
		out := &GroupCustomer{Email: c.Email, Phone: c.Phone}
		if a := c.Address; a != nil {
			out.Name, out.AddressLines, out.Street, out.StreetNumber = a.Name, a.AddressLines, a.Street, a.StreetNumber
			out.ApartmentNumber, out.City, out.PostalCode, out.Region, out.Country = a.ApartmentNumber, a.City, a.PostalCode, a.Region, a.Country
			out.CareOf, out.Attn, out.DoorCode, out.Coordinates = a.CareOf, a.Attn, a.DoorCode, copyCoordinates(a.Coordinates)
		}
		return out
	}
	if d == nil {
		return nil
	}
	contact, a := d.receiver()
	return &GroupCustomer{Name: contact.Name, Email: contact.Email, Phone: contact.Phone, AddressLines: a.AddressLines,
		Street: a.Street, StreetNumber: a.StreetNumber, ApartmentNumber: a.ApartmentNumber, City: a.City, PostalCode: a.PostalCode,
		Region: a.Region, Country: a.Country, CareOf: a.CareOf, Attn: a.Attn, DoorCode: a.DoorCode, Coordinates: a.Coordinates}
}

// customer is the merchant's customer a completion sends, as /v1/siw
// keeps it.
func (c *GroupCustomer) customer() *Customer {
	out := &Customer{Email: c.Email, Phone: c.Phone}
	if c.Country != "" || c.PostalCode != "" || len(c.AddressLines) > 0 || c.Street != "" || c.City != "" {
		out.Address = &CustomerAddress{Name: c.Name, AddressLines: slices.Clone(c.AddressLines), Street: c.Street,
			StreetNumber: c.StreetNumber, ApartmentNumber: c.ApartmentNumber, City: c.City, PostalCode: c.PostalCode,
			Region: c.Region, Country: c.Country, CareOf: c.CareOf, Attn: c.Attn, DoorCode: c.DoorCode,
			Coordinates: copyCoordinates(c.Coordinates)}
	}
	return out
}

// billing is the delivery address as the billing address (the shopper
// gave no other).
func (a *DeliveryAddress) billing() *BillingAddress {
	d := a.clone()
	return &BillingAddress{FirstName: d.FirstName, LastName: d.LastName, CompanyName: d.CompanyName, Street: d.Street,
		StreetNumber: d.StreetNumber, ApartmentNumber: d.ApartmentNumber, AddressLines: d.AddressLines, City: d.City,
		PostalCode: d.PostalCode, Region: d.Region, Country: d.Country, Email: d.Email, Phone: d.Phone, PhoneCountry: d.PhoneCountry,
		CareOf: d.CareOf, Attn: d.Attn, ExternalID: d.ExternalID, Coordinates: d.Coordinates, DoorCode: d.DoorCode}
}

// sessionIDField names the newer generation's checkout_session_id where a
// shared error names /v1/siw's id.
func sessionIDField(err error) error {
	var e *deliverykit.Error
	if !errors.As(err, &e) || !slices.ContainsFunc(e.Violations, func(v deliverykit.FieldViolation) bool { return v.Field == "id" }) {
		return err
	}
	out := *e
	out.Violations = slices.Clone(e.Violations)
	for i, v := range out.Violations {
		if v.Field == "id" {
			out.Violations[i].Field = "checkout_session_id"
			out.Violations[i].Message = strings.Replace(v.Message, "id ", "checkout_session_id ", 1)
		}
	}
	return &out
}
