package checkout

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/catalog"
)

// A product priced per parcel: the shopper pays the category's price per
// parcel the cart packs into (the demo's large box holds one tent), in
// both generations' views, and a free shipping stays a price of 0 on the
// wire.
func TestPricePerParcel(t *testing.T) {
	f := newFixtureWith(t, func(cats map[string]*catalog.Catalog) {
		cat := cats["demo-site"]
		for i := range cat.Carriers {
			for j := range cat.Carriers[i].Products {
				if cat.Carriers[i].Products[j].Ref == "north-parcel-point" {
					cat.Carriers[i].Products[j].PricePerParcel = true
				}
			}
		}
	})
	tents := func(total int64) CreateRequest {
		req := createRequest()
		req.Cart.TotalValue = total
		req.Cart.Items = []CartItem{{SKU: "tent-4p", Name: "Tent", Quantity: 3, Price: total / 3, Weight: 2400,
			Dimensions: &Dimensions{Length: 550, Width: 350, Height: 350}}}
		return req
	}
	tests := []struct {
		name  string
		total int64
		want  int64
	}{
		{"three parcels", 45000, 3 * 4900},
		{"free above the threshold", 120000, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := f.svc.Create(t.Context(), "demo-site", tents(tt.total))
			if err != nil {
				t.Fatal(err)
			}
			s := v.Session
			if opt := s.SelectedShippingOption; opt == nil || opt.ShippingMethod != "north-parcel-point" {
				t.Fatalf("selected %+v, want a north-parcel-point option", opt)
			}
			dc, err := f.svc.GetCheckout(t.Context(), "demo-site", s.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{s.SelectedShippingOption.Price, s.ShippingPrice, s.Result.Pricing.Price, dc.Session.DeliveryGroups[0].Pricing.Price}
			if diff := cmp.Diff([]int64{tt.want, tt.want, tt.want, tt.want}, got); diff != "" {
				t.Errorf("prices: option, shipping_price, result, delivery group (-want +got):\n%s", diff)
			}
			// Zero is a value: present, not left out.
			for what, answer := range map[string]any{"/v1/siw": s.Result.Pricing, "delivery checkout": dc.Session.DeliveryGroups[0].Pricing} {
				b, err := json.Marshal(answer)
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf(`"price":%d`, tt.want); !strings.Contains(string(b), want) {
					t.Errorf("%s pricing %s, want %s in it", what, b, want)
				}
			}
		})
	}
}
