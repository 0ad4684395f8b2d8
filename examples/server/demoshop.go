package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
	"golang.org/x/text/language"
)

// The demo shop is a merchant's web shop in miniature, served at
// /demo/shop: a product page and cart whose checkout hosts the widget the
// way front-ends do. Its backend (/demo/shop/api/…) calls the services in
// process, so no API key reaches the browser: it creates the checkout
// session, updates its cart, reads its total, completes it, ships the
// order from the site's warehouse (the parcel travels when the carrier is
// the simulator) and starts a return. It is for trying deliverykit out:
// anyone who reaches it can place orders on its site.

//go:embed demoshop
var demoShopFiles embed.FS

// shopPath is where the shop is served.
const shopPath = "/demo/shop"

// Bounds of what the shop's backend accepts.
const (
	maxShopBody     = 8 << 10 // bytes of a request body
	maxShopQuantity = 9       // units of one product in the cart
	// shopMeta marks the checkout sessions the shop created: its backend
	// acts on those only.
	shopMeta = "demo_shop"
)

// shopProduct is one product of the shop. Prices are öre (SEK minor
// units), weights grams.
type shopProduct struct {
	SKU    string
	Price  int64
	Weight int64
	Image  string
	// Names and Descriptions are by shop language.
	Names, Descriptions map[string]string
}

// shopProducts are what the shop sells: the demo catalog's outdoor world.
var shopProducts = []shopProduct{
	{SKU: "tent-2p", Price: 89900, Weight: 2400, Image: "tent.svg",
		Names:        map[string]string{"en-US": "Tent, 2 persons", "sv-SE": "Tält, 2 personer"},
		Descriptions: map[string]string{"en-US": "Light three-season tent with two entrances.", "sv-SE": "Lätt tresäsongstält med två ingångar."}},
	{SKU: "bag-3s", Price: 59900, Weight: 1200, Image: "bag.svg",
		Names:        map[string]string{"en-US": "Sleeping bag", "sv-SE": "Sovsäck"},
		Descriptions: map[string]string{"en-US": "Warm down to −5 °C, packs small.", "sv-SE": "Varm ner till −5 °C, packas litet."}},
	{SKU: "stove-1", Price: 34900, Weight: 400, Image: "stove.svg",
		Names:        map[string]string{"en-US": "Camping stove", "sv-SE": "Stormkök"},
		Descriptions: map[string]string{"en-US": "Boils a litre of water in four minutes.", "sv-SE": "Kokar en liter vatten på fyra minuter."}},
	{SKU: "lamp-1", Price: 24900, Weight: 150, Image: "lamp.svg",
		Names:        map[string]string{"en-US": "Head lamp", "sv-SE": "Pannlampa"},
		Descriptions: map[string]string{"en-US": "300 lumens, rechargeable.", "sv-SE": "300 lumen, laddningsbar."}},
}

// shopLangs are the languages the shop speaks; the first is the default.
var shopLangs = []string{"en-US", "sv-SE"}

var shopMatcher = language.NewMatcher([]language.Tag{language.MustParse("en-US"), language.MustParse("sv-SE")})

// shopLang is the language of a request: ?lang= when it names one the shop
// speaks, else the best match of Accept-Language, else English.
func shopLang(r *http.Request) string {
	q := r.URL.Query().Get("lang")
	if len(q) > 35 {
		q = ""
	}
	_, i := language.MatchStrings(shopMatcher, q, r.Header.Get("Accept-Language"))
	if i < 0 || i >= len(shopLangs) {
		return shopLangs[0]
	}
	return shopLangs[i]
}

// demoShop is the shop's handler.
type demoShop struct {
	svcs *wiring.Services
	site config.Site
	// widgetOrigin is where the widget's script and calls come from: the
	// server's public URL.
	widgetOrigin string
	csp          string
	page         *template.Template
	static       http.Handler
	log          *slog.Logger
}

// newDemoShop is the shop of cfg's site demo-site, else its first site with
// a catalog and a warehouse. publicURL is the server's (the widget's
// origin).
func newDemoShop(svcs *wiring.Services, cfg *config.Config, publicURL string, log *slog.Logger) (*demoShop, error) {
	var site config.Site
	for _, st := range cfg.Sites {
		if st.Catalog == nil || len(st.Catalog.Warehouses) == 0 {
			continue
		}
		if site.ID == "" || st.ID == "demo-site" {
			site = st
		}
	}
	if site.ID == "" {
		return nil, errors.New("-demo-shop: no site of the configuration has a catalog with a warehouse to ship from")
	}
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("-demo-shop: the public URL %q has no host", publicURL)
	}
	origin := u.Scheme + "://" + u.Host
	page, err := template.ParseFS(demoShopFiles, "demoshop/shop.html")
	if err != nil {
		return nil, err
	}
	static, _ := fs.Sub(demoShopFiles, "demoshop/static")
	return &demoShop{svcs: svcs, site: site, widgetOrigin: origin, page: page, log: log,
		static: http.StripPrefix(shopPath+"/static/", http.FileServerFS(static)),
		// The page's own script is a served file; the widget's bootstrap
		// is allowed by its hash, its script and calls by its origin. The
		// widget injects its stylesheet, hence inline styles.
		csp: "default-src 'none'; script-src 'self' " + checkout.BootstrapScriptHash + " " + origin +
			"; connect-src 'self' " + origin + "; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:" +
			"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"}, nil
}

// wrap serves the shop at /demo/shop and everything else with next.
func (s *demoShop) wrap(next http.Handler) http.Handler {
	s.log.Info("the demo shop: open it in a browser", "url", s.widgetOrigin+shopPath)
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+shopPath, s.servePage)
	mux.Handle("GET "+shopPath+"/static/", s.static)
	mux.HandleFunc("POST "+shopPath+"/api/session", s.api(s.createSession))
	mux.HandleFunc("POST "+shopPath+"/api/cart", s.api(s.updateCart))
	mux.HandleFunc("GET "+shopPath+"/api/summary", s.api(s.summary))
	mux.HandleFunc("POST "+shopPath+"/api/complete", s.api(s.complete))
	mux.HandleFunc("POST "+shopPath+"/api/return", s.api(s.startReturn))
	shop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		mux.ServeHTTP(w, r)
	})
	outer := http.NewServeMux()
	outer.Handle(shopPath, shop)
	outer.Handle(shopPath+"/", shop)
	outer.Handle("/", next)
	return outer
}

// shopPage is what the page template renders.
type shopPage struct {
	Lang     string
	T        shopText
	Langs    []shopLangLink
	Products []shopPageProduct
	// Data is read by shop.js: its texts, the language and currency.
	Data shopData
}

type shopLangLink struct{ Code, Name string }

type shopPageProduct struct {
	SKU, Name, Description, Image string
	Price                         int64
}

type shopData struct {
	Lang     string            `json:"lang"`
	Currency string            `json:"currency"`
	Texts    map[string]string `json:"texts"`
	Names    map[string]string `json:"names"`
	Prices   map[string]int64  `json:"prices"`
}

func (s *demoShop) servePage(w http.ResponseWriter, r *http.Request) {
	lang := shopLang(r)
	t := shopTexts[lang]
	p := shopPage{Lang: lang, T: t, Data: shopData{Lang: lang, Currency: "SEK", Texts: t.script(),
		Names: map[string]string{}, Prices: map[string]int64{}}}
	for _, l := range shopLangs {
		p.Langs = append(p.Langs, shopLangLink{Code: l, Name: shopTexts[l].LangName})
	}
	for _, pr := range shopProducts {
		p.Products = append(p.Products, shopPageProduct{SKU: pr.SKU, Name: pr.Names[lang], Description: pr.Descriptions[lang], Image: pr.Image, Price: pr.Price})
		p.Data.Names[pr.SKU], p.Data.Prices[pr.SKU] = pr.Names[lang], pr.Price
	}
	h := w.Header()
	h.Set("Content-Security-Policy", s.csp)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Language", lang)
	h.Set("Vary", "Accept-Language")
	h.Set("Cache-Control", "no-store")
	if err := s.page.Execute(w, p); err != nil {
		s.log.Error("demo shop: rendering the page", "err", err)
	}
}

// api adapts a backend endpoint: it bounds and decodes the JSON body,
// and answers the endpoint's value, or its error as {"error": message}
// with the error's kind's status.
func (s *demoShop) api(fn func(ctx context.Context, r *http.Request, body []byte) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Method == http.MethodPost {
			// JSON only: another site's page cannot post a form here.
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				writeShopJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "Content-Type: want application/json"})
				return
			}
			b, err := readShopBody(w, r)
			if err != nil {
				writeShopJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": err.Error()})
				return
			}
			body = b
		}
		out, err := fn(r.Context(), r, body)
		if err != nil {
			status := shopStatus(err)
			if status == http.StatusInternalServerError {
				s.log.Error("demo shop", "path", r.URL.Path, "err", err)
			}
			writeShopJSON(w, status, map[string]string{"error": deliverykit.Message(err)})
			return
		}
		writeShopJSON(w, http.StatusOK, out)
	}
}

func readShopBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxShopBody))
	if err != nil {
		return nil, fmt.Errorf("the body: larger than %d bytes, or cut short", maxShopBody)
	}
	return b, nil
}

func writeShopJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// shopStatus is the HTTP status of an error's kind.
func shopStatus(err error) int {
	switch deliverykit.KindOf(err) {
	case deliverykit.KindInvalidArgument:
		return http.StatusBadRequest
	case deliverykit.KindNotFound:
		return http.StatusNotFound
	case deliverykit.KindConflict, deliverykit.KindFailedPrecondition:
		return http.StatusConflict
	case deliverykit.KindUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// decodeShop decodes a request body into v; an unreadable body is a 400.
func decodeShop(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return deliverykit.InvalidField("body", "json", "is not the JSON object this endpoint takes")
	}
	return nil
}

// shopCart is a cart as the page sends it: quantities by SKU.
type shopCart map[string]int

// checkoutCart is the checkout's cart for c, priced from the shop's
// products (the browser sends quantities only).
func (c shopCart) checkoutCart(lang string) (*checkout.Cart, error) {
	if len(c) > len(shopProducts) {
		return nil, deliverykit.InvalidField("cart", "max", fmt.Sprintf("has %d products, the shop sells %d", len(c), len(shopProducts)))
	}
	out := &checkout.Cart{Currency: "SEK"}
	for _, p := range shopProducts {
		q, ok := c[p.SKU]
		if !ok || q == 0 {
			continue
		}
		if q < 0 || q > maxShopQuantity {
			return nil, deliverykit.InvalidField("cart."+p.SKU, "max", fmt.Sprintf("must be between 0 and %d, got %d", maxShopQuantity, q))
		}
		out.Items = append(out.Items, checkout.CartItem{SKU: p.SKU, Name: p.Names[lang], Quantity: int64(q), Price: p.Price, Weight: p.Weight})
		out.TotalValue += p.Price * int64(q)
	}
	for sku := range c {
		if !slices.ContainsFunc(shopProducts, func(p shopProduct) bool { return p.SKU == sku }) {
			return nil, deliverykit.InvalidField("cart", "oneof", fmt.Sprintf("the shop sells no %.40q", sku))
		}
	}
	if len(out.Items) == 0 {
		return nil, deliverykit.InvalidField("cart", "required", "is empty")
	}
	return out, nil
}

// shopSummary is the order total the page shows, in minor units.
type shopSummary struct {
	Items    int64  `json:"items"`
	Shipping int64  `json:"shipping"`
	Total    int64  `json:"total"`
	Currency string `json:"currency"`
}

func summaryOf(s checkout.Session) shopSummary {
	out := shopSummary{Items: s.Cart.TotalValue, Shipping: s.ShippingPrice, Currency: cmp.Or(s.Cart.Currency, "SEK")}
	out.Total = out.Items + out.Shipping
	return out
}

// session reads a checkout session the shop created.
func (s *demoShop) session(ctx context.Context, id string) (*checkout.View, error) {
	if id == "" || len(id) > 100 {
		return nil, deliverykit.InvalidField("id", "required", "names the checkout session, at most 100 characters")
	}
	v, err := s.svcs.Checkout.Get(ctx, s.site.ID, id)
	if err != nil {
		return nil, err
	}
	if v.Session.Meta[shopMeta] == "" {
		return nil, deliverykit.E(deliverykit.KindNotFound, "the shop has no checkout session "+id)
	}
	return v, nil
}

// defaultSearchPostalCode places the options until the shopper gives a
// postal code: central Stockholm.
const defaultSearchPostalCode = "111 57"

type createSessionBody struct {
	Lang       string   `json:"lang"`
	Cart       shopCart `json:"cart"`
	PostalCode string   `json:"postal_code"`
}

func (s *demoShop) createSession(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var in createSessionBody
	if err := decodeShop(body, &in); err != nil {
		return nil, err
	}
	lang := knownLang(in.Lang)
	cart, err := in.Cart.checkoutCart(lang)
	if err != nil {
		return nil, err
	}
	v, err := s.svcs.Checkout.Create(ctx, s.site.ID, checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK",
		Locales: []string{lang}, Cart: cart, Meta: checkout.Meta{shopMeta: "1"},
		SearchAddress: &checkout.SearchAddress{PostalCode: cmp.Or(in.PostalCode, defaultSearchPostalCode), Country: "SE"}})
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": v.Session.ID, "html_snippet": v.HTMLSnippet, "summary": summaryOf(v.Session)}, nil
}

type updateCartBody struct {
	ID         string   `json:"id"`
	Lang       string   `json:"lang"`
	Cart       shopCart `json:"cart"`
	PostalCode string   `json:"postal_code"`
}

// updateCart is session.update with the page's cart and, when the
// shopper has typed one, the postal code the options are for.
func (s *demoShop) updateCart(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var in updateCartBody
	if err := decodeShop(body, &in); err != nil {
		return nil, err
	}
	if _, err := s.session(ctx, in.ID); err != nil {
		return nil, err
	}
	cart, err := in.Cart.checkoutCart(knownLang(in.Lang))
	if err != nil {
		return nil, err
	}
	req := checkout.UpdateRequest{ID: in.ID, Cart: cart}
	if in.PostalCode != "" {
		req.SearchAddress = &checkout.SearchAddress{PostalCode: in.PostalCode, Country: "SE"}
	}
	v, err := s.svcs.Checkout.Update(ctx, s.site.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"summary": summaryOf(v.Session)}, nil
}

// summary is session.get, as the page asks after data_changed.
func (s *demoShop) summary(ctx context.Context, r *http.Request, _ []byte) (any, error) {
	v, err := s.session(ctx, r.URL.Query().Get("id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"summary": summaryOf(v.Session)}, nil
}

// shopCustomer is the page's customer form.
type shopCustomer struct {
	Name       string `json:"name"`
	Email      string `json:"email"`
	Street     string `json:"street"`
	PostalCode string `json:"postal_code"`
	City       string `json:"city"`
}

type completeBody struct {
	ID       string       `json:"id"`
	Lang     string       `json:"lang"`
	Customer shopCustomer `json:"customer"`
}

// complete completes the session with the customer under a new order
// number, ships the order from the site's warehouse and answers the
// customer's tracking link.
func (s *demoShop) complete(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var in completeBody
	if err := decodeShop(body, &in); err != nil {
		return nil, err
	}
	lang := knownLang(in.Lang)
	c := in.Customer
	for _, f := range []struct{ name, value string }{{"customer.name", c.Name}, {"customer.email", c.Email},
		{"customer.street", c.Street}, {"customer.postal_code", c.PostalCode}, {"customer.city", c.City}} {
		if strings.TrimSpace(f.value) == "" {
			return nil, deliverykit.InvalidField(f.name, "required", "is required")
		}
	}
	if _, err := s.session(ctx, in.ID); err != nil {
		return nil, err
	}
	order, err := newShopOrderNumber()
	if err != nil {
		return nil, err
	}
	cust := &checkout.Customer{Email: c.Email, Address: &checkout.CustomerAddress{Name: c.Name, AddressLines: []string{c.Street},
		City: c.City, PostalCode: c.PostalCode, Country: "SE"}}
	done, err := s.svcs.Checkout.Complete(ctx, s.site.ID, checkout.CompleteRequest{ID: in.ID, Customer: cust, ExternalID: order})
	if err != nil {
		return nil, err
	}
	tn, err := s.ship(ctx, order, done.Session, cust)
	if err != nil {
		return nil, err
	}
	link, err := s.svcs.Tracking.GenerateLink(ctx, s.site.ID, tracking.GenerateTrackingPageLinkRequest{SiteID: s.site.ID, Locale: lang, TrackingNumber: tn})
	if err != nil {
		return nil, fmt.Errorf("the tracking link of %s: %w", tn, err)
	}
	return map[string]any{"order": order, "tracking_number": tn, "tracking_link": link.TrackingLink, "summary": summaryOf(done.Session)}, nil
}

// newShopOrderNumber is a fresh order number: random, so that orders of
// earlier runs on the same store never collide with it.
func newShopOrderNumber() (string, error) {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("an order number: %w", err)
	}
	return "shop-" + strings.ToUpper(hex.EncodeToString(b)), nil
}

// ship books the order as the merchant's warehouse does: one parcel with
// the cart, from the site's first warehouse, with the chosen product (to
// the chosen pickup point). Booked under the order number, the parcel is
// tracked under the checkout's tracking order.
func (s *demoShop) ship(ctx context.Context, order string, sess checkout.Session, cust *checkout.Customer) (string, error) {
	opt := sess.SelectedShippingOption
	if opt == nil {
		return "", deliverykit.E(deliverykit.KindFailedPrecondition, "the checkout has no delivery option to ship with")
	}
	wh, _ := s.site.Catalog.Warehouse("")
	p := shipment.ParcelInput{Deliveries: []shipment.DeliveryInput{{CarrierProductRef: opt.ShippingMethod}}}
	var grams int64
	for _, it := range sess.Cart.Items {
		grams += it.Weight * it.Quantity
		p.LineItems = append(p.LineItems, shipment.LineItem{SKU: it.SKU, Name: it.Name, Quantity: int32(min(it.Quantity, math.MaxInt32)),
			Price: int32(min(it.Price, math.MaxInt32)), Currency: "SEK"})
	}
	p.Weight = int32(min(max(grams, 1), math.MaxInt32))
	if l := opt.Location; l != nil {
		pick := &shipment.Pickup{ID: l.ExternalID}
		if la := l.Address; la != nil {
			pick.Address = &shipment.Address{Name: la.Name, AddressLines: la.AddressLines, City: la.City, PostalCode: la.PostalCode, Country: la.Country, Coordinates: la.Coordinates}
		}
		p.Deliveries[0].Pickup = pick
	}
	a, wa := cust.Address, wh.Address
	sh, err := s.svcs.Shipment.CreateAndBook(ctx, s.site.ID, shipment.CreateShipmentRequest{
		ExternalID: order,
		Sender: &shipment.Sender{Name: cmp.Or(s.site.Name, wa.Name), Address: &shipment.Address{Name: wa.Name, AddressLines: wa.AddressLines,
			City: wa.City, PostalCode: wa.PostalCode, Country: wa.Country}},
		Receiver: &shipment.Receiver{Name: a.Name, Email: cust.Email, Address: &shipment.Address{Name: a.Name, AddressLines: a.AddressLines,
			City: a.City, PostalCode: a.PostalCode, Country: a.Country}},
		Parcels: []shipment.ParcelInput{p},
	})
	if err != nil {
		return "", fmt.Errorf("shipping %s: %w", order, err)
	}
	return sh.Parcels[0].Deliveries[0].TrackingNumber, nil
}

type returnBody struct {
	Order string `json:"order"`
	Email string `json:"email"`
	Lang  string `json:"lang"`
}

// startReturn is the customer returning the whole order, as the public
// return form does, and answers the return's status page.
func (s *demoShop) startReturn(ctx context.Context, r *http.Request, body []byte) (any, error) {
	var in returnBody
	if err := decodeShop(body, &in); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(in.Order, "shop-") || len(in.Order) > 40 {
		return nil, deliverykit.InvalidField("order", "prefix", "names an order of the shop")
	}
	lang := knownLang(in.Lang)
	o, err := s.svcs.Returns.GetOrder(ctx, s.site.ID, in.Order, returns.IDForeign)
	if err != nil {
		return nil, err
	}
	ret := returns.CustomerReturnInput{SiteID: s.site.ID, ForeignOrderID: in.Order, Email: in.Email, Locale: lang}
	for _, li := range o.Items {
		ret.Items = append(ret.Items, returns.CustomerReturnItemInput{ForeignLineItemID: li.ForeignLineItemID, Quantity: li.Quantity,
			Reason: shopTexts[lang].ReturnReason})
	}
	created, err := s.svcs.Returns.CreateReturn(ctx, ret)
	if err != nil {
		return nil, err
	}
	return map[string]any{"status_url": created.StatusURL, "id": strconv.FormatUint(created.ID, 10)}, nil
}

// knownLang is lang when the shop speaks it, else English.
func knownLang(lang string) string {
	for _, l := range shopLangs {
		if l == lang {
			return l
		}
	}
	return shopLangs[0]
}

// demoTimeScale is the simulator's time scale when the demo configuration
// chose it: a day a minute. A parcel is collected at the product's cut-off
// and delivered one to three days later (a weekend adds two), so its
// journey takes a minute or a few, mostly about two.
const demoTimeScale = 1440

// demoDefaults fills in what the flags leave to the configuration: with
// the demo configuration (no -config) parcels travel by themselves and
// the demo shop is served.
func (f *flags) demoDefaults(fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	demo := f.configPath == ""
	switch f.demoCarrier {
	case "static": // the name earlier releases gave manual
		f.demoCarrier = "manual"
	case "":
		f.demoCarrier = "manual"
		if demo {
			f.demoCarrier = "simulate"
			f.timeScale = cmp.Or(f.timeScale, demoTimeScale)
		}
	}
	if f.demoCarrier == "simulate" {
		f.timeScale = cmp.Or(f.timeScale, 1)
	}
	if !set["demo-shop"] {
		f.demoShop = demo
	}
	if !set["console"] {
		f.console = demo
	}
}
