package returns

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

// TestUsableAddressAndLocale: what a completed order hands a returnable
// order is always importable: an address without a country, an odd locale
// or over-long fields never keep the order from being returnable.
func TestUsableAddressAndLocale(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name    string
		addr    *deliverykit.Address
		country string
		want    *Address
	}{
		{"street parts", &deliverykit.Address{Name: "Łukasz Żółć", Street: "Drottninggatan", StreetNumber: "5",
			PostalCode: "111 57", City: "Stockholm", Country: "SE", Coordinates: &deliverykit.Coordinates{Lat: 59.3, Lng: 18.1}}, "SE",
			&Address{Name: "Łukasz Żółć", AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 57", City: "Stockholm", Country: "SE",
				Coordinates: &Coordinates{Lat: 59.3, Lng: 18.1}}},
		{"purchase country", &deliverykit.Address{AddressLines: []string{"Storgatan 1"}, PostalCode: "111 51"}, "SE",
			&Address{AddressLines: []string{"Storgatan 1"}, PostalCode: "111 51", Country: "SE"}},
		{"no country at all", &deliverykit.Address{PostalCode: "111 51"}, "", nil},
		{"none", nil, "SE", nil},
		{"clipped", &deliverykit.Address{Country: "NO", PostalCode: long, City: long,
			AddressLines: []string{long, "2", "3", "4", "5", "6"}, Coordinates: &deliverykit.Coordinates{Lat: 100, Lng: 10}}, "",
			&Address{Country: "NO", PostalCode: long[:32], City: long[:128], AddressLines: []string{long[:256], "2", "3", "4", "5"}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, usableAddress(tc.addr, tc.country)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	for in, want := range map[string]string{"sv-SE": "sv-SE", "": "", "no such locale!": "", strings.Repeat("a", 40): ""} {
		if got := usableLocale(in); got != want {
			t.Errorf("usableLocale(%q) = %q, want %q", in, got, want)
		}
	}
}
