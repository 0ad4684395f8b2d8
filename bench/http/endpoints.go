package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The demo configuration's first site and its public key.
const (
	site = "demo-site"
	key  = "demo-key"
)

var bearer = "Bearer " + base64.StdEncoding.EncodeToString([]byte(key))

// spec is one request to send, again and again.
type spec struct {
	method string
	url    string
	header http.Header
	body   []byte
	// keyed sends every request with an Idempotency-Key of its own, as a
	// merchant's backend does: each is a first request, never a replay.
	keyed bool
}

// fixture is what seeding created on one server and the GET endpoints read.
type fixture struct {
	sessionID      string // a checkout session
	trackingNumber string // a tracking parcel
}

// endpoint is one measured endpoint.
type endpoint struct {
	name  string
	title string // method and path as printed
	// targets are the minimum ratios of the memory server to the
	// baseline (BENCHMARKS.md, "Targets"), by load generator; none: no target.
	targets map[string]float64
	// unkeyed names the same request without an Idempotency-Key: the
	// report gives this endpoint's cost over that one's, round by round
	// (BENCHMARKS.md, "Targets": at most keyCostTarget on memory and bolt).
	unkeyed string
	request func(base string, f fixture) spec
}

// The README's tour bodies: a one-item cart, and a one-delivery session.
const (
	siwCreateBody = `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
  "cart": {"cart_id": "order-1001", "total_value": 45000,
           "items": [{"sku": "tent-2p", "name": "Tent", "quantity": 1, "price": 45000}]},
  "search_address": {"postal_code": "111 57", "country": "SE"}}`
	deliveryCreateBody = `{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
  "deliveries": [{"id": "d1",
    "line_items": [{"sku": "tent-2p", "title": "Tent", "quantity": 1, "weight": 2400, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
    "recipient_contact": {"email": "erik@example.com", "address": {"country_code": "SE",
      "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}}]}`
)

func bearerHeader() http.Header { return http.Header{"Authorization": {bearer}} }

// jsonHeader is h with the JSON content type every POST sends.
func jsonHeader(h http.Header) http.Header {
	h.Set("Content-Type", "application/json")
	return h
}

var endpoints = []endpoint{
	{
		name: "siw.create", title: "POST /v1/siw/session.create", targets: map[string]float64{"go": 0.5, "wrk": 0.45},
		request: func(base string, _ fixture) spec {
			return spec{http.MethodPost, base + "/v1/siw/session.create", jsonHeader(bearerHeader()), []byte(siwCreateBody), false}
		},
	},
	{
		// siw.create with a fresh Idempotency-Key per request: the cost of
		// storing the answer in the create's transaction.
		name: "siw.create.key", title: "POST /v1/siw/session.create, Idempotency-Key", unkeyed: "siw.create",
		request: func(base string, _ fixture) spec {
			return spec{http.MethodPost, base + "/v1/siw/session.create", jsonHeader(bearerHeader()), []byte(siwCreateBody), true}
		},
	},
	{
		name: "siw.get", title: "GET /v1/siw/session.get", targets: map[string]float64{"go": 0.8, "wrk": 0.8},
		request: func(base string, f fixture) spec {
			return spec{http.MethodGet, base + "/v1/siw/session.get?id=" + f.sessionID, bearerHeader(), nil, false}
		},
	},
	{
		name: "delivery.create", title: "POST /delivery/v1/sessions",
		request: func(base string, _ fixture) spec {
			return spec{http.MethodPost, base + "/delivery/v1/sessions", jsonHeader(http.Header{"Authorization": {key}}), []byte(deliveryCreateBody), false}
		},
	},
	{
		name: "parcels", title: "GET /v1/delivery_tracking/parcels",
		request: func(base string, f fixture) spec {
			return spec{http.MethodGet, base + "/v1/delivery_tracking/parcels?site_id=" + site + "&tracking_number=" + f.trackingNumber, bearerHeader(), nil, false}
		},
	},
	{
		name: "returns", title: "GET /returns/merchant/return?size=20",
		request: func(base string, _ fixture) spec {
			return spec{http.MethodGet, base + "/returns/merchant/return?size=20", http.Header{"X-Api-Key": {key}}, nil, false}
		},
	},
}

func endpointNames() []string {
	var names []string
	for _, ep := range endpoints {
		names = append(names, ep.name)
	}
	return names
}

func selectEndpoints(list string) ([]endpoint, error) {
	if list == "all" {
		return endpoints, nil
	}
	var out []endpoint
	for name := range strings.SplitSeq(list, ",") {
		i := slices.IndexFunc(endpoints, func(ep endpoint) bool { return ep.name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("-endpoints: unknown endpoint %q (want %s or all)", name, strings.Join(endpointNames(), ","))
		}
		out = append(out, endpoints[i])
	}
	return out, nil
}

// send performs s once and returns the response body; a status other than
// 2xx is an error.
func send(ctx context.Context, c *http.Client, s spec) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, s.method, s.url, bytes.NewReader(s.body))
	if err != nil {
		return nil, err
	}
	req.Header = s.header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if s.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return b, fmt.Errorf("%s %s: %s: %.300s", s.method, s.url, resp.Status, b)
	}
	return b, nil
}

var (
	sessionIDRe = regexp.MustCompile(`"id":"(siw_[A-Za-z0-9_-]+)"`)
	trackingRe  = regexp.MustCompile(`"tracking_number":"([^"]+)"`)
)

// returnsSeeded is how many completed checkouts with a return each seed
// creates: more than the page of 20 the returns endpoint reads.
const returnsSeeded = 25

// seed creates, over HTTP, what the GET endpoints read.
func seed(ctx context.Context, c *http.Client, base string) (fixture, error) {
	var f fixture
	post := func(path string, h http.Header, body string) ([]byte, error) {
		return send(ctx, c, spec{http.MethodPost, base + path, h, []byte(body), false})
	}
	b, err := post("/v1/siw/session.create", bearerHeader(), siwCreateBody)
	if err != nil {
		return f, err
	}
	m := sessionIDRe.FindSubmatch(b)
	if m == nil {
		return f, fmt.Errorf("no session id in %.300s", b)
	}
	f.sessionID = string(m[1])

	b, err = post("/v1/som/shipments.createAndBook", bearerHeader(), `{"external_id": "ORD-2001",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"],
    "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"],
    "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100},
    "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`)
	if err != nil {
		return f, err
	}
	if m = trackingRe.FindSubmatch(b); m == nil {
		return f, fmt.Errorf("no tracking number in %.300s", b)
	}
	f.trackingNumber = string(m[1])

	for i := range returnsSeeded {
		order := fmt.Sprintf("order-%d", 2000+i)
		b, err := post("/v1/siw/session.create", bearerHeader(), strings.Replace(siwCreateBody, "order-1001", order, 1))
		if err != nil {
			return f, err
		}
		m := sessionIDRe.FindSubmatch(b)
		if m == nil {
			return f, fmt.Errorf("no session id in %.300s", b)
		}
		if _, err := post("/v1/siw/session.complete", bearerHeader(), `{"id": "`+string(m[1])+`",
  "customer": {"email": "anna@example.com", "address": {"name": "Anna Svensson",
  "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`); err != nil {
			return f, err
		}
		// The returnable order is the order.completed event's effect. On
		// one server it is there when complete answers; on two sharing
		// a database the other server's loop may hold the event's lease,
		// and the order follows within a lease or so.
		ret := `{"siteId": "` + site + `", "foreignOrderId": "` + order + `",
  "email": "anna@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1, "reason": "too small"}]}`
		for deadline := time.Now().Add(30 * time.Second); ; {
			b, err := post("/returns/customer/return", nil, ret)
			if err == nil {
				break
			}
			if !bytes.Contains(b, []byte("no order with this foreignOrderId")) || time.Now().After(deadline) {
				return f, err
			}
			select {
			case <-ctx.Done():
				return f, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return f, nil
}

// responseSizes sends each endpoint's request once to a deliverykit server
// and returns the sizes of the response bodies, by endpoint name.
func responseSizes(ctx context.Context, c *http.Client, base string, f fixture, eps []endpoint) (map[string]int, error) {
	sizes := make(map[string]int)
	for _, ep := range eps {
		b, err := send(ctx, c, ep.request(base, f))
		if err != nil {
			return nil, err
		}
		sizes[ep.name] = len(b)
	}
	return sizes, nil
}

// The baseline decodes the POST bodies into these structs, which mirror
// the create-session requests field for field.
type siwCreate struct {
	PurchaseCountry  string   `json:"purchase_country"`
	PurchaseCurrency string   `json:"purchase_currency"`
	Locales          []string `json:"locales"`
	Cart             struct {
		CartID     string `json:"cart_id"`
		TotalValue int64  `json:"total_value"`
		Items      []struct {
			SKU      string `json:"sku"`
			Name     string `json:"name"`
			Quantity int    `json:"quantity"`
			Price    int64  `json:"price"`
		} `json:"items"`
	} `json:"cart"`
	SearchAddress struct {
		PostalCode string `json:"postal_code"`
		Country    string `json:"country"`
	} `json:"search_address"`
}

type deliveryCreate struct {
	Purchase struct {
		CountryCode  string   `json:"country_code"`
		CurrencyCode string   `json:"currency_code"`
		TotalValue   string   `json:"total_value"`
		Locales      []string `json:"locales"`
	} `json:"purchase"`
	Deliveries []struct {
		ID        string `json:"id"`
		LineItems []struct {
			SKU      string `json:"sku"`
			Title    string `json:"title"`
			Quantity int    `json:"quantity"`
			Weight   int    `json:"weight"`
			Price    string `json:"price"`
		} `json:"line_items"`
		Fulfillments []struct {
			Readiness struct {
				EarliestTime string `json:"earliest_time"`
			} `json:"readiness"`
		} `json:"fulfillments"`
		RecipientContact struct {
			Email   string `json:"email"`
			Address struct {
				CountryCode  string   `json:"country_code"`
				PostalCode   string   `json:"postal_code"`
				City         string   `json:"city"`
				AddressLines []string `json:"address_lines"`
			} `json:"address"`
		} `json:"recipient_contact"`
	} `json:"deliveries"`
}

// baselineResponse is encoded with its padding sized so that the body is
// exactly as long as deliverykit's response to the same request.
type baselineResponse struct {
	ID      string `json:"id"`
	Padding string `json:"padding"`
}

// newBaseline returns the baseline handler: per endpoint, decode the body
// (POST) or read the query (GET), then encode a response of sizes[name]
// bytes.
func newBaseline(sizes map[string]int) (http.Handler, error) {
	return baselineMux(sizes, func(endpoint, string, int) (func(context.Context) error, error) { return nil, nil })
}

// baselineMux serves what the baselines share, per endpoint of sizes:
// decode the body (POST) or read the query (GET), run the endpoint's work
// (nil: none; a failure is a 500), then encode a response of sizes[name]
// bytes. work is asked once per endpoint, with its method and size.
func baselineMux(sizes map[string]int, work func(ep endpoint, method string, size int) (func(context.Context) error, error)) (*http.ServeMux, error) {
	mux := http.NewServeMux()
	registered := map[string]bool{} // a keyed variant shares its path
	for _, ep := range endpoints {
		size, ok := sizes[ep.name]
		if !ok {
			continue
		}
		s := ep.request("", fixture{})
		path, _, _ := strings.Cut(s.url, "?")
		if registered[s.method+" "+path] {
			continue
		}
		registered[s.method+" "+path] = true
		// json.Encoder adds a newline; the padding makes up the rest.
		empty, _ := json.Marshal(baselineResponse{ID: "id_0123456789"})
		padding := strings.Repeat("x", max(0, size-len(empty)-1))
		decode := baselineDecoder(ep.name)
		handle, err := work(ep, s.method, size)
		if err != nil {
			return nil, err
		}
		mux.HandleFunc(s.method+" "+path, func(w http.ResponseWriter, r *http.Request) {
			if decode != nil {
				if err := decode(r.Body); err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
			} else {
				_ = r.URL.Query()
			}
			if handle != nil {
				if err := handle(r.Context()); err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(baselineResponse{ID: "id_0123456789", Padding: padding})
		})
	}
	return mux, nil
}
