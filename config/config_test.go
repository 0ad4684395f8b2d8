package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/google/go-cmp/cmp"
)

const digestA = "c48a01f49fd0f2cc404bc3cbbc80e91457a3d41bb429a695243de4c61794155c"

func TestDemo(t *testing.T) {
	c := Demo()
	keys := c.Keyring()
	for key, want := range map[string]string{"demo-key": "demo-site", "demo-key-2": "demo-site-2"} {
		got, ok := keys.Authenticate(key)
		if !ok || got != want {
			t.Errorf("Authenticate(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if s, ok := c.Site("demo-site"); !ok || s.Name == "" {
		t.Errorf("Site(demo-site) = %+v, %v", s, ok)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		fields []string
	}{
		{"empty", ``, []string{""}},
		{"malformed", `{"sites": [`, []string{""}},
		{"trailing", `{"sites":[{"id":"a","name":"A","api_key_sha256":["` + digestA + `"]}]} {}`, []string{""}},
		{"unknown field", `{"sitez": []}`, []string{"sitez"}},
		{"wrong type", `{"sites": {}}`, []string{"sites"}},
		{"no sites", `{"sites": []}`, []string{"sites"}},
		{"site problems", `{"sites": [{"id": "Bad Id", "name": " ", "api_key_sha256": ["abc"]}, {"id": "", "name": "x"}]}`,
			[]string{"sites[0].id", "sites[0].name", "sites[0].api_key_sha256[0]", "sites[1].id", "sites[1].api_key_sha256"}},
		{"webhook problems", `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"], "webhooks": [{"id": "erp", "url": "http://erp.example.com", "secrets": ["whsec_c2hvcnQ="], "events": ["parcel.changed", "parcel.exploded"]}]}]}`,
			[]string{"sites[0].webhooks[0].url", "sites[0].webhooks[0].secrets[0]", "sites[0].webhooks[0].events[1]"}},
		{"webhook unknown field", `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"], "webhooks": [{"id": "erp", "uri": "https://erp.example.com"}]}]}`,
			[]string{"sites[0].webhooks[0].uri"}},
		{"unknown fields, all of them, at their paths", `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"],
			"catalog": {"carriers": [{"id": "c", "name": "C", "products": [{"id": "p"}, {"id": "q", "colour": "red"}]}], "warehouse": {}}}]}`,
			[]string{"sites[0].catalog.carriers[0].products[1].colour", "sites[0].catalog.warehouse"}},
		{"wrong types at their paths", `{"sites": [{"id": 7, "name": "A", "api_key_sha256": ["` + digestA + `", 12]}]}`,
			[]string{"sites[0].id", "sites[0].api_key_sha256[1]"}},
		{"duplicates", `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"]}, {"id": "a", "name": "B", "api_key_sha256": ["` + strings.ToUpper(digestA) + `"]}]}`,
			[]string{"sites[1].id", "sites[1].api_key_sha256[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			if !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Fatalf("Parse error = %v, want invalid argument", err)
			}
			var got []string
			for _, v := range deliverykit.ViolationsOf(err) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" {
				t.Errorf("violation fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, []byte(`{"sites":[{"id":"shop-1","name":"Shop","api_key_sha256":["`+digestA+`"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if site, ok := c.Keyring().Authenticate("demo-key"); !ok || site != "shop-1" {
		t.Errorf("Authenticate = %q, %v", site, ok)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load(missing) error = %v, want one naming the file", err)
	}
}

// TestDemoCatalog checks that the demo catalog can try every flow the
// example-server contract promises.
func TestDemoCatalog(t *testing.T) {
	for _, s := range Demo().Sites {
		t.Run(s.ID, func(t *testing.T) {
			c := s.Catalog
			if c == nil {
				t.Fatal("no catalog")
			}
			types := map[catalog.DeliveryType]bool{}
			countries := map[string]bool{}
			freeShipping, addon := false, false
			for _, cat := range c.Categories {
				types[cat.DeliveryType] = true
				for _, cc := range cat.Filter.Countries {
					countries[cc] = true
				}
				for _, p := range cat.Prices {
					freeShipping = freeShipping || p.FreeAbove > 0
				}
				addon = addon || len(cat.Addons) > 0
			}
			for _, dt := range []catalog.DeliveryType{catalog.DeliveryHome, catalog.DeliveryPickup, catalog.DeliveryMailbox, catalog.DeliveryInStore} {
				if !types[dt] {
					t.Errorf("no %s category", dt)
				}
			}
			if !countries["SE"] || !countries["DE"] {
				t.Errorf("countries = %v, want SE and DE", countries)
			}
			pickups := 0
			for _, l := range c.PickupLocations {
				if l.Type != catalog.LocationStore && l.Address.Coordinates != nil && len(l.Hours) > 0 {
					pickups++
				}
			}
			if pickups < 20 {
				t.Errorf("%d pickup locations with coordinates and hours, want at least 20", pickups)
			}
			if len(c.Carriers) < 2 || !freeShipping || !addon || c.ReturnPolicy == nil {
				t.Errorf("carriers=%d freeShipping=%v addon=%v returnPolicy=%v", len(c.Carriers), freeShipping, addon, c.ReturnPolicy != nil)
			}
			if p, ok := c.Product("north-parcel-point"); !ok || p.CarrierName != "North Parcel" || p.DeliveryType != catalog.DeliveryPickup {
				t.Errorf("Product(north-parcel-point) = %+v, %v", p, ok)
			}
		})
	}
	if got := len(Demo().Catalogs()); got != 2 {
		t.Errorf("Catalogs() has %d entries, want 2", got)
	}
}

func TestCatalogErrorsCarryTheSitePath(t *testing.T) {
	in := `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"],
	  "catalog": {"locales": ["en-US"], "warehouses": [{"id": "w", "address": {"country": "SE"}, "time_zone": "Mars/Olympus"}],
	    "carriers": [{"id": "c", "name": "C", "tracking_url": "https://c.example/track", "logo_pattern": "https://c.example/{colour}.svg",
	      "products": [{"id": "p", "ref": "c-p", "name": "P", "delivery_type": "DELIVERY", "transit_days": {"min": 2, "max": 1}}]}],
	    "categories": [{"id": "home", "display_name": {"en-US": "Home"}, "delivery_type": "DELIVERY", "products": ["nope"], "prices": [{"currency": "XXY", "price": -1}]}],
	    "notifications": {"pickup_reminder_days": 99}}}]}`
	_, err := Parse(strings.NewReader(in))
	var got []string
	for _, v := range deliverykit.ViolationsOf(err) {
		got = append(got, v.Field)
	}
	want := []string{
		"sites[0].catalog.warehouses[0].time_zone",
		"sites[0].catalog.carriers[0].tracking_url",
		"sites[0].catalog.carriers[0].logo_pattern",
		"sites[0].catalog.carriers[0].products[0].transit_days.max",
		"sites[0].catalog.categories[0].products[0]",
		"sites[0].catalog.categories[0].prices[0].currency",
		"sites[0].catalog.categories[0].prices[0].price",
		"sites[0].catalog.notifications.pickup_reminder_days",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violation fields (-want +got):\n%s\nerror: %v", diff, err)
	}
	if _, err := Parse(strings.NewReader(`{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"], "catalog": {"locale": []}}]}`)); err == nil || !strings.Contains(err.Error(), "locale") {
		t.Errorf("unknown catalog field: error = %v, want one naming it", err)
	}
}

func TestWebhooks(t *testing.T) {
	in := `{"sites": [
	  {"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"],
	   "webhooks": [{"id": "erp", "url": "https://erp.example.com/hooks", "secrets": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], "events": ["parcel.changed"]}]},
	  {"id": "b", "name": "B", "api_key_sha256": ["` + strings.Repeat("0", 64) + `"]}]}`
	c, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]webhook.Endpoint{"a": {{ID: "erp", URL: "https://erp.example.com/hooks",
		Secrets: []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, Events: []event.Type{event.TypeParcelChanged}}}}
	if diff := cmp.Diff(want, c.Webhooks()); diff != "" {
		t.Errorf("Webhooks (-want +got):\n%s", diff)
	}
}

// TestWebhookPorts: a webhook URL names 443, 80, 8443, a port of
// webhook_ports, or any port of a loopback host; anything else is refused
// at its url, and webhook_ports holds port numbers only.
func TestWebhookPorts(t *testing.T) {
	site := func(url, ports string) string {
		return `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"],
		  "webhooks": [{"id": "erp", "url": "` + url + `", "secrets": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], "events": ["parcel.changed"]}]}]` + ports + `}`
	}
	tests := []struct {
		name   string
		in     string
		fields []string
	}{
		{"no port", site("https://erp.example.com/hooks", ""), nil},
		{"443", site("https://erp.example.com:443/hooks", ""), nil},
		{"8443", site("https://erp.example.com:8443/hooks", ""), nil},
		{"80 over https", site("https://erp.example.com:80/hooks", ""), nil},
		{"a database's port", site("https://erp.example.com:5432/hooks", ""), []string{"sites[0].webhooks[0].url"}},
		{"an address and a port", site("https://203.0.113.9:6379/", ""), []string{"sites[0].webhooks[0].url"}},
		{"allowed", site("https://erp.example.com:9443/hooks", `, "webhook_ports": [9443]`), nil},
		{"allowed another", site("https://erp.example.com:9444/hooks", `, "webhook_ports": [9443]`), []string{"sites[0].webhooks[0].url"}},
		{"loopback, development", site("http://127.0.0.1:9000/hooks", ""), nil},
		{"not a port", site("https://erp.example.com/hooks", `, "webhook_ports": [0, 65536, 8080]`), []string{"webhook_ports[0]", "webhook_ports[1]"}},
		{"too many", site("https://erp.example.com/hooks", `, "webhook_ports": [`+strings.Repeat("9000, ", maxWebhookPorts)+`9001]`), []string{"webhook_ports"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			var got []string
			for _, v := range deliverykit.ViolationsOf(err) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" || (err != nil) != (tt.fields != nil) {
				t.Errorf("violation fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

// TestParseSyntaxPosition: a syntax error says where, by line and column.
func TestParseSyntaxPosition(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\n  \"sites\": [\n    {\"id\": \"a\",, }\n  ]\n}", "line 3, column 16"},
		{"{\"sites\": [", "line 1, column 12"},
		{"{\n\"sites\" [] }", "line 2, column 9"},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want an error at %s", tt.in, err, tt.want)
		}
	}
}

// A product's name is a plain string or an object of the catalog's
// locales; a wrong one is rejected naming the field, and both forms
// write back as they were read.
func TestProductNameForms(t *testing.T) {
	tests := []struct {
		name, value string
		want        catalog.Text
		wantField   string
	}{
		{"plain", `"Home Delivery"`, catalog.PlainText("Home Delivery"), ""},
		{"per locale", `{"en-US": "Home Delivery"}`, catalog.Text{"en-US": "Home Delivery"}, ""},
		{"number", `12`, nil, "sites[0].catalog.carriers[0].products[0].name"},
		{"empty key", `{"": "x"}`, nil, "sites[0].catalog.carriers[0].products[0].name"},
		{"number in object", `{"en-US": 1}`, nil, "sites[0].catalog.carriers[0].products[0].name"},
		{"unknown locale", `{"en-US": "Home", "sv-SE": "Hem"}`, nil, "sites[0].catalog.carriers[0].products[0].name.sv-SE"},
		{"empty object", `{}`, nil, "sites[0].catalog.carriers[0].products[0].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := strings.Replace(string(readmeMinimalConfig(t)), `"Home Delivery"`, tt.value, 1)
			c, err := Parse(strings.NewReader(doc))
			if tt.wantField != "" {
				var got []string
				for _, v := range deliverykit.ViolationsOf(err) {
					got = append(got, v.Field)
				}
				if !errors.Is(err, deliverykit.ErrInvalidArgument) || !cmp.Equal(got, []string{tt.wantField}) {
					t.Fatalf("Parse = %v, want a violation of %s", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := c.Sites[0].Catalog.Carriers[0].Products[0]
			if diff := cmp.Diff(tt.want, p.Name); diff != "" {
				t.Errorf("name (-want +got):\n%s", diff)
			}
			b, err := json.Marshal(p.Name)
			if err != nil {
				t.Fatal(err)
			}
			var want, got any
			if err := json.Unmarshal([]byte(tt.value), &want); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("written back (-read +written):\n%s", diff)
			}
		})
	}
}
