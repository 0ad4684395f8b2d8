package checkout

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout/options"
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
	Cart              Cart            `json:"cart"`
	DeliveryGroups    []DeliveryGroup `json:"delivery_groups"`
}

// DeliveryGroup is a delivery of the session's items and what the shopper
// chose for it. A session has exactly one.
type DeliveryGroup struct {
	GroupID string `json:"group_id"`
	// ExternalID is the merchant's order number (the session's).
	ExternalID   string          `json:"external_id,omitempty"`
	Items        []GroupItem     `json:"items,omitempty"`
	Shipping     *GroupShipping  `json:"shipping,omitempty"`
	Category     *ResultCategory `json:"category,omitempty"`
	Pricing      *Pricing        `json:"pricing,omitempty"`
	Selection    GroupSelection  `json:"selection"`
	DeliveryTime *DeliveryTime   `json:"delivery_time,omitempty"`
	Addresses    GroupAddresses  `json:"addresses"`
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
	DeliveryType     string            `json:"delivery_type"`
	Carrier          string            `json:"carrier"`
	Product          string            `json:"product"`
	CarrierProductID string            `json:"carrier_product_id"`
	Addons           []Addon           `json:"addons,omitempty"`
	DeliveryAddons   []DeliveryAddon   `json:"delivery_addons,omitempty"`
	Meta             map[string]string `json:"meta,omitempty"`
	Supports         Supports          `json:"supports"`
	Warehouse        *Warehouse        `json:"warehouse,omitempty"`
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
	Cart             *Cart          `json:"cart" validate:"required"`
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
	Cart              *Cart          `json:"cart,omitempty"`
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

// CheckoutSummary is one entry of sessions_summaries.list.
type CheckoutSummary struct {
	CheckoutSessionID string          `json:"checkout_session_id"`
	Status            Status          `json:"status"`
	DeliveryGroups    []DeliveryGroup `json:"delivery_groups"`
}

// CheckoutSummaries is what sessions_summaries.list answers.
type CheckoutSummaries struct {
	Results []CheckoutSummary `json:"results"`
}

// CreateCheckout opens a session whose widget collects the shopper's
// addresses (state: none → ACTIVE).
func (s *Service) CreateCheckout(ctx context.Context, site string, req CheckoutCreateRequest) (*CheckoutView, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	rec, engine, err := s.create(ctx, site, CreateRequest{PurchaseCountry: req.PurchaseCountry, PurchaseCurrency: req.PurchaseCurrency,
		Locales: req.Locales, Cart: req.Cart, SearchAddress: req.SearchAddress, ExternalID: req.ExternalID, Meta: req.Meta,
		AddressForm: true, SnippetConfiguration: req.SnippetConfiguration})
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
// offered. A completed or expired session cannot change and is answered as
// GetCheckout answers it.
func (s *Service) PullCheckout(ctx context.Context, site, id string) (*CheckoutView, error) {
	if id == "" {
		return nil, deliverykit.InvalidField("checkout_session_id", "required", "is required")
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

// UpdateCheckout changes an ACTIVE session as Update does.
func (s *Service) UpdateCheckout(ctx context.Context, site string, req CheckoutUpdateRequest) (*CheckoutView, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	if req.Cart == nil && req.SearchAddress == nil && req.ExternalID == "" && req.Meta == nil && req.SnippetConfiguration == nil {
		return nil, deliverykit.InvalidField("cart", "required", "one of cart, search_address, external_id, meta and snippet_configuration is required")
	}
	rec, engine, err := s.update(ctx, site, UpdateRequest{ID: req.CheckoutSessionID, Cart: req.Cart, SearchAddress: req.SearchAddress,
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

// CheckoutSummaries lists the sessions of an order as Summaries does, in
// the newer generation's shape.
func (s *Service) CheckoutSummaries(ctx context.Context, site, tosID string) (*CheckoutSummaries, error) {
	sums, err := s.Summaries(ctx, site, tosID)
	if err != nil {
		return nil, err
	}
	out := &CheckoutSummaries{Results: []CheckoutSummary{}}
	engine, _ := s.engines.Engine(site)
	for _, sum := range sums.Results {
		r, err := s.loadShared(ctx, site, sum.SessionID)
		if errors.Is(err, deliverykit.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sess := s.checkoutView(engine, r).Session
		out.Results = append(out.Results, CheckoutSummary{CheckoutSessionID: sess.CheckoutSessionID, Status: sess.Status, DeliveryGroups: sess.DeliveryGroups})
	}
	return out, nil
}

// checkoutView renders the record in the newer generation's shape. It
// takes the result from view, so both generations show the same option,
// prices and promises.
func (s *Service) checkoutView(engine *options.Engine, r *record) *CheckoutView {
	v := s.view(engine, r)
	sess := CheckoutSession{CheckoutSessionID: r.ID, Status: r.Status, UpdatedAt: r.UpdatedAt, PurchaseCountry: r.Country, Cart: v.Session.Cart}
	g := DeliveryGroup{GroupID: GroupID, ExternalID: r.ExternalID, TosID: r.TosID, Selection: GroupSelectionUndefined}
	for _, it := range r.Cart.Items {
		g.Items = append(g.Items, GroupItem{SKU: it.SKU, Quantity: it.Quantity})
	}
	if res := v.Session.Result; res != nil {
		sh := res.Shipping
		g.Shipping = &GroupShipping{DeliveryType: sh.DeliveryType, Carrier: sh.Carrier, Product: sh.Product,
			CarrierProductID: cmp.Or(sh.ExternalMethodID, sh.ShippingMethod), Addons: sh.Addons, DeliveryAddons: sh.DeliveryAddons,
			Meta: sh.Meta, Supports: sh.Supports, Warehouse: sh.Warehouse}
		g.Category, g.Pricing, g.DeliveryTime = res.Category, res.Pricing, res.DeliveryTime
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
