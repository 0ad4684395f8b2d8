package options

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/google/go-cmp/cmp"
)

var stockholm = func() *time.Location {
	l, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		panic(err)
	}
	return l
}()

// Thursday 2026-11-19 10:00 in Stockholm.
var thursday = time.Date(2026, 11, 19, 10, 0, 0, 0, stockholm)

func testCatalog() *catalog.Catalog {
	names := func(en, sv string) map[string]string { return map[string]string{"en-US": en, "sv-SE": sv} }
	loc := func(id, carrier string, lat, lng float64, pc string) catalog.PickupLocation {
		return catalog.PickupLocation{ID: id, ExternalID: "X" + id, Name: "Point " + id, Carrier: carrier, Type: catalog.LocationManned,
			Address: catalog.Address{Country: "SE", PostalCode: pc, Coordinates: &catalog.Coordinates{Lat: lat, Lng: lng}},
			Hours:   map[string][]string{"mon": {"08:00-20:00"}}}
	}
	return &catalog.Catalog{
		Locales:    []string{"en-US", "sv-SE"},
		Holidays:   []string{"2026-12-24", "2026-12-25", "2026-12-26"},
		Warehouses: []catalog.Warehouse{{ID: "sto", Address: catalog.Address{Country: "SE", City: "Stockholm"}, TimeZone: "Europe/Stockholm"}},
		Carriers: []catalog.Carrier{
			{ID: "np", Name: "North Parcel", Products: []catalog.Product{
				{ID: "home", Ref: "np-home", ExternalID: "NPH", Name: catalog.Text{"en-US": "Home", "sv-SE": "Hem"}, DeliveryType: catalog.DeliveryHome, TransitDays: catalog.DayRange{Min: 1, Max: 2}, CutOff: "15:00"},
				{ID: "point", Ref: "np-point", Name: catalog.PlainText("Point"), DeliveryType: catalog.DeliveryPickup, LeadTimeDays: 1, TransitDays: catalog.DayRange{Min: 2, Max: 3}, CutOff: "12:00"},
				{ID: "mail", Ref: "np-mail", Name: catalog.PlainText("Mailbox"), DeliveryType: catalog.DeliveryMailbox, TransitDays: catalog.DayRange{Min: 1, Max: 1}, CutOff: "15:00", Days: []string{"tue", "thu"}},
			}},
			{ID: "sc", Name: "Swift Courier", Products: []catalog.Product{
				{ID: "exp", Ref: "sc-exp", Name: catalog.PlainText("Express"), DeliveryType: catalog.DeliveryHome, TransitDays: catalog.DayRange{Min: 0, Max: 1}, CutOff: "12:00"},
			}},
		},
		Categories: []catalog.Category{
			{ID: "home", DisplayName: names("Home delivery", "Hemleverans"), DeliveryType: catalog.DeliveryHome, SortOrder: 2, Products: []string{"np-home", "sc-exp"},
				Addons: []catalog.Addon{{ID: "door", Type: catalog.AddonLeaveAtDoor, DisplayName: names("Leave at door", "Lämna vid dörren")}, {ID: "carry", Type: catalog.AddonCarryIn, DisplayName: map[string]string{"en-US": "Carry in"}, Price: 19900}},
				Prices: []catalog.PriceRule{
					{Currency: "SEK", Price: 0, Voucher: "FREESHIP"},
					{Currency: "SEK", Price: 9900, MinWeight: 20001},
					{Currency: "SEK", Price: 2900, Attributes: []string{"member"}},
					{Currency: "SEK", Price: 4900, FreeAbove: 50000},
				},
				Filter: catalog.Filter{Countries: []string{"SE"}, ExcludedAttributes: []string{"dangerous"}}},
			{ID: "pickup", DisplayName: names("Pickup point", "Utlämningsställe"), DeliveryType: catalog.DeliveryPickup, SortOrder: 1, Products: []string{"np-point"}, MaxLocations: 3,
				Prices: []catalog.PriceRule{{Currency: "SEK", Price: 3900}},
				Filter: catalog.Filter{MaxWeight: 20000, MaxDimensions: &catalog.Dimensions{Height: 600, Length: 600, Width: 400}}},
			{ID: "mailbox", DisplayName: names("Mailbox", "Brevlåda"), DeliveryType: catalog.DeliveryMailbox, SortOrder: 3, Products: []string{"np-mail"},
				Prices: []catalog.PriceRule{{Currency: "SEK", Price: 1900}},
				Filter: catalog.Filter{PostalCodes: []catalog.PostalRange{{Country: "SE", From: "100 00", To: "199 99"}}, RequiredAttributes: []string{"small"}}},
		},
		PickupLocations: []catalog.PickupLocation{
			loc("sergel", "np", 59.3326, 18.0649, "111 57"),
			loc("soder", "np", 59.3139, 18.0727, "118 26"),
			loc("oster", "np", 59.3388, 18.0842, "114 49"),
			loc("solna", "np", 59.3600, 18.0001, "171 45"),
			loc("gbg", "np", 57.7089, 11.9699, "411 05"),
		},
		PostalAreas: []catalog.PostalArea{{Country: "SE", Prefix: "1", Coordinates: catalog.Coordinates{Lat: 59.3293, Lng: 18.0686}}},
	}
}

func newEngine(t testing.TB, now time.Time) *Engine {
	t.Helper()
	e, err := New(testCatalog(), Options{Clock: deliverykit.NewManualClock(now)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// summary is the part of a result the filter and price tests compare.
type summary struct {
	Category string
	Options  []string
	Price    int64
}

func summarize(r *Result) []summary {
	var out []summary
	for _, c := range r.Categories {
		s := summary{Category: c.ID, Price: c.Options[0].Price}
		for _, o := range c.Options {
			s.Options = append(s.Options, o.ID)
		}
		out = append(out, s)
	}
	return out
}

func TestComputeFiltersAndPrices(t *testing.T) {
	e := newEngine(t, thursday)
	base := func() Request {
		return Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 10000,
			Address: catalog.Address{Country: "SE", PostalCode: "111 57"}, Items: []Item{{Quantity: 1, Weight: 500}}}
	}
	pickup := summary{"pickup", []string{"pickup/np-point/sergel", "pickup/np-point/oster", "pickup/np-point/soder"}, 3900}
	home := func(price int64) summary { return summary{"home", []string{"home/np-home", "home/sc-exp"}, price} }
	mailbox := summary{"mailbox", []string{"mailbox/np-mail"}, 1900}
	tests := []struct {
		name   string
		mutate func(r *Request)
		want   []summary
	}{
		{"base", func(r *Request) {}, []summary{pickup, home(4900)}},
		{"free above threshold", func(r *Request) { r.CartValue = 50000 }, []summary{pickup, home(0)}},
		{"voucher", func(r *Request) { r.Vouchers = []string{"FREESHIP"} }, []summary{pickup, home(0)}},
		{"attribute price", func(r *Request) { r.Attributes = []string{"member"} }, []summary{pickup, home(2900)}},
		{"heavy: weight band and pickup max weight", func(r *Request) { r.Items = []Item{{Quantity: 3, Weight: 8000}} }, []summary{home(9900)}},
		{"too large for pickup", func(r *Request) {
			r.Items = []Item{{Quantity: 1, Dimensions: &catalog.Dimensions{Height: 700, Length: 300, Width: 300}}}
		}, []summary{home(4900)}},
		{"fits pickup turned over", func(r *Request) {
			r.Items = []Item{{Quantity: 1, Dimensions: &catalog.Dimensions{Height: 300, Length: 400, Width: 600}}}
		}, []summary{pickup, home(4900)}},
		{"excluded attribute", func(r *Request) { r.Attributes = []string{"dangerous"} }, []summary{pickup}},
		{"required attribute and postal range", func(r *Request) { r.Attributes = []string{"small"} }, []summary{pickup, home(4900), mailbox}},
		{"outside postal range", func(r *Request) { r.Attributes = []string{"small"}; r.Address.PostalCode = "411 05" },
			// Göteborg: the one point within 50 km, none of Stockholm's.
			[]summary{{"pickup", []string{"pickup/np-point/gbg"}, 3900}, home(4900)}},
		{"other country", func(r *Request) { r.Address = catalog.Address{Country: "DE", PostalCode: "10178"} }, nil},
		{"no price in currency", func(r *Request) { r.Currency = "EUR" }, nil},
		{"category restriction", func(r *Request) { r.Categories = []string{"home"} }, []summary{home(4900)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base()
			tt.mutate(&req)
			res, err := e.Compute(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(res)); diff != "" {
				t.Errorf("categories (-want +got):\n%s", diff)
			}
			if len(tt.want) > 0 {
				if want := tt.want[0].Options[0]; res.Preselected != want || !res.Categories[0].Preselected || !res.Categories[0].Options[0].Preselected {
					t.Errorf("preselected = %q, want %q marked on the first category and option", res.Preselected, want)
				}
			} else if res.Preselected != "" {
				t.Errorf("preselected = %q with no options", res.Preselected)
			}
		})
	}
}

func TestComputeLocales(t *testing.T) {
	e := newEngine(t, thursday)
	tests := []struct {
		locales    []string
		wantLocale string
		wantName   string
		wantAddon  string
		// wantProducts are the options' product names: np-home's per
		// locale, sc-exp's a plain string for every locale.
		wantProducts []string
	}{
		{nil, "en-US", "Home delivery", "Carry in", []string{"Home", "Express"}},
		{[]string{"sv-SE"}, "sv-SE", "Hemleverans", "Carry in", []string{"Hem", "Express"}}, // no Swedish addon name: the default's
		{[]string{"fi-FI", "sv-FI"}, "sv-SE", "Hemleverans", "Carry in", []string{"Hem", "Express"}},
		{[]string{"en-GB", "sv-SE"}, "en-US", "Home delivery", "Carry in", []string{"Home", "Express"}},
		{[]string{"de-DE"}, "en-US", "Home delivery", "Carry in", []string{"Home", "Express"}},
	}
	for _, tt := range tests {
		res, err := e.Compute(context.Background(), Request{Currency: "SEK", Locales: tt.locales, Address: catalog.Address{Country: "SE"}, Categories: []string{"home"}})
		if err != nil {
			t.Fatal(err)
		}
		c := res.Categories[0]
		got := []string{res.Locale, c.Name, c.Addons[1].Name}
		for _, o := range c.Options {
			got = append(got, o.Carrier.ProductName)
		}
		want := append([]string{tt.wantLocale, tt.wantName, tt.wantAddon}, tt.wantProducts...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("locales %v (-want +got):\n%s", tt.locales, diff)
		}
	}
}

func TestComputeErrors(t *testing.T) {
	e := newEngine(t, thursday)
	tests := []struct {
		req   Request
		field string
	}{
		{Request{Currency: "SEK", Locales: []string{"sv-SE", "swedish"}, Address: catalog.Address{Country: "SE"}}, "locales[1]"},
		{Request{Currency: "SEK", Locales: []string{"sv"}, Address: catalog.Address{Country: "SE"}}, "locales[0]"},
		{Request{Currency: "SEK", Locales: []string{"sv_SE"}, Address: catalog.Address{Country: "SE"}}, "locales[0]"},
		{Request{Currency: "SEK"}, "address.country"},
		// Valid lists are remembered by their joined form; a single
		// locale that looks like a remembered list is still refused.
		{Request{Currency: "SEK", Locales: []string{"sv-SE\x00en-US"}, Address: catalog.Address{Country: "SE"}}, "locales[0]"},
		{Request{Currency: "SEK", Locales: []string{"sv-SE,en-US"}, Address: catalog.Address{Country: "SE"}}, "locales[0]"},
		{Request{Currency: "SEK", Locales: []string{""}, Address: catalog.Address{Country: "SE"}}, "locales[0]"},
	}
	for _, valid := range [][]string{nil, {}, {"sv-SE"}, {"sv-SE", "en-US"}} {
		if _, err := e.Compute(context.Background(), Request{Currency: "SEK", Locales: valid, Address: catalog.Address{Country: "SE"}}); err != nil {
			t.Fatalf("Compute(locales %q): %v", valid, err)
		}
	}
	for _, tt := range tests {
		_, err := e.Compute(context.Background(), tt.req)
		vs := deliverykit.ViolationsOf(err)
		if !errors.Is(err, deliverykit.ErrInvalidArgument) || len(vs) != 1 || vs[0].Field != tt.field {
			t.Errorf("Compute(%+v) = %v, want invalid %s", tt.req, err, tt.field)
		}
	}
	if _, err := New(&catalog.Catalog{}, Options{}); !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("New(empty catalog) = %v, want invalid argument", err)
	}
}

func TestComputePickupDistances(t *testing.T) {
	e := newEngine(t, thursday)
	ctx := context.Background()
	at := catalog.Coordinates{Lat: 59.3340, Lng: 18.0630}
	res, err := e.Compute(ctx, Request{Currency: "SEK", Address: catalog.Address{Country: "SE", Coordinates: &at}, Categories: []string{"pickup"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var last int64
	for _, o := range res.Categories[0].Options {
		got = append(got, o.Location.ID)
		d := o.Location.Distance
		if d == nil || d.WalkingMeters < last || d.DrivingMeters <= d.WalkingMeters || d.WalkingMinutes <= d.DrivingMinutes {
			t.Errorf("%s: distance %+v after %d m", o.Location.ID, d, last)
			continue
		}
		last = d.WalkingMeters
	}
	if diff := cmp.Diff([]string{"sergel", "oster", "soder"}, got); diff != "" {
		t.Errorf("locations (-want +got):\n%s", diff)
	}
	// Sergel is about 170 m away as the crow flies.
	if d := res.Categories[0].Options[0].Location.Distance; d.WalkingMeters < 180 || d.WalkingMeters > 260 || d.WalkingMinutes != 3 {
		t.Errorf("walking to sergel = %d m, %d min", d.WalkingMeters, d.WalkingMinutes)
	}
	if res.Coordinates == nil || *res.Coordinates != at {
		t.Errorf("coordinates = %v, want the address's own", res.Coordinates)
	}

	// A postal code the catalog cannot place: no arbitrary locations, and
	// the result says the address needs placing.
	res, err = e.Compute(ctx, Request{Currency: "SEK", Address: catalog.Address{Country: "SE", PostalCode: "981 00"}, Categories: []string{"pickup"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Coordinates != nil || len(res.Categories) != 0 || !res.Unplaced {
		t.Errorf("unplaced address: coordinates %v, %d categories, unplaced %v", res.Coordinates, len(res.Categories), res.Unplaced)
	}

	// Nothing beyond the category's maximum distance: from Uppsala (about
	// 65 km) no Stockholm point; with 100 km allowed, the nearest three.
	uppsala := catalog.Coordinates{Lat: 59.8586, Lng: 17.6389}
	for _, tc := range []struct {
		maxKm int
		want  int
	}{{0, 0}, {100, 3}} {
		cat := testCatalog()
		cat.Categories[1].MaxDistanceKm = tc.maxKm
		e, err := New(cat, Options{Clock: deliverykit.NewManualClock(thursday)})
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Compute(ctx, Request{Currency: "SEK", Address: catalog.Address{Country: "SE", Coordinates: &uppsala}, Categories: []string{"pickup"}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range res.Categories {
			n += len(c.Options)
		}
		if n != tc.want {
			t.Errorf("max_distance_km %d: %d locations from Uppsala, want %d", tc.maxKm, n, tc.want)
		}
	}
}

func TestPostalGeocoder(t *testing.T) {
	g := NewPostalGeocoder(testCatalog())
	tests := []struct {
		addr catalog.Address
		want *catalog.Coordinates
	}{
		{catalog.Address{Country: "SE", PostalCode: "114 49"}, &catalog.Coordinates{Lat: 59.3388, Lng: 18.0842}}, // a location's own code
		{catalog.Address{Country: "se", PostalCode: "12345"}, &catalog.Coordinates{Lat: 59.3293, Lng: 18.0686}},  // the "1" area
		{catalog.Address{Country: "SE", PostalCode: "411 05"}, &catalog.Coordinates{Lat: 57.7089, Lng: 11.9699}},
		{catalog.Address{Country: "SE", PostalCode: "98100"}, nil},
		{catalog.Address{Country: "DE", PostalCode: "10178"}, nil},
	}
	for _, tt := range tests {
		c, ok, err := g.Geocode(context.Background(), tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		var got *catalog.Coordinates
		if ok {
			got = &c
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Geocode(%+v) (-want +got):\n%s", tt.addr, diff)
		}
	}
}

func TestETD(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, stockholm) }
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, stockholm) }
	home := productPlan{transit: catalog.DayRange{Min: 1, Max: 2}, cutH: 15, days: weekdays()}
	point := productPlan{lead: 1, transit: catalog.DayRange{Min: 2, Max: 3}, cutH: 12, days: weekdays()}
	mail := newPlan(catalog.Product{CutOff: "15:00", TransitDays: catalog.DayRange{Min: 1, Max: 1}, Days: []string{"tue", "thu"}})
	tests := []struct {
		name                    string
		now, ready              time.Time
		plan                    productPlan
		handover, first, last   time.Time
		earliestDays, latestDay int
	}{
		{"before cut-off", thursday, time.Time{}, home, at(2026, 11, 19, 15, 0), day(2026, 11, 20), day(2026, 11, 23), 1, 2},
		{"at cut-off", at(2026, 11, 19, 15, 0), time.Time{}, home, at(2026, 11, 19, 15, 0), day(2026, 11, 20), day(2026, 11, 23), 1, 2},
		{"after cut-off on Friday", at(2026, 11, 20, 15, 1), time.Time{}, home, at(2026, 11, 23, 15, 0), day(2026, 11, 24), day(2026, 11, 25), 2, 3},
		{"Saturday", at(2026, 11, 21, 9, 0), time.Time{}, home, at(2026, 11, 23, 15, 0), day(2026, 11, 24), day(2026, 11, 25), 2, 3},
		{"lead time", thursday, time.Time{}, point, at(2026, 11, 20, 12, 0), day(2026, 11, 24), day(2026, 11, 25), 3, 4},
		{"ready later", thursday, at(2026, 11, 23, 8, 0), home, at(2026, 11, 23, 15, 0), day(2026, 11, 24), day(2026, 11, 25), 3, 4},
		{"carrier days", at(2026, 11, 19, 16, 0), time.Time{}, mail, at(2026, 11, 24, 15, 0), day(2026, 11, 25), day(2026, 11, 25), 4, 4},
		{"holidays", at(2026, 12, 23, 16, 0), time.Time{}, home, at(2026, 12, 28, 15, 0), day(2026, 12, 29), day(2026, 12, 30), 2, 3},
		// UTC input, a day later in Stockholm: zone decides the date.
		{"warehouse zone", time.Date(2026, 11, 19, 23, 30, 0, 0, time.UTC), time.Time{}, home, at(2026, 11, 20, 15, 0), day(2026, 11, 23), day(2026, 11, 24), 1, 2},
		{"daylight saving change", at(2026, 3, 27, 16, 0), time.Time{}, home, at(2026, 3, 30, 15, 0), day(2026, 3, 31), day(2026, 4, 1), 2, 3},
	}
	cal, err := newCalendar("Europe/Stockholm", []string{"2026-12-24", "2026-12-25", "2026-12-26"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cal.etd(tt.now, tt.ready, tt.plan)
			want := ETD{Handover: tt.handover, Earliest: tt.first, Latest: tt.last.AddDate(0, 0, 1).Add(-time.Second), EarliestDays: tt.earliestDays, LatestDays: tt.latestDay}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("etd (-want +got):\n%s", diff)
			}
		})
	}
}

func weekdays() [7]bool {
	var d [7]bool
	for i := time.Monday; i <= time.Friday; i++ {
		d[i] = true
	}
	return d
}

func TestIndexMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	coords := make([]catalog.Coordinates, 5000)
	for i := range coords {
		// Clustered like real networks, plus points near the poles and
		// across the antimeridian.
		switch i % 4 {
		case 0:
			coords[i] = catalog.Coordinates{Lat: 59 + r.Float64(), Lng: 18 + r.Float64()}
		case 1:
			coords[i] = catalog.Coordinates{Lat: r.Float64()*180 - 90, Lng: r.Float64()*360 - 180}
		case 2:
			coords[i] = catalog.Coordinates{Lat: 89 + r.Float64(), Lng: r.Float64()*360 - 180}
		default:
			coords[i] = catalog.Coordinates{Lat: r.Float64()*10 - 5, Lng: 179 + r.Float64()*2 - 1}
			if coords[i].Lng > 180 {
				coords[i].Lng -= 360
			}
		}
	}
	ix := NewIndex(coords)
	// k below and above the candidates kept on the stack.
	for q := 0; q < 200; q++ {
		k := []int{7, maxStackNeighbors, maxStackNeighbors + 1, 40}[q%4]
		at := coords[r.IntN(len(coords))]
		at.Lat = max(-90, min(90, at.Lat+r.Float64()*0.2-0.1))
		got := ix.Nearest(at, k)
		want := bruteNearest(coords, at, k)
		if len(got) != len(want) {
			t.Fatalf("query %v: %d nearest, want %d", at, len(got), len(want))
		}
		if appended := ix.appendNearest([]Neighbor{{Item: -1}}, at, k); !slices.Equal(appended[1:], got) || appended[0].Item != -1 {
			t.Fatalf("query %v: appendNearest after one neighbor = %v, want it and %v", at, appended, got)
		}
		for i := range want {
			if got[i].Item != want[i].Item && abs(got[i].Meters-want[i].Meters) > 1e-6 {
				t.Fatalf("query %v: nearest[%d] = %+v, want %+v", at, i, got[i], want[i])
			}
			if abs(got[i].Meters-haversine(at, coords[got[i].Item])) > 0.01 {
				t.Fatalf("query %v: distance %v, haversine %v", at, got[i].Meters, haversine(at, coords[got[i].Item]))
			}
		}
	}
	small := NewIndex(coords[:3])
	if n := small.Nearest(coords[0], 5); len(n) != 3 || n[0].Item != 0 {
		t.Errorf("5 nearest of 3 points from the first = %v, want the 3, the first first", n)
	}
	if n := NewIndex(nil).Nearest(catalog.Coordinates{}, 3); n != nil {
		t.Errorf("empty index answered %v", n)
	}
	if n := ix.Nearest(catalog.Coordinates{}, 0); n != nil {
		t.Errorf("k=0 answered %v", n)
	}
}

func bruteNearest(coords []catalog.Coordinates, at catalog.Coordinates, k int) []Neighbor {
	all := make([]Neighbor, len(coords))
	for i, c := range coords {
		all[i] = Neighbor{Item: i, Meters: haversine(at, c)}
	}
	for i := 0; i < k; i++ {
		for j := i + 1; j < len(all); j++ {
			if all[j].Meters < all[i].Meters {
				all[i], all[j] = all[j], all[i]
			}
		}
	}
	return all[:k]
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestCollectable(t *testing.T) {
	cal, err := newCalendar("Europe/Stockholm", nil)
	if err != nil {
		t.Fatal(err)
	}
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, stockholm) }
	// Handover Thursday 19 Nov, delivery Friday 20 to Tuesday 24.
	base := ETD{Handover: time.Date(2026, 11, 19, 15, 0, 0, 0, stockholm), Earliest: day(11, 20), Latest: day(11, 25).Add(-time.Second), EarliestDays: 1, LatestDays: 3}
	tests := []struct {
		name        string
		loc         catalog.PickupLocation
		first, last time.Time
		days        [2]int
	}{
		{"always open", catalog.PickupLocation{}, day(11, 20), day(11, 24), [2]int{1, 3}},
		{"open every day", catalog.PickupLocation{Hours: map[string][]string{"mon": {"08:00-20:00"}, "tue": {"08:00-20:00"}, "fri": {"08:00-20:00"}}}, day(11, 20), day(11, 24), [2]int{1, 3}},
		{"Mondays only", catalog.PickupLocation{Hours: map[string][]string{"mon": {"08:00-20:00"}}}, day(11, 23), day(11, 30), [2]int{2, 7}},
		{"closed on a date", catalog.PickupLocation{Closed: []string{"2026-11-20", "2026-11-24"}}, day(11, 21), day(11, 25), [2]int{1, 4}},
	}
	for _, tt := range tests {
		a := newAvailability(&tt.loc)
		got := cal.collectable(base, &a)
		want := ETD{Handover: base.Handover, Earliest: tt.first, Latest: tt.last.AddDate(0, 0, 1).Add(-time.Second), EarliestDays: tt.days[0], LatestDays: tt.days[1]}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestPickupOrderAcrossProducts: in a category with two carriers' pickup
// products, options are ordered by distance, not grouped by carrier.
func TestPickupOrderAcrossProducts(t *testing.T) {
	site, _ := config.Demo().Site("demo-site")
	e, err := New(site.Catalog, Options{Clock: deliverykit.NewManualClock(thursday)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Compute(context.Background(), Request{Currency: "SEK", Address: catalog.Address{Country: "SE", PostalCode: "111 20"}, Categories: []string{"pickup"}})
	if err != nil {
		t.Fatal(err)
	}
	carriers := map[string]bool{}
	last := int64(-1)
	for _, o := range res.Categories[0].Options {
		carriers[o.Carrier.ID] = true
		if d := o.Location.Distance.WalkingMeters; d < last {
			t.Errorf("%s at %d m comes after %d m", o.ID, d, last)
		} else {
			last = d
		}
	}
	if len(carriers) != 2 {
		t.Errorf("carriers = %v, want both", carriers)
	}
	if got := res.Preselected; got != "pickup/swift-courier-locker/sc-se-101" {
		t.Errorf("preselected = %s, want the locker at the central station", got)
	}
}

func TestEstimate(t *testing.T) {
	tests := []struct {
		meters float64
		want   Distance
	}{
		{0, Distance{}},
		{1000, Distance{WalkingMeters: 1250, WalkingMinutes: 15, DrivingMeters: 1400, DrivingMinutes: 3}},
		{100000, Distance{WalkingMeters: 125000, WalkingMinutes: 1500, DrivingMeters: 140000, DrivingMinutes: 115}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, estimate(tt.meters)); diff != "" {
			t.Errorf("estimate(%v) (-want +got):\n%s", tt.meters, diff)
		}
	}
}

// The fallback is offered, alone and preselected, exactly when no category
// serves a request; vouchers match without regard to case.
func TestFallbackAndVouchers(t *testing.T) {
	cat := testCatalog()
	cat.VATRate = 2500
	cat.Fallback = &catalog.Fallback{ID: "fallback", ExternalID: "FB", Product: "np-home",
		DisplayName: map[string]string{"en-US": "Standard shipping", "sv-SE": "Standardfrakt"},
		ETDText:     map[string]string{"sv-SE": "3–7 arbetsdagar"},
		Prices:      []catalog.PriceRule{{Currency: "SEK", Price: 0, Voucher: "FREESHIP"}, {Currency: "SEK", Price: 14900}}}
	e, err := New(cat, Options{Clock: deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  Request
		want []summary
	}{
		{"served: no fallback", Request{Currency: "SEK", Locales: []string{"sv-SE"}, Address: catalog.Address{Country: "SE", PostalCode: "11157"}},
			[]summary{{"pickup", []string{"pickup/np-point/sergel", "pickup/np-point/oster", "pickup/np-point/soder"}, 3900}, {"home", []string{"home/np-home", "home/sc-exp"}, 4900}}},
		{"voucher in any case", Request{Currency: "SEK", Locales: []string{"sv-SE"}, Vouchers: []string{"freeship"}, Address: catalog.Address{Country: "SE", PostalCode: "11157"}},
			[]summary{{"pickup", []string{"pickup/np-point/sergel", "pickup/np-point/oster", "pickup/np-point/soder"}, 3900}, {"home", []string{"home/np-home", "home/sc-exp"}, 0}}},
		{"unserved country", Request{Currency: "SEK", Locales: []string{"sv-SE"}, Address: catalog.Address{Country: "NO"}},
			[]summary{{"fallback", []string{"fallback/np-home"}, 14900}}},
		{"unserved, voucher", Request{Currency: "SEK", Locales: []string{"sv-SE"}, Vouchers: []string{"FreeShip"}, Address: catalog.Address{Country: "NO"}},
			[]summary{{"fallback", []string{"fallback/np-home"}, 0}}},
		{"no fallback price", Request{Currency: "EUR", Locales: []string{"sv-SE"}, Address: catalog.Address{Country: "NO"}}, nil},
		// The fallback is not a category to ask for: it is offered
		// whatever the request restricts the categories to.
		{"categories asked for", Request{Currency: "SEK", Locales: []string{"sv-SE"}, Categories: []string{"home"}, Address: catalog.Address{Country: "NO"}},
			[]summary{{"fallback", []string{"fallback/np-home"}, 14900}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Compute(t.Context(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(res.Categories) == 1 && res.Categories[0].Fallback {
				c := res.Categories[0]
				got := []any{c.Name, c.ETDText, c.ExternalID, c.BasePrice, c.Options[0].Carrier.ProductRef, c.Options[0].Carrier.VATRate, res.Preselected}
				want := []any{"Standardfrakt", "3–7 arbetsdagar", "FB", int64(14900), "np-home", 2500, "fallback/np-home"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("fallback category (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A cart too heavy to count saturates rather than wrapping into a light
// one: it is offered nothing with a weight limit.
func TestCartWeightSaturates(t *testing.T) {
	tests := []struct {
		items []Item
		want  int
	}{
		{nil, 0},
		{[]Item{{Quantity: 2, Weight: 1500}, {Quantity: 1, Weight: 0}, {Quantity: -1, Weight: 9}}, 3000},
		{[]Item{{Quantity: math.MaxInt / 2, Weight: 3}}, math.MaxInt},
		{[]Item{{Quantity: 1, Weight: math.MaxInt}, {Quantity: 1, Weight: 1}}, math.MaxInt},
	}
	for _, tc := range tests {
		if got := cartWeight(tc.items); got != tc.want {
			t.Errorf("cartWeight(%v) = %d, want %d", tc.items, got, tc.want)
		}
	}
	e := newEngine(t, time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	res, err := e.Compute(t.Context(), Request{Currency: "SEK", Locales: []string{"sv-SE"}, Address: catalog.Address{Country: "SE", PostalCode: "11157"},
		Items: []Item{{Quantity: math.MaxInt / 1000, Weight: 1 << 40}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Categories {
		if c.ID == "pickup" {
			t.Errorf("an overweight cart is offered %s", c.ID)
		}
	}
}

// TestOptionsMatchTheirDefinitions checks every option, over a fortnight
// of computation times, against what it is defined to be: its id the
// category, product and location ids joined by slashes, and its estimate
// the product's estimate moved to the days its location is open
// (collectable). The engine makes the ids once per catalog and finds an
// estimate's days once per product; this is what they must still add up
// to at every location. The demo catalog has categories of several
// products; the test catalog's points open on Mondays only, so that
// collectable moves most estimates.
func TestOptionsMatchTheirDefinitions(t *testing.T) {
	demo, _ := config.Demo().Site("demo-site")
	tests := []struct {
		name string
		cat  *catalog.Catalog
		addr catalog.Address
	}{
		{"demo, Stockholm", demo.Catalog, catalog.Address{Country: "SE", PostalCode: "111 57"}},
		{"demo, Gothenburg", demo.Catalog, catalog.Address{Country: "SE", PostalCode: "411 05"}},
		{"demo, unplaced", demo.Catalog, catalog.Address{Country: "SE", PostalCode: "999 99"}},
		{"open on Mondays", testCatalog(), catalog.Address{Country: "SE", PostalCode: "118 26"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.cat, Options{})
			if err != nil {
				t.Fatal(err)
			}
			locs := map[string]*catalog.PickupLocation{}
			for i := range tt.cat.PickupLocations {
				locs[tt.cat.PickupLocations[i].ID] = &tt.cat.PickupLocations[i]
			}
			located, moved := 0, 0
			for h := 0; h < 14*24; h += 7 {
				now := thursday.Add(time.Duration(h) * time.Hour)
				res, err := e.ComputeFor(t.Context(), Request{Currency: "SEK", Locales: []string{"sv-SE"}, Address: tt.addr}, now)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range res.Categories {
					for _, o := range c.Options {
						wantID := c.ID + "/" + o.Carrier.ProductRef
						cal := e.cals[c.Warehouse.ID]
						want := cal.etd(now, time.Time{}, e.products[o.Carrier.ProductRef].plan)
						if o.Location != nil {
							located++
							wantID += "/" + o.Location.ID
							a := newAvailability(locs[o.Location.ID])
							if at := cal.collectable(want, &a); at != want {
								want = at
								moved++
							}
						}
						if o.ID != wantID {
							t.Errorf("%s: option id %q, want %q", now, o.ID, wantID)
						}
						if diff := cmp.Diff(want, o.ETD); diff != "" {
							t.Errorf("%s: %s: ETD (-want +got):\n%s", now, o.ID, diff)
						}
					}
				}
			}
			t.Logf("%d options at locations, %d of them moved to an open day", located, moved)
			if tt.name != "demo, unplaced" && located == 0 {
				t.Error("no option at a location: the test checks nothing of them")
			}
		})
	}
}

// TestComputeManyCategories: a catalog with more categories than compute
// gathers on the stack is answered as one with fewer, every category
// offered in sort order, and nothing offered is no categories at all.
func TestComputeManyCategories(t *testing.T) {
	for _, n := range []int{1, maxStackCategories, maxStackCategories + 1, 2*maxStackCategories + 3} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			cat := testCatalog()
			home := cat.Categories[0]
			cat.Categories = nil
			var want []summary
			for i := range n {
				c := home
				c.ID, c.SortOrder = fmt.Sprintf("home-%02d", i), n-i
				cat.Categories = append(cat.Categories, c)
				want = append([]summary{{c.ID, []string{c.ID + "/np-home", c.ID + "/sc-exp"}, 4900}}, want...)
			}
			e, err := New(cat, Options{Clock: deliverykit.NewManualClock(thursday)})
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 10000,
				Address: catalog.Address{Country: "SE", PostalCode: "111 57"}, Items: []Item{{Quantity: 1, Weight: 500}}}
			res, err := e.Compute(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, summarize(res)); diff != "" {
				t.Errorf("categories (-want +got):\n%s", diff)
			}
			if len(res.Categories) != cap(res.Categories) && n <= maxStackCategories {
				t.Errorf("%d categories in room for %d", len(res.Categories), cap(res.Categories))
			}
			req.Currency = "EUR" // no price rule: nothing offered
			if res, err = e.Compute(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			if res.Categories != nil {
				t.Errorf("nothing offered: categories %v, want nil", res.Categories)
			}
		})
	}
}
