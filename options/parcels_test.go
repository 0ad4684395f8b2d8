package options

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
)

// parcelCatalog is testCatalog with boxes, np-home and np-point priced
// per parcel: the small box ships with every product, the large one with
// np-home only.
func parcelCatalog() *catalog.Catalog {
	cat := testCatalog()
	cat.Carriers[0].Products[0].PricePerParcel = true // np-home
	cat.Carriers[0].Products[1].PricePerParcel = true // np-point
	cat.Boxes = []catalog.Box{
		{ID: "small", Name: "Small", Inner: catalog.Dimensions{Length: 300, Width: 200, Height: 150}, MaxWeight: 10000, TareWeight: 200},
		{ID: "large", Name: "Large", Inner: catalog.Dimensions{Length: 600, Width: 400, Height: 400}, MaxWeight: 25000, TareWeight: 700, Products: []string{"np-home"}},
	}
	cat.Fallback = &catalog.Fallback{ID: "fallback", Product: "np-home", DisplayName: map[string]string{"en-US": "Standard"},
		Prices: []catalog.PriceRule{{Currency: "SEK", Price: 14900}}}
	return cat
}

// Options of products priced per parcel cost the category's price times
// the parcels the cart packs into, in the boxes usable with each product;
// a product whose boxes cannot hold the cart is not offered, the others
// keep their price.
func TestPricePerParcel(t *testing.T) {
	e, err := New(parcelCatalog(), Options{Clock: deliverykit.NewManualClock(thursday)})
	if err != nil {
		t.Fatal(err)
	}
	dims := func(l, w, h int) *catalog.Dimensions { return &catalog.Dimensions{Length: l, Width: w, Height: h} }
	mugs := Item{Quantity: 4, Weight: 400, Dimensions: dims(120, 100, 100)}
	tents := Item{Quantity: 3, Weight: 2400, Dimensions: dims(550, 350, 350)} // the large box only
	points := []string{"pickup/np-point/sergel", "pickup/np-point/oster", "pickup/np-point/soder"}
	at := func(price int64, ids ...string) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = fmt.Sprintf("%s %d", id, price)
		}
		return out
	}
	tests := []struct {
		name      string
		req       func(r *Request)
		want      map[string][]string
		wantBase  int64 // of home
		wantCount int
	}{
		{"one box", func(r *Request) { r.Items = []Item{mugs} },
			map[string][]string{"pickup": at(3900, points...), "home": at(4900, "home/np-home", "home/sc-exp")}, 4900, 2},
		{"three parcels: per parcel and not", func(r *Request) { r.Items = []Item{tents} },
			// np-point's small box holds no tent: no pickup.
			map[string][]string{"home": {"home/np-home 14700", "home/sc-exp 4900"}}, 4900, 1},
		{"free shipping stays free", func(r *Request) { r.Items = []Item{tents}; r.CartValue = 50000 },
			map[string][]string{"home": {"home/np-home 0", "home/sc-exp 0"}}, 4900, 1},
		{"weight limits", func(r *Request) {
			// Two per large box by weight (25 kg): six parcels, in the
			// heavy band.
			r.Items = []Item{{Quantity: 12, Weight: 9000, Dimensions: dims(100, 100, 100)}}
		}, map[string][]string{"home": {"home/np-home 59400", "home/sc-exp 9900"}}, 9900, 1},
		{"no measures: never guessed", func(r *Request) { r.Items = []Item{{Quantity: 1, Weight: 500}} },
			map[string][]string{"home": {"home/sc-exp 4900"}}, 4900, 1},
		{"a voucher: free whatever the parcels", func(r *Request) {
			r.Items = []Item{tents}
			r.Categories = []string{"home"}
			r.Vouchers = []string{"FREESHIP"}
		}, map[string][]string{"home": {"home/np-home 0", "home/sc-exp 0"}}, 4900, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 10000, Address: catalog.Address{Country: "SE", PostalCode: "111 57"}}
			tt.req(&req)
			res, err := e.Compute(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, c := range res.Categories {
				for _, o := range c.Options {
					got[c.ID] = append(got[c.ID], fmt.Sprintf("%s %d", o.ID, o.Price))
				}
				if c.ID == "home" && c.BasePrice != tt.wantBase {
					t.Errorf("home base price %d, want %d", c.BasePrice, tt.wantBase)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
			if len(res.Categories) != tt.wantCount {
				t.Errorf("%d categories, want %d", len(res.Categories), tt.wantCount)
			}
		})
	}
}

// A category of one product priced per parcel has its base price per
// parcel too; the fallback is priced per parcel like any category, and
// left out when the cart cannot be packed.
func TestPricePerParcelBaseAndFallback(t *testing.T) {
	cat := parcelCatalog()
	cat.Categories[0].Products = []string{"np-home"}
	e, err := New(cat, Options{Clock: deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	tents := Item{Quantity: 2, Weight: 2400, Dimensions: &catalog.Dimensions{Length: 550, Width: 350, Height: 350}}
	for _, tt := range []struct {
		name      string
		country   string
		items     []Item
		wantID    string
		wantPrice int64
		wantBase  int64
	}{
		{"home, two parcels", "SE", []Item{tents}, "home/np-home", 9800, 9800},
		{"fallback, two parcels", "NO", []Item{tents}, "fallback/np-home", 29800, 29800},
		{"fallback, not packable", "NO", []Item{{Quantity: 1, Weight: 100}}, "", 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Compute(t.Context(), Request{Currency: "SEK", Locales: []string{"sv-SE"}, Items: tt.items,
				Address: catalog.Address{Country: tt.country, PostalCode: "111 57"}, Categories: []string{"home"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			if len(res.Categories) > 0 {
				c := res.Categories[0]
				got = []any{c.Options[0].ID, c.Options[0].Price, c.BasePrice}
			}
			var want []any
			if tt.wantID != "" {
				want = []any{tt.wantID, tt.wantPrice, tt.wantBase}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkComputePerParcel is BenchmarkCompute with every demo product
// priced per parcel and a cart of 100 units in 20 lines: the price per
// parcel packs the cart once per set of usable boxes and category.
func BenchmarkComputePerParcel(b *testing.B) {
	site, _ := config.Demo().Site("demo-site")
	cat := site.Catalog
	for i := range cat.Carriers {
		for j := range cat.Carriers[i].Products {
			cat.Carriers[i].Products[j].PricePerParcel = true
		}
	}
	e, err := New(cat, Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	req := Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 45000, Address: catalog.Address{Country: "SE", PostalCode: "118 26"}}
	for range 20 {
		req.Items = append(req.Items, Item{Quantity: 5, Weight: 50 + r.IntN(400),
			Dimensions: &catalog.Dimensions{Length: 30 + r.IntN(250), Width: 20 + r.IntN(180), Height: 10 + r.IntN(120)}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Compute(b.Context(), req); err != nil {
			b.Fatal(err)
		}
	}
}
