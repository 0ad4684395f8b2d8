package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

func TestTextJSON(t *testing.T) {
	tests := []struct {
		name, in string
		want     Text
		out      string // "" means in
		wantErr  bool
	}{
		{name: "plain string", in: `"Home delivery"`, want: Text{"": "Home delivery"}},
		{name: "per locale", in: `{"en-US":"Home delivery","sv-SE":"Hemleverans"}`, want: Text{"en-US": "Home delivery", "sv-SE": "Hemleverans"}},
		{name: "empty string", in: `""`, want: nil},
		{name: "empty object", in: `{}`, want: nil, out: `""`},
		{name: "null", in: `null`, want: nil, out: `""`},
		{name: "empty key", in: `{"":"x"}`, wantErr: true},
		{name: "number", in: `12`, wantErr: true},
		{name: "not a string value", in: `{"sv-SE":1}`, wantErr: true},
		{name: "too many locales", in: manyLocales(MaxTextEntries + 1), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Text
			err := json.Unmarshal([]byte(tt.in), &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal(%s) (-want +got):\n%s", tt.in, diff)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.out
			if want == "" {
				want = tt.in
			}
			if string(b) != want {
				t.Errorf("Marshal = %s, want %s", b, want)
			}
		})
	}
}

// manyLocales is a JSON object of n distinct made-up locale keys.
func manyLocales(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `"l` + strings.Repeat("x", i) + `":"t"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// A product written with a plain name reads and writes as before; one
// with per-locale names keeps them.
func TestTextInProduct(t *testing.T) {
	for _, in := range []string{
		`{"id":"h","ref":"np-home","name":"Home","delivery_type":"DELIVERY","transit_days":{"min":1,"max":2}}`,
		`{"id":"h","ref":"np-home","name":{"en-US":"Home","sv-SE":"Hem"},"delivery_type":"DELIVERY","transit_days":{"min":1,"max":2}}`,
	} {
		var p Product
		if err := json.Unmarshal([]byte(in), &p); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != in {
			t.Errorf("round trip of %s gave %s", in, b)
		}
	}
}

func TestTextIn(t *testing.T) {
	multi := Text{"en-US": "Home delivery", "sv-SE": "Hemleverans", "de-DE": "Hauszustellung"}
	tests := []struct {
		name             string
		text             Text
		locale, fallback string
		want             string
	}{
		{"exact", multi, "sv-SE", "en-US", "Hemleverans"},
		{"exact German", multi, "de-DE", "en-US", "Hauszustellung"},
		{"same language, other region", multi, "sv-FI", "en-US", "Hemleverans"},
		{"English variant", multi, "en-GB", "sv-SE", "Home delivery"},
		{"Austrian German", multi, "de-AT", "en-US", "Hauszustellung"},
		{"unknown language falls back", multi, "fi-FI", "sv-SE", "Hemleverans"},
		{"no locale falls back", multi, "", "de-DE", "Hauszustellung"},
		{"plain for every locale", PlainText("Home"), "sv-SE", "en-US", "Home"},
		{"plain beside locales", Text{"": "Home", "sv-SE": "Hem"}, "fi-FI", "en-US", "Home"},
		{"fallback missing: smallest locale", Text{"sv-SE": "Hem", "de-DE": "Haus"}, "fi-FI", "en-US", "Haus"},
		{"empty", nil, "sv-SE", "en-US", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.text.In(tt.locale, tt.fallback); got != tt.want {
				t.Errorf("In(%q, %q) = %q, want %q", tt.locale, tt.fallback, got, tt.want)
			}
		})
	}
}

func TestTextValidation(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Catalog)
		want   []string
	}{
		{"names per locale", func(c *Catalog) {
			c.Carriers[0].Products[0].Name = Text{"en-US": "Home", "sv-SE": "Hem"}
			c.PickupLocations[0].PickupInstructions = Text{"sv-SE": "Fråga i kassan."}
		}, nil},
		{"unknown locale", func(c *Catalog) {
			c.Carriers[0].Products[0].Name = Text{"en-US": "Home", "fi-FI": "Koti"}
			c.PickupLocations[0].PickupInstructions = Text{"de-DE": "Fragen Sie an der Kasse."}
		}, []string{"carriers[0].products[0].name.fi-FI", "pickup_locations[0].pickup_instructions.de-DE"}},
		{"empty and long", func(c *Catalog) {
			c.Carriers[0].Products[0].Name = Text{"en-US": " ", "sv-SE": strings.Repeat("x", MaxProductName+1)}
			c.PickupLocations[0].PickupInstructions = Text{"sv-SE": strings.Repeat("x", MaxPickupInstructions+1)}
		}, []string{"carriers[0].products[0].name.en-US", "carriers[0].products[0].name.sv-SE", "pickup_locations[0].pickup_instructions.sv-SE"}},
		{"no name", func(c *Catalog) { c.Carriers[0].Products[0].Name = nil }, []string{"carriers[0].products[0].name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validCatalog()
			c.Locales = []string{"en-US", "sv-SE"}
			tt.change(c)
			var got []string
			for _, v := range deliverykit.ViolationsOf(c.Validate()) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(sorted(tt.want), sorted(got)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTextLookup(t *testing.T) {
	multi := Text{"en-US": "Home delivery", "sv-SE": "Hemleverans"}
	tests := []struct {
		name, locale string
		text         Text
		want         string
		wantOK       bool
	}{
		{"exact", "sv-SE", multi, "Hemleverans", true},
		{"language only", "sv", multi, "Hemleverans", true},
		{"other region", "en-GB", multi, "Home delivery", true},
		{"missing language", "de-DE", multi, "", false},
		{"plain is no locale's", "sv-SE", PlainText("Home"), "", false},
		{"no locale", "", multi, "", false},
		{"not a locale", "!!", multi, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.text.Lookup(tt.locale)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.locale, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
