package checkout

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
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
	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
)

// WidgetJS is the widget script. It is plain JavaScript without
// dependencies. html_snippet loads it from <widget base URL> +
// WidgetScriptName, a name that changes with its content, so it may be
// cached for good; <widget base URL>widget.js serves the same script for
// pages that name it directly.
//
//go:embed widget.js
var WidgetJS []byte

// WidgetScriptName is the widget script's content-addressed file name,
// "widget.<16 hex digits of its SHA-256>.js".
var WidgetScriptName = func() string {
	sum := sha256.Sum256(WidgetJS)
	return "widget." + hex.EncodeToString(sum[:8]) + ".js"
}()

// BootstrapScript is the inline script of every html_snippet, inside its
// container. It defines, on window, the queue function of every widget
// container on the page (its data-deliverykit-object: _sw unless the
// session's SnippetConfiguration renames it), so a front-end may call
// window._sw(function (api) { … }) right after inserting the snippet, and
// loads the widget script once, by the name in data-deliverykit-script
// (WidgetScriptName) from the container's data-deliverykit-base (when the
// widget is already loaded it just looks for new containers).
// It reads the names from the page rather than holding them, so its text
// is the same for every session, configuration and deployment of a
// release, and a merchant's Content-Security-Policy can allow it by
// BootstrapScriptHash.
const BootstrapScript = `(function(w,d){var c=d.querySelectorAll("[data-deliverykit-object]"),b,f,i,n,s;` +
	`function q(){var f=function(){(f.q=f.q||[]).push(arguments)};return f}` +
	`for(i=0;i<c.length;i++){n=c[i].getAttribute("data-deliverykit-object");` +
	`if(/^[A-Za-z_$][\w$]{0,63}$/.test(n))w[n]=w[n]||q();b=b||c[i].getAttribute("data-deliverykit-base");` +
	`f=f||c[i].getAttribute("data-deliverykit-script")}` +
	`if(w.deliverykitCheckout){w.deliverykitCheckout.scan();return}` +
	`if(!b||d.querySelector("script[data-deliverykit-widget]"))return;` +
	`s=d.createElement("script");s.setAttribute("data-deliverykit-widget","");s.src=b+(f&&/^[\w.-]{1,64}$/.test(f)?f:"widget.js");s.async=true;` +
	`(d.head||d.body).appendChild(s)})(window,document);`

// BootstrapScriptHash is the CSP source expression of BootstrapScript
// ("'sha256-…'"): add it to script-src beside the widget's origin.
var BootstrapScriptHash = func() string {
	sum := sha256.Sum256([]byte(BootstrapScript))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// The snippet: the container front-ends look up by its id, with a loading
// skeleton and the bootstrap script. The script is inside the container:
// front-ends that insert the snippet with innerHTML re-create only the
// script nodes under the container to make them run.
var snippetTmpl = template.Must(template.New("snippet").Parse(
	`<div id="{{.Container}}" class="deliverykit-checkout" lang="{{.Lang}}" data-deliverykit-object="{{.Object}}" ` +
		`data-deliverykit-token="{{.Token}}" data-deliverykit-base="{{.Base}}" data-deliverykit-script="{{.Script}}">` +
		`<div class="dk-skeleton" role="status" aria-busy="true">{{.Loading}}</div>` +
		`<noscript>{{.NoScript}}</noscript><script>{{.Bootstrap}}</script></div>`))

// Snippet returns the markup a merchant drops into its checkout page: a
// container bound to one session's widget token and the script that
// renders the shipping selector into it, with the default names
// (DefaultContainerID, DefaultObjectID). Values are escaped by
// html/template.
//
// Every session view carries a snippet, so it is on the hot path of
// session.create and session.get, where executing the template each time
// showed in the profiles. Tokens and names made of letters, digits, '_',
// '-' and '$' (every token the ID sources make, every valid
// SnippetConfiguration) are left as they are by the template's escaping,
// so the markup around them is rendered once per language and base and
// they are spliced in; anything else goes through the template.
//
// Snippet's texts (the loading line, the no-JavaScript line) are English;
// SnippetIn writes them in a language of the message catalog.
func Snippet(base, token string) string { return SnippetIn(language.English, base, token) }

// SnippetIn is Snippet with its texts in the language of tag (the
// session's, as the service renders it).
func SnippetIn(tag language.Tag, base, token string) string {
	return SnippetFor(tag, base, token, SnippetConfiguration{})
}

// SnippetFor is SnippetIn with the container and global that cfg names.
// cfg is expected to be valid (requests are checked); its names are
// escaped all the same.
func SnippetFor(tag language.Tag, base, token string, cfg SnippetConfiguration) string {
	lang, _ := tag.Base()
	return snippetFor(lang, base, token, cfg)
}

// snippetFor is SnippetFor for the base language of the tag, which the
// service keeps with the tag (record.lang): Tag.Base allocates.
func snippetFor(lang language.Base, base, token string, cfg SnippetConfiguration) string {
	container, object := cfg.names()
	if !plainToken(token) || !plainToken(container) || !plainToken(object) {
		return renderSnippet(lang, base, container, object, token)
	}
	key := snippetKey{lang, base}
	if parts, ok := snippetParts.Load(key); ok {
		return splice(parts.(*[4]string), container, object, token)
	}
	parts, ok := cutSnippet(renderSnippet(lang, base, containerPlaceholder, objectPlaceholder, tokenPlaceholder))
	if !ok {
		return renderSnippet(lang, base, container, object, token)
	}
	if snippetBases.Add(1) <= maxSnippetBases {
		snippetParts.Store(key, parts)
	}
	return splice(parts, container, object, token)
}

// Placeholders stand for the container id, the object id and the token
// when SnippetFor renders the markup around them; they are plain, so the
// template leaves them unchanged.
const (
	containerPlaceholder = "deliverykit_container_placeholder_7f3a"
	objectPlaceholder    = "deliverykit_object_placeholder_7f3a"
	tokenPlaceholder     = "deliverykit_token_placeholder_7f3a"
)

// cutSnippet splits markup rendered with the placeholders into the four
// parts around them. It fails when a placeholder is not where the template
// puts it exactly once (a base that holds one).
func cutSnippet(rendered string) (*[4]string, bool) {
	var parts [4]string
	rest := rendered
	for i, ph := range []string{containerPlaceholder, objectPlaceholder, tokenPlaceholder} {
		if strings.Count(rendered, ph) != 1 {
			return nil, false
		}
		before, after, ok := strings.Cut(rest, ph)
		if !ok {
			return nil, false
		}
		parts[i], rest = before, after
	}
	parts[3] = rest
	return &parts, true
}

func splice(p *[4]string, container, object, token string) string {
	var b strings.Builder
	b.Grow(len(p[0]) + len(p[1]) + len(p[2]) + len(p[3]) + len(container) + len(object) + len(token))
	b.WriteString(p[0])
	b.WriteString(container)
	b.WriteString(p[1])
	b.WriteString(object)
	b.WriteString(p[2])
	b.WriteString(token)
	b.WriteString(p[3])
	return b.String()
}

// snippetParts caches, by language and base, the markup around the
// container id, the object id and the token. Bases are few (one per
// Service, from configuration) and so are languages; the names and the
// token are spliced in, so sessions' configurations add no entries. Past
// maxSnippetBases a caller passing bases of its own gets them rendered
// each time, so the cache cannot grow with traffic.
var (
	snippetParts sync.Map // snippetKey → *[4]string
	snippetBases atomic.Int64
)

// snippetKey is a key of snippetParts: a struct rather than the two
// joined into a string, which was one allocation per session rendered.
type snippetKey struct {
	lang language.Base
	base string
}

const maxSnippetBases = 64

func renderSnippet(lang language.Base, base, container, object, token string) string {
	var b bytes.Buffer
	tag, _ := language.Compose(lang)
	data := struct {
		Lang, Base, Token string
		Script            string
		Container, Object string
		Loading, NoScript string
		Bootstrap         template.JS
	}{lang.String(), base, token, WidgetScriptName, container, object, i18n.Text(tag, "widget.loading"), i18n.Text(tag, "widget.noscript"), template.JS(BootstrapScript)}
	if err := snippetTmpl.Execute(&b, data); err != nil {
		panic("checkout: snippet template: " + err.Error()) // static template, string fields: cannot fail
	}
	return b.String()
}

// lang is the language the session's shopper is spoken to in: the
// catalog locale its options were computed in, else its first locale.
func (r *record) lang() language.Tag { return r.language().tag }

// language is lang with the tag's base language.
func (r *record) language() matchedLanguage {
	loc := ""
	if r.Options != nil {
		loc = r.Options.Locale
	}
	if loc == "" && len(r.Locales) > 0 {
		loc = r.Locales[0]
	}
	if m, ok := langs.Load(loc); ok {
		return m.(matchedLanguage)
	}
	t := i18n.Match(loc)
	base, _ := t.Base()
	m := matchedLanguage{t, base}
	if langCount.Add(1) <= maxSnippetBases {
		langs.Store(loc, m)
	}
	return m
}

// matchedLanguage is a language matched for a locale, with its base
// language (what the snippet is rendered in), found once: Tag.Base
// allocates every time.
type matchedLanguage struct {
	tag  language.Tag
	base language.Base
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

// langs remembers the matchedLanguage of a locale string: locales are
// the catalogs' few, and the bound keeps it so.
var (
	langs     sync.Map
	langCount atomic.Int64
)

// plainToken reports whether every byte of t is a letter, digit, '_', '-'
// or '$': characters no HTML escaping changes.
func plainToken(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '$') {
			return false
		}
	}
	return true
}

// WidgetState is what the widget renders: the session's categories and
// options in the customer's locale, and the current choice.
type WidgetState struct {
	Status        Status   `json:"status"`
	Locale        string   `json:"locale"`
	Currency      string   `json:"currency"`
	Selected      string   `json:"selected,omitempty"`
	Addons        []string `json:"addons,omitempty"`
	ShippingPrice int64    `json:"shipping_price"`
	// ShippingPriceText is ShippingPrice written for the shopper, as
	// every customer page writes money (i18n.Money): "49,00 kr".
	ShippingPriceText string           `json:"shipping_price_text"`
	Categories        []WidgetCategory `json:"categories"`
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
	// PriceText is Price written for the shopper.
	PriceText string `json:"price_text"`
}

// WidgetOption is an option as the widget shows it. Dates are the
// warehouse's calendar dates ("2026-11-20"); PriceText and DatesText are
// the price and the dates written for the shopper, as every customer
// page writes them ("49,00 kr", "fre 27 nov.–mån 30 nov.").
type WidgetOption struct {
	ID           string    `json:"id"`
	Carrier      string    `json:"carrier"`
	Product      string    `json:"product"`
	Price        int64     `json:"price"`
	EarliestDate string    `json:"earliest_date"`
	LatestDate   string    `json:"latest_date"`
	PriceText    string    `json:"price_text"`
	DatesText    string    `json:"dates_text"`
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
	// One record: storage.Get, one statement on a store that offers it,
	// where a View costs PostgreSQL two round trips. The session is read
	// after it (loadShared), as it always was, in a read of its own.
	rec, err := storage.Get(ctx, s.store, tokens.Name, token)
	if errors.Is(err, deliverykit.ErrNotFound) {
		return tr, errBadToken
	}
	if err != nil {
		return tr, err
	}
	it, err := tokens.Decode(rec)
	return it.Value, err
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
	money := func(minor int64) string { return i18n.Money(tag, minor, r.Currency) }
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
		st.Summary.DeliveryType = lowerDeliveryType(cat.DeliveryType)
		st.Summary.ExternalMethodID = opt.Carrier.ExternalID
		st.Summary.CategoryName = cat.Name
		st.Summary.Price = st.ShippingPrice
		if opt.Location != nil {
			st.Summary.PickupLocation = opt.Location.ExternalID
		}
	}
	st.ShippingPriceText = money(st.ShippingPrice)
	for _, c := range r.Options.Categories {
		wc := WidgetCategory{ID: c.ID, Name: c.Name, CustomText: c.CustomText, DeliveryType: string(c.DeliveryType), Options: []WidgetOption{}}
		for _, a := range c.Addons {
			wc.Addons = append(wc.Addons, WidgetAddon{ID: a.ID, Name: a.Name, Price: a.Price, PriceText: money(a.Price)})
		}
		for _, o := range c.Options {
			wc.Options = append(wc.Options, WidgetOption{
				ID: o.ID, Carrier: o.Carrier.Name, Product: o.Carrier.ProductName, Price: o.Price,
				EarliestDate: o.ETD.Earliest.Format(time.DateOnly), LatestDate: o.ETD.Latest.Format(time.DateOnly),
				PriceText: money(o.Price), DatesText: i18n.DayRange(tag, o.ETD.Earliest, o.ETD.Latest),
				Location: location(o.Location),
			})
		}
		st.Categories = append(st.Categories, wc)
	}
	return st
}
