package checkout

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
)

// A shipping date moves the earliest pickup from the merchant, and with
// it the promises, the way a handling time does: the cart's, an item's
// (the latest of them), and a category tag's for that category only.
func TestShippingDateMovesPromises(t *testing.T) {
	day := func(d int) *time.Time { v := testNow.Truncate(24*time.Hour).AddDate(0, 0, d); return &v }
	base := newFixture(t)
	v, err := base.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	preselected := v.Session.Result.Category.ID
	baseline := v.Session.Result.DeliveryTime.PickupFromMerchant.Earliest

	tests := []struct {
		name string
		edit func(*Cart)
		// moved: the pickup is on or after this day; nil: unchanged.
		moved *time.Time
	}{
		{"none", func(*Cart) {}, nil},
		{"a day in the past is now", func(c *Cart) { c.ShippingDate = &ShippingDate{Start: day(-3)} }, nil},
		{"the cart's date", func(c *Cart) { c.ShippingDate = &ShippingDate{Start: day(5), End: day(6)} }, day(5)},
		{"the latest item's date", func(c *Cart) {
			c.Items[0].ShippingDate = &ShippingDate{Start: day(3)}
			c.Items[1].ShippingDate = &ShippingDate{Start: day(7)}
		}, day(7)},
		{"the chosen category's tag", func(c *Cart) {
			c.Items[0].ShippingDate = &ShippingDate{CategoryTags: []ShippingDateTag{{Name: "bulky", ShippingDate: &DateRange{Start: day(4)}}}}
		}, day(4)},
		{"another category's tag", func(c *Cart) {
			c.Items[0].ShippingDate = &ShippingDate{CategoryTags: []ShippingDateTag{{Name: "nobody-has-it", ShippingDate: &DateRange{Start: day(4)}}}}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(cats map[string]*catalog.Catalog) {
				for i := range cats["demo-site"].Categories {
					if c := &cats["demo-site"].Categories[i]; c.ID == preselected {
						c.Tags = append(c.Tags, "bulky")
					}
				}
			})
			req := createRequest()
			tt.edit(req.Cart)
			v, err := f.svc.Create(t.Context(), "demo-site", req)
			if err != nil {
				t.Fatal(err)
			}
			got := v.Session.Result.DeliveryTime.PickupFromMerchant.Earliest
			if v.Session.Result.Category.ID != preselected {
				t.Fatalf("the preselected category is %s, want %s", v.Session.Result.Category.ID, preselected)
			}
			switch {
			case tt.moved == nil && !got.Equal(baseline):
				t.Errorf("pickup from merchant %v, want %v as without a date", got, baseline)
			case tt.moved != nil && got.Before(*tt.moved):
				t.Errorf("pickup from merchant %v, want on or after %v", got, *tt.moved)
			}
			// The date survives a recomputation from the stored inputs.
			f.clock.Advance(time.Hour)
			again, err := f.svc.PullCheckout(t.Context(), "demo-site", v.Session.ID)
			if err != nil {
				t.Fatal(err)
			}
			pickup := again.Session.DeliveryGroups[0].DeliveryTime.PickupFromMerchant.Earliest
			if tt.moved != nil && pickup.Before(*tt.moved) {
				t.Errorf("recomputed, the pickup is %v, before %v", pickup, *tt.moved)
			}
		})
	}
}

func TestShippingDateChecked(t *testing.T) {
	later, earlier := testNow.Add(48*time.Hour), testNow.Add(24*time.Hour)
	tests := []struct {
		name      string
		edit      func(*Cart)
		wantField string
	}{
		{"item end before start", func(c *Cart) { c.Items[1].ShippingDate = &ShippingDate{Start: &later, End: &earlier} }, "cart.items[1].shipping_date.end"},
		{"cart end before start", func(c *Cart) { c.ShippingDate = &ShippingDate{Start: &later, End: &earlier} }, "cart.shipping_date.end"},
		{"tag end before start", func(c *Cart) {
			c.ShippingDate = &ShippingDate{CategoryTags: []ShippingDateTag{{Name: "x", ShippingDate: &DateRange{Start: &later, End: &earlier}}}}
		}, "cart.shipping_date.category_tags[0].shipping_date.end"},
		{"tag without a name", func(c *Cart) { c.ShippingDate = &ShippingDate{CategoryTags: []ShippingDateTag{{}}} }, "cart.shipping_date.category_tags[0].name"},
		{"too many tags", func(c *Cart) {
			c.ShippingDate = &ShippingDate{CategoryTags: make([]ShippingDateTag, MaxShippingDateTags+1)}
			for i := range c.ShippingDate.CategoryTags {
				c.ShippingDate.CategoryTags[i].Name = "t"
			}
		}, "cart.shipping_date.category_tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			req := createRequest()
			tt.edit(req.Cart)
			_, err := f.svc.Create(t.Context(), "demo-site", req)
			var e *deliverykit.Error
			if !errors.As(err, &e) || e.Kind != deliverykit.KindInvalidArgument || len(e.Violations) == 0 {
				t.Fatalf("error %v, want InvalidArgument", err)
			}
			if got := e.Violations[0].Field; got != tt.wantField {
				t.Errorf("field %q, want %q", got, tt.wantField)
			}
		})
	}
}

// The object form, and the timestamp older clients sent, decode; the
// object is echoed as sent.
func TestShippingDateJSON(t *testing.T) {
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	end := time.Date(2026, 11, 23, 23, 59, 59, 999e6, time.UTC)
	tests := []struct {
		in   string
		want ShippingDate
	}{
		{`{"start":"2026-11-23T00:00:00.000Z","end":"2026-11-23T23:59:59.999Z","category_tags":[{"name":"express","shipping_date":{"start":"2026-11-23T00:00:00.000Z"}}]}`,
			ShippingDate{Start: &start, End: &end, CategoryTags: []ShippingDateTag{{Name: "express", ShippingDate: &DateRange{Start: &start}}}}},
		{`"2026-11-23T00:00:00Z"`, ShippingDate{Start: &start, End: &start}},
		{`{}`, ShippingDate{}},
	}
	for _, tt := range tests {
		var got ShippingDate
		if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{`12`, `"monday"`, `{"start":12}`, `[]`} {
		var got ShippingDate
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s decoded as %+v, want an error", bad, got)
		}
	}
}
