// Command checkoutmerchant is a merchant's checkout backend in miniature:
// it opens a checkout shipping session for a cart, lets the customer's
// choice stand, and places the order with the shipping cost the session
// says. Its logic lives in type Shop so that main_test.go can test it with
// deliverykit served in process, without a network.
//
//	go run ./examples/server &                       # the demo server
//	go run ./examples/checkoutmerchant -base http://127.0.0.1:8080 -key demo-key
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
)

// Shop talks to the checkout API the way a merchant backend does.
type Shop struct {
	Client *http.Client
	Base   string // e.g. http://127.0.0.1:8080
	APIKey string
}

// Item is a cart line of the shop.
type Item struct {
	SKU      string `json:"sku"`
	Name     string `json:"name"`
	Quantity int64  `json:"quantity"`
	Price    int64  `json:"price"` // minor units
}

// Order is what the shop records when the customer pays.
type Order struct {
	TosID         string
	ItemsTotal    int64
	ShippingPrice int64
	Total         int64
	Shipping      string // the delivery option's id
}

func (s *Shop) call(method, path string, in, out any) error {
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			return err
		}
	}
	req, err := http.NewRequest(method, s.Base+"/v1/siw"+path, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(s.APIKey)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, e.Error)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func total(items []Item) int64 {
	var t int64
	for _, it := range items {
		t += it.Quantity * it.Price
	}
	return t
}

// StartCheckout opens a session for the cart and returns its id and the
// widget markup to put on the checkout page.
func (s *Shop) StartCheckout(cartID string, items []Item, postalCode string) (id, snippet string, err error) {
	var out struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
		HTMLSnippet string `json:"html_snippet"`
	}
	err = s.call("POST", "/session.create", map[string]any{
		"purchase_country": "SE", "purchase_currency": "SEK", "locales": []string{"sv-SE"},
		"cart":           map[string]any{"cart_id": cartID, "total_value": total(items), "items": items},
		"search_address": map[string]any{"postal_code": postalCode, "country": "SE"},
	}, &out)
	return out.Session.ID, out.HTMLSnippet, err
}

// PlaceOrder completes the session with the customer's address and charges
// the items plus the shipping price the session reports.
func (s *Shop) PlaceOrder(id string, items []Item, email, street, postalCode, city string) (Order, error) {
	var out struct {
		TosID   string `json:"tos_id"`
		Session struct {
			ShippingPrice int64 `json:"shipping_price"`
			Selected      struct {
				ShippingMethod string `json:"shipping_method"`
			} `json:"selected_shipping_option"`
		} `json:"session"`
	}
	err := s.call("POST", "/session.complete", map[string]any{"id": id, "customer": map[string]any{
		"email":   email,
		"address": map[string]any{"address_lines": []string{street}, "postal_code": postalCode, "city": city, "country": "SE"},
	}}, &out)
	if err != nil {
		return Order{}, err
	}
	o := Order{TosID: out.TosID, ItemsTotal: total(items), ShippingPrice: out.Session.ShippingPrice, Shipping: out.Session.Selected.ShippingMethod}
	o.Total = o.ItemsTotal + o.ShippingPrice
	return o, nil
}

// ShippingPrice reads the current shipping price, as the merchant does
// after the widget reports a change.
func (s *Shop) ShippingPrice(id string) (int64, error) {
	var out struct {
		Session struct {
			ShippingPrice int64 `json:"shipping_price"`
		} `json:"session"`
	}
	err := s.call("GET", "/session.get?id="+url.QueryEscape(id), nil, &out)
	return out.Session.ShippingPrice, err
}

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "deliverykit base URL")
	key := flag.String("key", "demo-key", "API key")
	flag.Parse()
	shop := &Shop{Client: http.DefaultClient, Base: *base, APIKey: *key}
	items := []Item{{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 45000}}
	id, _, err := shop.StartCheckout("cart-1", items, "118 26")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	o, err := shop.PlaceOrder(id, items, "anna@example.com", "Götgatan 45", "118 26", "Stockholm")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("order %s: items %d + shipping %d (%s) = %d öre\n", o.TosID, o.ItemsTotal, o.ShippingPrice, o.Shipping, o.Total)
}
