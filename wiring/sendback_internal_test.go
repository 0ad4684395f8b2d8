package wiring

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
)

// TestReturnsAddressAndLocale: what a completed checkout or delivery
// session hands a returnable order is always importable: an address
// without a country, an odd locale or over-long fields never keep the
// order from being returnable.
func TestReturnsAddressAndLocale(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name string
		got  *returns.Address
		want *returns.Address
	}{
		{"checkout, street parts", checkoutReturnsAddress(&checkout.CustomerAddress{Name: "Łukasz Żółć", Street: "Drottninggatan", StreetNumber: "5",
			PostalCode: "111 57", City: "Stockholm", Country: "SE", Coordinates: &checkout.Coordinates{Lat: 59.3, Lng: 18.1}}, "SE"),
			&returns.Address{Name: "Łukasz Żółć", AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 57", City: "Stockholm", Country: "SE",
				Coordinates: &returns.Coordinates{Lat: 59.3, Lng: 18.1}}},
		{"checkout, purchase country", checkoutReturnsAddress(&checkout.CustomerAddress{AddressLines: []string{"Storgatan 1"}, PostalCode: "111 51"}, "SE"),
			&returns.Address{AddressLines: []string{"Storgatan 1"}, PostalCode: "111 51", Country: "SE"}},
		{"checkout, no country at all", checkoutReturnsAddress(&checkout.CustomerAddress{PostalCode: "111 51"}, ""), nil},
		{"checkout, none", checkoutReturnsAddress(nil, "SE"), nil},
		{"session, clipped", sessionReturnsAddress(&session.Address{CountryCode: "NO", PostalCode: long, City: long,
			AddressLines: []string{long, "2", "3", "4", "5", "6"}, Coordinates: &session.Coordinates{Lat: 100, Lng: 10}}),
			&returns.Address{Country: "NO", PostalCode: long[:32], City: long[:128], AddressLines: []string{long[:256], "2", "3", "4", "5"}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	for in, want := range map[string]string{"sv-SE": "sv-SE", "": "", "no such locale!": "", strings.Repeat("a", 40): ""} {
		if got := returnsLocale(in); got != want {
			t.Errorf("returnsLocale(%q) = %q, want %q", in, got, want)
		}
	}
}
