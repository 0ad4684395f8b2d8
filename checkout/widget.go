package checkout

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout/options"
	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/storage"
)

// WidgetJS is the widget script that html_snippet loads from
// <widget base URL>widget.js. It is plain JavaScript without dependencies.
//
//go:embed widget.js
var WidgetJS []byte

// BootstrapScript is the inline script of every html_snippet. It defines
// the window._sw queue at once, so a front-end may call
// window._sw(function (api) { … }) right after inserting the snippet, and
// loads the widget script from the container's data-deliverykit-base once
// (when the widget is already loaded it just looks for the new container).
// Its text is the same for every session and deployment of a release, so a
// merchant's Content-Security-Policy can allow it by BootstrapScriptHash.
const BootstrapScript = `window._sw=window._sw||function(){(window._sw.q=window._sw.q||[]).push(arguments)};` +
	`(function(d){if(window.deliverykitCheckout){window.deliverykitCheckout.scan();return}` +
	`if(window._sw.loading)return;var c=d.getElementById("shipwallet-container");if(!c)return;` +
	`window._sw.loading=1;var s=d.createElement("script");s.src=c.getAttribute("data-deliverykit-base")+"widget.js";` +
	`s.async=true;(d.head||d.body).appendChild(s)})(document);`

// BootstrapScriptHash is the CSP source expression of BootstrapScript
// ("'sha256-…'"): add it to script-src beside the widget's origin.
var BootstrapScriptHash = func() string {
	sum := sha256.Sum256([]byte(BootstrapScript))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// The snippet: the container existing front-ends look up by its id, with a
// loading skeleton, and the bootstrap script.
var snippetTmpl = template.Must(template.New("snippet").Parse(
	`<div id="shipwallet-container" class="deliverykit-checkout" lang="{{.Lang}}" data-deliverykit-token="{{.Token}}" data-deliverykit-base="{{.Base}}">` +
		`<div class="dk-skeleton" role="status" aria-busy="true">{{.Loading}}</div>` +
		`<noscript>{{.NoScript}}</noscript></div>` +
		`<script>{{.Bootstrap}}</script>`))

// Snippet returns the markup a merchant drops into its checkout page: a
// container bound to one session's widget token and the script that
// renders the shipping selector into it. Values are escaped by
// html/template.
//
// Every session view carries a snippet, so it is on the hot path of
// session.create and session.get, where executing the template each time
// showed in the profiles. Tokens made of letters, digits, '_' and '-' (every token
// the ID sources make) are left as they are by the template's escaping, so
// the markup around the token is rendered once per base and the token
// spliced in; any other token goes through the template.
//
// Snippet's texts (the loading line, the no-JavaScript line) are English;
// SnippetIn writes them in a language of the message catalog.
func Snippet(base, token string) string { return SnippetIn(language.English, base, token) }

// SnippetIn is Snippet with its texts in the language of tag (the
// session's, as the service renders it).
func SnippetIn(tag language.Tag, base, token string) string {
	lang, _ := tag.Base()
	if plainToken(token) {
		key := lang.String() + "\x00" + base
		if parts, ok := snippetParts.Load(key); ok {
			p := parts.([2]string)
			return p[0] + token + p[1]
		}
		rendered := renderSnippet(lang, base, snippetPlaceholder)
		if before, after, ok := strings.Cut(rendered, snippetPlaceholder); ok && !strings.Contains(after, snippetPlaceholder) {
			if snippetBases.Add(1) <= maxSnippetBases {
				snippetParts.Store(key, [2]string{before, after})
			}
			return before + token + after
		}
	}
	return renderSnippet(lang, base, token)
}

// snippetPlaceholder stands for the token when Snippet renders the markup
// around it; it is a plain token, so the template leaves it unchanged.
const snippetPlaceholder = "deliverykit_token_placeholder_7f3a"

// snippetParts caches, by language and base, the markup before and after
// the token. Bases are few (one per Service, from configuration) and so
// are languages; past
// maxSnippetBases a caller passing bases of its own gets them rendered
// each time, so the cache cannot grow with traffic.
var (
	snippetParts sync.Map
	snippetBases atomic.Int64
)

const maxSnippetBases = 64

func renderSnippet(lang language.Base, base, token string) string {
	var b bytes.Buffer
	tag, _ := language.Compose(lang)
	data := struct {
		Lang, Base, Token string
		Loading, NoScript string
		Bootstrap         template.JS
	}{lang.String(), base, token, i18n.Text(tag, "widget.loading"), i18n.Text(tag, "widget.noscript"), template.JS(BootstrapScript)}
	if err := snippetTmpl.Execute(&b, data); err != nil {
		panic("checkout: snippet template: " + err.Error()) // static template, string fields: cannot fail
	}
	return b.String()
}

// lang is the language the session's shopper is spoken to in: the
// catalog locale its options were computed in, else its first locale.
func (r *record) lang() language.Tag {
	loc := ""
	if r.Options != nil {
		loc = r.Options.Locale
	}
	if loc == "" && len(r.Locales) > 0 {
		loc = r.Locales[0]
	}
	if t, ok := langs.Load(loc); ok {
		return t.(language.Tag)
	}
	t := i18n.Match(loc)
	if langCount.Add(1) <= maxSnippetBases {
		langs.Store(loc, t)
	}
	return t
}

// widgetTexts are the widget's texts in the language of tag: a copy the
// caller owns of the texts gathered once per language.
func widgetTexts(tag language.Tag) map[string]string {
	base, _ := tag.Base()
	if t, ok := widgetTextsByLang.Load(base); ok {
		return maps.Clone(t.(map[string]string))
	}
	out := i18n.Texts(tag, "widget.")
	maps.Copy(out, i18n.Texts(tag, "day."))
	widgetTextsByLang.Store(base, out) // one entry per catalog language
	return maps.Clone(out)
}

// widgetTextsByLang holds widgetTexts by base language; the catalog's
// languages are few and fixed, so it cannot grow.
var widgetTextsByLang sync.Map

// langs remembers the matched language of a locale string: locales are
// the catalogs' few, and the bound keeps it so.
var (
	langs     sync.Map
	langCount atomic.Int64
)

// plainToken reports whether every byte of t is a letter, digit, '_' or
// '-': characters no HTML escaping changes.
func plainToken(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// WidgetState is what the widget renders: the session's categories and
// options in the customer's locale, and the current choice.
type WidgetState struct {
	Status        Status           `json:"status"`
	Locale        string           `json:"locale"`
	Currency      string           `json:"currency"`
	Selected      string           `json:"selected,omitempty"`
	Addons        []string         `json:"addons,omitempty"`
	ShippingPrice int64            `json:"shipping_price"`
	Categories    []WidgetCategory `json:"categories"`
	// NeedsPostalCode is set when pickup points could not be offered
	// because the address could not be placed: the widget asks for a
	// postal code instead of showing arbitrary points.
	NeedsPostalCode bool `json:"needs_postal_code,omitempty"`
	// Messages are the widget's texts in the shopper's language, from the
	// message catalog (widget.* and day.* keys).
	Messages map[string]string `json:"messages"`
	// Branding styles the widget, when the site's catalog has it.
	Branding *Branding `json:"branding,omitempty"`
	// Summary is what the widget reports to the merchant's front-end
	// (the _sw events) and compares to tell what changed.
	Summary WidgetSummary `json:"summary"`
	// AddressForm is set when the widget collects the shopper's
	// addresses: the countries it offers and what was entered.
	AddressForm *AddressForm `json:"address_form,omitempty"`
}

// Branding is the site's look in the widget.
type Branding struct {
	DisplayName string `json:"display_name,omitempty"`
	LogoURL     string `json:"logo_url,omitempty"`
	AccentColor string `json:"accent_color,omitempty"`
}

// WidgetSummary is the chosen delivery as the merchant's front-end reads
// it from the widget's events: the same values as the session's result.
type WidgetSummary struct {
	ShippingMethod   string `json:"shipping_method,omitempty"`
	DeliveryType     string `json:"delivery_type,omitempty"`
	ExternalMethodID string `json:"external_method_id,omitempty"`
	CategoryName     string `json:"category_name,omitempty"`
	// PickupLocation is the chosen location's external id.
	PickupLocation string         `json:"pickup_location,omitempty"`
	Price          int64          `json:"price"`
	Currency       string         `json:"currency"`
	TotalValue     int64          `json:"total_value"`
	SearchAddress  *SearchAddress `json:"search_address,omitempty"`
	// DeliveryAddress and BillingAddress are what the shopper entered in
	// the address form (billing: only when apart from the delivery
	// address).
	DeliveryAddress *DeliveryAddress `json:"delivery_address,omitempty"`
	BillingAddress  *BillingAddress  `json:"billing_address,omitempty"`
}

// WidgetCategory is a category as the widget shows it.
type WidgetCategory struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	CustomText   string         `json:"custom_text,omitempty"`
	DeliveryType string         `json:"delivery_type"`
	Addons       []WidgetAddon  `json:"addons,omitempty"`
	Options      []WidgetOption `json:"options"`
}

// WidgetAddon is an addon as the widget shows it.
type WidgetAddon struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Price int64  `json:"price"`
}

// WidgetOption is an option as the widget shows it. Dates are the
// warehouse's calendar dates ("2026-11-20").
type WidgetOption struct {
	ID           string    `json:"id"`
	Carrier      string    `json:"carrier"`
	Product      string    `json:"product"`
	Price        int64     `json:"price"`
	EarliestDate string    `json:"earliest_date"`
	LatestDate   string    `json:"latest_date"`
	Location     *Location `json:"location,omitempty"`
}

// SelectRequest is the widget's choice.
type SelectRequest struct {
	OptionID string   `json:"option_id" validate:"required,max_ref"`
	AddonIDs []string `json:"addon_ids,omitempty" validate:"checkout_addons,dive,max_id"`
}

// errBadToken hides whether a token ever existed.
var errBadToken = deliverykit.E(deliverykit.KindNotFound, "unknown widget token")

func (s *Service) resolve(ctx context.Context, token string) (tokenRecord, error) {
	var tr tokenRecord
	if token == "" {
		return tr, deliverykit.E(deliverykit.KindUnauthenticated, "a widget token is required")
	}
	err := s.store.View(ctx, func(tx storage.Tx) error {
		it, err := tokens.Get(tx, token)
		tr = it.Value
		return err
	})
	if errors.Is(err, deliverykit.ErrNotFound) {
		return tr, errBadToken
	}
	return tr, err
}

// WidgetState returns the state of the session the token belongs to.
func (s *Service) WidgetState(ctx context.Context, token string) (*WidgetState, error) {
	tr, err := s.resolve(ctx, token)
	if err != nil {
		return nil, err
	}
	r, err := s.loadShared(ctx, tr.Site, tr.SessionID)
	if err != nil {
		return nil, err
	}
	return s.widgetState(r), nil
}

// Select records the customer's choice from the widget: an option of the
// session and addons of its category. It goes through the same
// compare-and-set as Update, so a concurrent change is a Conflict.
func (s *Service) Select(ctx context.Context, token string, req SelectRequest) (*WidgetState, error) {
	if err := check(req); err != nil {
		return nil, err
	}
	tr, err := s.resolve(ctx, token)
	if err != nil {
		return nil, err
	}
	rec, _, err := s.modify(ctx, tr.Site, tr.SessionID, func(r *record) (bool, error) { return false, nil },
		func(r *record, _ time.Time) error {
			cat, _, ok := r.Options.Option(req.OptionID)
			if !ok {
				return deliverykit.InvalidField("option_id", "exists", fmt.Sprintf("%q is not an option of this session", req.OptionID))
			}
			for i, id := range req.AddonIDs {
				if !slices.ContainsFunc(cat.Addons, func(a options.Addon) bool { return a.ID == id }) {
					return deliverykit.InvalidField(fmt.Sprintf("addon_ids[%d]", i), "exists", fmt.Sprintf("%q is not an addon of this option", id))
				}
			}
			r.Choice, r.ChoiceDropped = req.OptionID, false
			r.Addons = slices.Compact(slices.Sorted(slices.Values(req.AddonIDs)))
			return nil
		})
	if err != nil {
		return nil, err
	}
	return s.widgetState(rec), nil
}

func (s *Service) widgetState(r *record) *WidgetState {
	tag := r.lang()
	st := &WidgetState{Status: r.Status, Currency: r.Currency, Categories: []WidgetCategory{}, Messages: widgetTexts(tag)}
	if e, err := s.engines.Engine(r.Site); err == nil && e.Catalog().Branding != nil {
		b := e.Catalog().Branding
		st.Branding = &Branding{DisplayName: b.DisplayName, LogoURL: b.LogoURL, AccentColor: b.AccentColor}
	}
	st.AddressForm = s.addressForm(r)
	if r.Options == nil {
		return st
	}
	st.Locale = r.Options.Locale
	st.NeedsPostalCode = r.Options.Unplaced
	st.Summary = WidgetSummary{Currency: r.Currency, TotalValue: r.Cart.TotalValue, SearchAddress: r.SearchAddress.clone(),
		DeliveryAddress: r.DeliveryAddress.clone(), BillingAddress: r.BillingAddress.clone()}
	if cat, opt, addons := r.chosen(); opt != nil {
		st.Selected = opt.ID
		st.ShippingPrice = opt.Price
		for _, a := range addons {
			st.Addons = append(st.Addons, a.ID)
			st.ShippingPrice += a.Price
		}
		st.Summary.ShippingMethod = opt.Carrier.ProductRef
		st.Summary.DeliveryType = strings.ToLower(string(cat.DeliveryType))
		st.Summary.ExternalMethodID = opt.Carrier.ExternalID
		st.Summary.CategoryName = cat.Name
		st.Summary.Price = st.ShippingPrice
		if opt.Location != nil {
			st.Summary.PickupLocation = opt.Location.ExternalID
		}
	}
	for _, c := range r.Options.Categories {
		wc := WidgetCategory{ID: c.ID, Name: c.Name, CustomText: c.CustomText, DeliveryType: string(c.DeliveryType), Options: []WidgetOption{}}
		for _, a := range c.Addons {
			wc.Addons = append(wc.Addons, WidgetAddon{ID: a.ID, Name: a.Name, Price: a.Price})
		}
		for _, o := range c.Options {
			wc.Options = append(wc.Options, WidgetOption{
				ID: o.ID, Carrier: o.Carrier.Name, Product: o.Carrier.ProductName, Price: o.Price,
				EarliestDate: o.ETD.Earliest.Format(time.DateOnly), LatestDate: o.ETD.Latest.Format(time.DateOnly),
				Location: location(o.Location),
			})
		}
		st.Categories = append(st.Categories, wc)
	}
	return st
}
