package returns_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/returns"
)

// TestDropOffs places the customer by coordinates or postal code and
// lists the return carrier's points within the distance, nearest first.
func TestDropOffs(t *testing.T) {
	d := returns.NewCatalogDropOffs(config.Demo().Catalogs(), 0)
	tests := []struct {
		name    string
		site    string
		product string
		near    returns.Address
		n       int
		want    []string
		wantErr bool
	}{
		{"postal code", "demo-site", "north-parcel-point", returns.Address{PostalCode: "111 57", Country: "SE"}, 3, []string{"np-se-101", "np-se-103", "np-se-104"}, false},
		{"coordinates win", "demo-site", "north-parcel-home", returns.Address{PostalCode: "111 57", Country: "SE", Coordinates: &returns.Coordinates{Lat: 59.36, Lng: 18.0}},
			2, []string{"np-se-106", "np-se-105"}, false},
		{"the product's carrier only", "demo-site", "swift-courier-locker", returns.Address{PostalCode: "111 57", Country: "SE"}, 5,
			[]string{"sc-se-101", "sc-se-103", "sc-se-102"}, false},
		{"Berlin", "demo-site-2", "north-parcel-point", returns.Address{PostalCode: "10178", Country: "DE"}, 5, []string{"np-de-101", "np-de-103", "np-de-102"}, false},
		{"nothing within 50 km", "demo-site", "north-parcel-point", returns.Address{Country: "SE", Coordinates: &returns.Coordinates{Lat: 67.85, Lng: 20.22}}, 5, nil, false},
		{"an address nothing places", "demo-site", "north-parcel-point", returns.Address{PostalCode: "981 40", Country: "SE"}, 5, nil, false},
		{"unknown site", "nope", "north-parcel-point", returns.Address{PostalCode: "111 57", Country: "SE"}, 5, nil, false},
		{"unknown product", "demo-site", "nope", returns.Address{PostalCode: "111 57", Country: "SE"}, 5, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			points, err := d.DropOffPoints(t.Context(), tc.site, tc.product, tc.near, tc.n)
			var got []string
			last := -1.0
			for _, p := range points {
				got = append(got, p.ID)
				if p.Meters < last || p.Meters > 50000 {
					t.Errorf("%s at %.0f m after %.0f m", p.ID, p.Meters, last)
				}
				last = p.Meters
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || (err != nil) != tc.wantErr {
				t.Errorf("points (-want +got):\n%s\nerr %v", diff, err)
			}
		})
	}
}
