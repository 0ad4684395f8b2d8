package session_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A product priced per parcel: the delivery session's options of it cost
// the category's price per parcel its line items pack into (the demo's
// large box holds one tent); a free one stays a price of 0 on the wire.
func TestPricePerParcel(t *testing.T) {
	clock := deliverykit.NewManualClock(testNow)
	cat := config.Demo().Catalogs()["demo-site"]
	for i := range cat.Carriers {
		for j := range cat.Carriers[i].Products {
			if cat.Carriers[i].Products[j].Ref == "north-parcel-point" {
				cat.Carriers[i].Products[j].PricePerParcel = true
			}
		}
	}
	eng, err := options.New(cat, options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := session.New(memory.New(), session.Options{Engines: engines{"demo-site": eng}, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		total int64
		want  int64
	}{
		{"three parcels", 45000, 3 * 4900},
		{"free above the threshold", 120000, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := svc.Create(t.Context(), "demo-site", input(t, func(s *session.Session) {
				s.Purchase.TotalValue = session.Int64(tt.total)
				s.Deliveries[0].LineItems[0].Quantity = 3
				s.Deliveries[0].LineItems[0].Weight = i32(2400)
				s.Deliveries[0].LineItems[0].Dimensions = &session.Dimensions{Length: 550, Width: 350, Height: 350}
			}))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range s.Deliveries[0].DeliveryCategories {
				if c.ID != "pickup" {
					continue
				}
				for _, o := range c.DeliveryOptions {
					got = append(got, fmt.Sprintf("%s %d", o.Carrier.Meta[session.MetaProductRef], o.Price))
				}
			}
			if len(got) == 0 {
				t.Fatal("no pickup options")
			}
			// The locker is not priced per parcel: the category's price.
			flat := map[bool]int64{true: 0, false: 4900}[tt.want == 0]
			want := make([]string, len(got))
			for i, g := range got {
				want[i] = fmt.Sprintf("north-parcel-point %d", tt.want)
				if strings.HasPrefix(g, "swift-courier-locker ") {
					want[i] = fmt.Sprintf("swift-courier-locker %d", flat)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pickup options (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(got[0], "north-parcel-point ") {
				t.Fatalf("first pickup option %s, want north-parcel-point's", got[0])
			}
			b, err := json.Marshal(s.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0])
			if err != nil {
				t.Fatal(err)
			}
			if w := fmt.Sprintf(`"price":"%d"`, tt.want); !strings.Contains(string(b), w) {
				t.Errorf("option on the wire %s, want %s in it", b, w)
			}
		})
	}
}
