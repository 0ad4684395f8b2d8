package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/google/go-cmp/cmp"
)

func validCatalog() *Catalog {
	return &Catalog{
		Locales:    []string{"en-US", "sv-SE"},
		Holidays:   []string{"2026-12-25"},
		Warehouses: []Warehouse{{ID: "w1", Address: Address{Country: "SE"}, TimeZone: "Europe/Stockholm"}},
		Carriers: []Carrier{{ID: "np", Name: "North Parcel", Products: []Product{
			{ID: "home", Ref: "np-home", Name: PlainText("Home"), DeliveryType: DeliveryHome, TransitDays: DayRange{1, 2}, CutOff: "15:00"},
			{ID: "point", Ref: "np-point", Name: PlainText("Point"), DeliveryType: DeliveryPickup, TransitDays: DayRange{1, 3}, Days: []string{"mon", "sat"}},
		}}},
		Categories: []Category{
			{ID: "home", DisplayName: map[string]string{"en-US": "Home", "sv-SE": "Hem"}, DeliveryType: DeliveryHome, Products: []string{"np-home"},
				Addons: []Addon{{ID: "door", Type: AddonLeaveAtDoor, DisplayName: map[string]string{"en-US": "Door"}}},
				Prices: []PriceRule{{Currency: "SEK", Price: 4900, FreeAbove: 50000}},
				Filter: Filter{Countries: []string{"SE"}, PostalCodes: []PostalRange{{Country: "SE", From: "100 00", To: "199 99"}}}},
			{ID: "pickup", DisplayName: map[string]string{"en-US": "Pickup"}, DeliveryType: DeliveryPickup, Products: []string{"np-point"},
				Prices: []PriceRule{{Currency: "SEK", Price: 2900}}},
		},
		PickupLocations: []PickupLocation{{ID: "l1", ExternalID: "L1", Name: "Kiosk", Carrier: "np", Type: LocationManned,
			Address: Address{Country: "SE", PostalCode: "111 57", Coordinates: &Coordinates{Lat: 59.33, Lng: 18.06}},
			Hours:   map[string][]string{"mon": {"08:00-20:00"}, "sun": {"00:00-24:00"}}}},
		PostalAreas:  []PostalArea{{Country: "SE", Prefix: "11", Coordinates: Coordinates{Lat: 59.33, Lng: 18.07}}},
		ReturnPolicy: &ReturnPolicy{ReturnsEnabled: true, Currency: "SEK", ReturnCost: 4900, ReturnTimeDays: 30},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *Catalog)
		fields []string
	}{
		{"valid", func(c *Catalog) {}, nil},
		{"boxes", func(c *Catalog) {
			c.Boxes = []Box{
				{ID: "s", Name: "Small", Inner: Dimensions{Length: 300, Width: 200, Height: 100}, MaxWeight: 5000, TareWeight: 150, Products: []string{"np-home"}},
				{ID: "s", Inner: Dimensions{Length: 0, Width: 200, Height: 4000}, Outer: &Dimensions{Length: 10, Width: 10, Height: 10},
					MaxWeight: 2_000_000, TareWeight: -1, Products: []string{"np-home", "nope"}},
				{ID: "t", Name: "Tare", Inner: Dimensions{Length: 1, Width: 1, Height: 1}, MaxWeight: 100, TareWeight: 100},
			}
		}, []string{"boxes[1].id", "boxes[1].name", "boxes[1].inner.length", "boxes[1].inner.height", "boxes[1].outer",
			"boxes[1].max_weight", "boxes[1].tare_weight", "boxes[1].products[1]", "boxes[2].tare_weight"}},
		{"price per parcel without a box", func(c *Catalog) {
			c.Carriers[0].Products[0].PricePerParcel = true // np-home: the box below is np-point's only
			c.Carriers[0].Products[1].PricePerParcel = true
			c.Boxes = []Box{{ID: "s", Name: "Small", Inner: Dimensions{Length: 300, Width: 200, Height: 100}, MaxWeight: 5000, Products: []string{"np-point"}}}
		}, []string{"carriers[0].products[0].price_per_parcel"}},
		{"promises", func(c *Catalog) {
			c.Promise = "guessed"
			c.Learning = &Learning{Low: 0.9, High: 0.5, MinSamples: -1, HalfLifeDays: MaxHalfLifeDays + 1, ZoneLength: map[string]int{"XX": 2, "SE": 11}}
			c.Carriers[0].Products[0].Promise = "sometimes"
			c.Carriers[0].Products[1].Simulate = &Simulation{LeadTimeHours: &LeadTimeProfile{P10: 30, P50: 20, P90: 40}}
		}, []string{"promise", "learning.high", "learning.min_samples", "learning.half_life_days", "learning.zone_length", "learning.zone_length.SE",
			"carriers[0].products[0].promise", "carriers[0].products[1].simulate.lead_time_hours.p50"}},
		{"promises within bounds", func(c *Catalog) {
			c.Promise = PromiseBlend
			c.Learning = &Learning{Low: 0.2, High: 0.8, MinSamples: 10, HalfLifeDays: 28, ZoneLength: map[string]int{"SE": 3}}
			c.Carriers[0].Products[0].Promise = PromiseLearned
			c.Carriers[0].Products[1].Simulate = &Simulation{LeadTimeHours: &LeadTimeProfile{P10: 20, P50: 30, P90: 40}}
		}, nil},
		{"too many boxes", func(c *Catalog) {
			c.Boxes = make([]Box, MaxBoxes+1)
		}, []string{"boxes"}},
		{"empty", func(c *Catalog) { *c = Catalog{} }, []string{"locales", "warehouses", "carriers", "categories"}},
		{"bad locale and holiday", func(c *Catalog) { c.Locales = []string{"english", "en-US", "en-US"}; c.Holidays = []string{"25/12"} },
			[]string{"locales[0]", "locales[2]", "holidays[0]", "categories[0].display_name.sv-SE"}},
		{"warehouse", func(c *Catalog) {
			c.Warehouses = append(c.Warehouses, Warehouse{ID: "w1", Address: Address{Country: "se", Coordinates: &Coordinates{Lat: 91}}, TimeZone: "Nowhere/City"})
		}, []string{"warehouses[1].id", "warehouses[1].address.country", "warehouses[1].address.coordinates.lat", "warehouses[1].time_zone"}},
		{"product", func(c *Catalog) {
			c.Carriers[0].Products = append(c.Carriers[0].Products, Product{ID: "home", Ref: "np-home", DeliveryType: "DRONE",
				LeadTimeDays: -1, TransitDays: DayRange{-1, -2}, CutOff: "25:00", Days: []string{"monday"}})
		}, []string{"carriers[0].products[2].id", "carriers[0].products[2].ref", "carriers[0].products[2].name", "carriers[0].products[2].delivery_type",
			"carriers[0].products[2].lead_time_days", "carriers[0].products[2].transit_days.min", "carriers[0].products[2].transit_days.max",
			"carriers[0].products[2].cut_off", "carriers[0].products[2].days[0]"}},
		{"category", func(c *Catalog) {
			cat := &c.Categories[0]
			cat.Warehouse = "w9"
			cat.Products = []string{"np-point", "nope"}
			cat.Addons = append(cat.Addons, Addon{ID: "door", Type: "HUG", DisplayName: map[string]string{"en-US": "x"}, Price: -5})
			cat.Prices = []PriceRule{{Currency: "sek", Price: -1, FreeAbove: -1, MinWeight: 10, MaxWeight: 5}}
			cat.Filter.Countries = []string{"XX"}
			cat.Filter.PostalCodes = []PostalRange{{Country: "SE", From: "200", To: "1000"}}
			cat.Filter.MaxDimensions = &Dimensions{Height: 1}
		}, []string{"categories[0].warehouse", "categories[0].products[0]", "categories[0].products[1]",
			"categories[0].addons[1].id", "categories[0].addons[1].type", "categories[0].addons[1].price",
			"categories[0].prices[0].currency", "categories[0].prices[0].price", "categories[0].prices[0].free_above", "categories[0].prices[0].max_weight",
			"categories[0].filter.countries[0]", "categories[0].filter.postal_codes[0].to", "categories[0].filter.max_dimensions"}},
		{"location", func(c *Catalog) {
			l := &c.PickupLocations[0]
			l.Carrier = "zz"
			l.Type = "TENT"
			l.Address.Coordinates = nil
			l.Hours = map[string][]string{"mon": {"20:00-08:00"}}
			l.Closed = []string{"tomorrow"}
		}, []string{"pickup_locations[0].carrier", "pickup_locations[0].type", "pickup_locations[0].address.coordinates",
			"pickup_locations[0].hours.mon[0]", "pickup_locations[0].closed[0]"}},
		{"valid carrier links and location texts", func(c *Catalog) {
			c.Carriers[0].TrackingURL = "https://np.example/track?n={tracking_number}&zip={postal_code}&lang={locale}"
			c.Carriers[0].LogoPattern = "https://cdn.example/np/{size}.{format}"
			c.PickupLocations[0].PickupInstructions = PlainText("Ask at the counter; bring an ID.")
			c.PickupLocations[0].HoursText = []string{"Closed on the last Friday of the month"}
			c.Notifications = &Notifications{PickupReminderDays: 5}
		}, nil},
		{"carrier tracking URL without the number", func(c *Catalog) {
			c.Carriers[0].TrackingURL = "https://np.example/track"
		}, []string{"carriers[0].tracking_url"}},
		{"carrier tracking URL with an unknown placeholder", func(c *Catalog) {
			c.Carriers[0].TrackingURL = "https://np.example/track?n={tracking_number}&c={customer}"
		}, []string{"carriers[0].tracking_url"}},
		{"carrier tracking URL not https", func(c *Catalog) {
			c.Carriers[0].TrackingURL = "http://np.example/track?n={tracking_number}"
		}, []string{"carriers[0].tracking_url"}},
		{"carrier tracking URL too long", func(c *Catalog) {
			c.Carriers[0].TrackingURL = "https://np.example/" + strings.Repeat("a", 1100) + "{tracking_number}"
		}, []string{"carriers[0].tracking_url"}},
		{"carrier logo pattern", func(c *Catalog) {
			c.Carriers[0].LogoPattern = "javascript:{size}"
		}, []string{"carriers[0].logo_pattern"}},
		{"carrier logo pattern with a tracking placeholder", func(c *Catalog) {
			c.Carriers[0].LogoPattern = "https://cdn.example/{tracking_number}.svg"
		}, []string{"carriers[0].logo_pattern"}},
		{"location texts", func(c *Catalog) {
			c.PickupLocations[0].PickupInstructions = PlainText(strings.Repeat("x", MaxPickupInstructions+1))
			c.PickupLocations[0].HoursText = []string{" ", strings.Repeat("y", MaxHoursTextLine+1)}
		}, []string{"pickup_locations[0].pickup_instructions", "pickup_locations[0].hours_text[0]", "pickup_locations[0].hours_text[1]"}},
		{"too many hours lines", func(c *Catalog) {
			c.PickupLocations[0].HoursText = make([]string, MaxHoursText+1)
			for i := range c.PickupLocations[0].HoursText {
				c.PickupLocations[0].HoursText[i] = "open"
			}
		}, []string{"pickup_locations[0].hours_text"}},
		{"valid location contact, sections and regions", func(c *Catalog) {
			l := &c.PickupLocations[0]
			l.Email, l.Phone = "kiosk@example.com", &Phone{CountryCode: "46", Number: "8123456"}
			l.Address.RegionCode, c.Warehouses[0].Address.RegionCode = "AB", "AB"
			l.Sections = []Section{{Title: "Parking", Columns: []SectionColumn{{Items: []SectionItem{
				{Text: "Free for 30 minutes", IconURI: "https://cdn.example/p.svg", LinkURI: "https://shop.example/parking"}}}}}}
		}, nil},
		{"location contact and regions", func(c *Catalog) {
			l := &c.PickupLocations[0]
			l.Email, l.Phone = "no at sign", &Phone{Number: "+46 8"}
			l.Address.RegionCode, c.Warehouses[0].Address.RegionCode = "SE-AB", "ab"
		}, []string{"warehouses[0].address.region_code", "pickup_locations[0].address.region_code", "pickup_locations[0].email",
			"pickup_locations[0].phone.country_code", "pickup_locations[0].phone.number"}},
		{"location sections", func(c *Catalog) {
			c.PickupLocations[0].Sections = []Section{
				{Title: " ", Columns: nil},
				{Title: strings.Repeat("t", MaxSectionText+1), Columns: []SectionColumn{{}, {Items: []SectionItem{{}, {Text: "x", LinkURI: "http://plain.example"}}}}},
				{Title: "wide", Columns: make([]SectionColumn, MaxSectionColumns+1)},
			}
		}, []string{"pickup_locations[0].sections[0].title", "pickup_locations[0].sections[0].columns", "pickup_locations[0].sections[1].title",
			"pickup_locations[0].sections[1].columns[0].items", "pickup_locations[0].sections[1].columns[1].items[0]",
			"pickup_locations[0].sections[1].columns[1].items[1].link_uri", "pickup_locations[0].sections[2].columns"}},
		{"too many sections", func(c *Catalog) { c.PickupLocations[0].Sections = make([]Section, MaxSections+1) },
			[]string{"pickup_locations[0].sections"}},
		{"return policy id", func(c *Catalog) { c.ReturnPolicy.ID = strings.Repeat("r", 65) }, []string{"return_policy.id"}},
		{"pickup reminder days", func(c *Catalog) { c.Notifications = &Notifications{PickupReminderDays: MaxPickupReminderDays + 1} },
			[]string{"notifications.pickup_reminder_days"}},
		{"valid fallback and VAT", func(c *Catalog) {
			c.VATRate = 2500
			c.Carriers[0].Products[0].VATRate = 1200
			c.Fallback = &Fallback{ID: "fb", Product: "np-home", DisplayName: map[string]string{"en-US": "Standard"},
				ETDText: map[string]string{"sv-SE": "3–7 dagar"}, Prices: []PriceRule{{Currency: "SEK", Price: 9900}}}
		}, nil},
		{"fallback", func(c *Catalog) {
			c.Fallback = &Fallback{ID: "home", Product: "np-point", DisplayName: map[string]string{"sv-SE": "Standard"},
				ETDText: map[string]string{"fi-FI": "x"}, Prices: []PriceRule{{Currency: "SEK", Price: -1}}}
		}, []string{"fallback.id", "fallback.product", "fallback.display_name.en-US", "fallback.etd_text.fi-FI", "fallback.prices[0].price"}},
		{"fallback without product or prices", func(c *Catalog) {
			c.Fallback = &Fallback{ID: "fb", Product: "nope", DisplayName: map[string]string{"en-US": "Standard"}}
		}, []string{"fallback.product", "fallback.prices"}},
		{"branding", func(c *Catalog) {
			c.Branding = &Branding{LogoURL: "javascript:alert(1)", AccentColor: "red"}
		}, []string{"branding.logo_url", "branding.accent_color"}},
		{"valid branding", func(c *Catalog) {
			c.Branding = &Branding{DisplayName: "Shop", LogoURL: "https://shop.example/logo.svg", AccentColor: "#0a7d44"}
		}, nil},
		{"VAT rates", func(c *Catalog) { c.VATRate = -1; c.Carriers[0].Products[1].VATRate = 10001 },
			[]string{"vat_rate", "carriers[0].products[1].vat_rate"}},
		{"return policy", func(c *Catalog) { c.ReturnPolicy = &ReturnPolicy{Currency: "", ReturnCost: -1} },
			[]string{"return_policy.currency", "return_policy.return_cost"}},
		{"return policy costs", func(c *Catalog) {
			c.ReturnPolicy.ReturnHandlingCost, c.ReturnPolicy.FailedDeliveryCost, c.ReturnPolicy.GiftCardAddition = -1, -1, -1
		}, []string{"return_policy.return_handling_cost", "return_policy.failed_delivery_cost", "return_policy.gift_card_addition"}},
		{"return product", func(c *Catalog) { c.ReturnPolicy.ReturnProduct = "np-point" }, nil},
		{"return product unknown", func(c *Catalog) { c.ReturnPolicy.ReturnProduct = "nope" }, []string{"return_policy.return_product"}},
		{"return product of a carrier without drop-off points", func(c *Catalog) {
			c.Carriers = append(c.Carriers, Carrier{ID: "sc", Name: "Swift", Products: []Product{
				{ID: "x", Ref: "sc-express", Name: PlainText("Express"), DeliveryType: DeliveryHome, TransitDays: DayRange{1, 1}}}})
			c.ReturnPolicy.ReturnProduct = "sc-express"
		}, []string{"return_policy.return_product"}},
		{"return product in store", func(c *Catalog) {
			c.Carriers = append(c.Carriers, Carrier{ID: "st", Name: "Stores", Products: []Product{
				{ID: "c", Ref: "store-collect", Name: PlainText("Collect"), DeliveryType: DeliveryInStore, TransitDays: DayRange{1, 1}}}})
			c.PickupLocations = append(c.PickupLocations, PickupLocation{ID: "s1", ExternalID: "S1", Name: "Store", Carrier: "st", Type: LocationStore,
				Address: Address{Country: "SE", Coordinates: &Coordinates{Lat: 59.3, Lng: 18}}})
			c.ReturnPolicy.ReturnProduct = "store-collect"
		}, []string{"return_policy.return_product"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validCatalog()
			tt.mutate(c)
			err := c.Validate()
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Fatalf("Validate() = %v, want invalid argument", err)
			}
			var got []string
			for _, v := range deliverykit.ViolationsOf(err) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(sorted(tt.fields), sorted(got)); diff != "" {
				t.Errorf("violation fields (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestLookups(t *testing.T) {
	c := validCatalog()
	got, ok := c.Product("np-point")
	want := ProductInfo{Ref: "np-point", CarrierID: "np", CarrierName: "North Parcel", ProductID: "point", ProductName: "Point", Name: PlainText("Point"), DeliveryType: DeliveryPickup}
	if diff := cmp.Diff(want, got); !ok || diff != "" {
		t.Errorf("Product(np-point) found %v (-want +got):\n%s", ok, diff)
	}
	if _, ok := c.Product("missing"); ok {
		t.Error("Product(missing) found something")
	}
	if diff := cmp.Diff([]string{"np-home", "np-point"}, c.ProductRefs()); diff != "" {
		t.Errorf("ProductRefs (-want +got):\n%s", diff)
	}
	if w, ok := c.Warehouse(""); !ok || w.ID != "w1" {
		t.Errorf("Warehouse(\"\") = %v, %v", w.ID, ok)
	}
	if _, ok := c.Warehouse("w2"); ok {
		t.Error("Warehouse(w2) found something")
	}
	c.Carriers[0].TrackingURL = "https://np.example/t?n={tracking_number}&zip={postal_code}&l={locale}"
	c.Carriers[0].LogoPattern = "https://cdn.example/np/{size}.svg"
	got, _ = c.Product("np-home")
	if got.CarrierTrackingURL != c.Carriers[0].TrackingURL || got.CarrierLogoPattern != c.Carriers[0].LogoPattern {
		t.Errorf("Product(np-home) carrier links = %q, %q", got.CarrierTrackingURL, got.CarrierLogoPattern)
	}
	if l, ok := c.PickupLocation("L1"); !ok || l.ID != "l1" {
		t.Errorf("PickupLocation(L1) = %v, %v", l.ID, ok)
	}
	if _, ok := c.PickupLocation("l1"); ok {
		t.Error("PickupLocation found a location by its catalog id; it looks up external ids")
	}
	for _, tt := range []struct {
		n    *Notifications
		want int
	}{{nil, DefaultPickupReminderDays}, {&Notifications{}, DefaultPickupReminderDays}, {&Notifications{PickupReminderDays: 7}, 7}} {
		c.Notifications = tt.n
		if got := c.PickupReminderDays(); got != tt.want {
			t.Errorf("PickupReminderDays with %+v = %d, want %d", tt.n, got, tt.want)
		}
	}
	if got := NormalizePostalCode(" 114 55 "); got != "11455" {
		t.Errorf("NormalizePostalCode = %q", got)
	}
}

func TestCarrierLink(t *testing.T) {
	tests := []struct {
		name, tpl, number, postal, locale, want string
	}{
		{"none", "", "TN1", "", "", ""},
		{"number", "https://np.example/t?n={tracking_number}", "TN 1&x", "", "", "https://np.example/t?n=TN+1%26x"},
		{"all", "https://np.example/{locale}/t?n={tracking_number}&zip={postal_code}", "TN1", "111 57", "sv-SE", "https://np.example/sv-SE/t?n=TN1&zip=111+57"},
		{"unknown postal code", "https://np.example/t?n={tracking_number}&zip={postal_code}", "TN1", "", "", "https://np.example/t?n=TN1"},
		{"no locale, last", "https://np.example/t?n={tracking_number}&lang={locale}", "TN1", "", "", "https://np.example/t?n=TN1"},
		{"no locale, first", "https://np.example/t?lang={locale}&n={tracking_number}", "TN1", "", "", "https://np.example/t?n=TN1"},
		{"no locale, only parameter", "https://np.example/t/{tracking_number}?lang={locale}", "TN1", "", "", "https://np.example/t/TN1"},
		{"no locale, fragment", "https://np.example/t?lang={locale}&n={tracking_number}#map", "TN1", "", "", "https://np.example/t?n=TN1#map"},
		{"no locale in the path", "https://np.example/{locale}/t?n={tracking_number}", "TN1", "", "", "https://np.example//t?n=TN1"},
		{"locale", "https://np.example/t?n={tracking_number}&lang={locale}", "TN1", "", "sv-SE", "https://np.example/t?n=TN1&lang=sv-SE"},
		{"placeholder inside a value", "https://np.example/t?n={tracking_number}&q=x{locale}", "TN1", "", "", "https://np.example/t?n=TN1&q=x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, CarrierLink(tt.tpl, tt.number, tt.postal, tt.locale)); diff != "" {
				t.Errorf("CarrierLink (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplaceInOrder holds replaceInOrder to strings.Replacer, which it
// stands in for: the order of the pairs decides between placeholders
// starting at the same position, replacements are not scanned again, and
// matches do not overlap.
func TestReplaceInOrder(t *testing.T) {
	tests := []struct {
		name   string
		s      string
		oldnew []string
	}{
		{"none", "https://np.example/t", []string{"{a}", "1"}},
		{"no pairs", "https://np.example/{a}", nil},
		{"each", "{a}/x?{b}&{a}", []string{"{a}", "1", "{b}", "2"}},
		{"at both ends", "{a}{a}", []string{"{a}", "xyz"}},
		{"first pair wins", "{ab}", []string{"{a", "1", "{ab}", "2"}},
		{"first pair wins, reversed", "{ab}", []string{"{ab}", "2", "{a", "1"}},
		{"replacement not rescanned", "{a}", []string{"{a}", "{b}", "{b}", "no"}},
		{"no overlap", "aaa", []string{"aa", "b"}},
		{"same placeholder twice", "{a}", []string{"{a}", "1", "{a}", "2"}},
		{"empty value", "x{a}y", []string{"{a}", ""}},
		{"one byte", "a-b-a", []string{"a", "xx", "-", "+"}},
		{"empty placeholder", "ab", []string{"", "-"}},
		{"not utf-8", "\xff{a}\xfe", []string{"{a}", "é"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := strings.NewReplacer(tt.oldnew...).Replace(tt.s)
			if got := replaceInOrder(tt.s, tt.oldnew); got != want {
				t.Errorf("replaceInOrder(%q, %q) = %q, strings.Replacer gives %q", tt.s, tt.oldnew, got, want)
			}
		})
	}
}
