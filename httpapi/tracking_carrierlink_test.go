package httpapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrackingCarrierLinkLocaleOverHTTP: carrier_link names the language
// of the order or of the read, and without either it has no "lang="
// (carrier pages read an empty language as one named "").
func TestTrackingCarrierLinkLocaleOverHTTP(t *testing.T) {
	tests := []struct {
		name, orderLocale, query, want string
	}{
		{"order locale", `"locale": "sv-SE",`, "", "https://np.example/track?n=TN1&zip=111+57&lang=sv-SE"},
		{"read locale", "", "&locale=de-DE", "https://np.example/track?n=TN1&zip=111+57&lang=de-DE"},
		{"no locale", "", "", "https://np.example/track?n=TN1&zip=111+57"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFieldsEnv(t)
			tos := str(e.post(t, "/order", `{"external_id": "ORD-L", "carrier_product_ref": "np-point", `+tt.orderLocale+`
				"sender": {"name": "Demo Outdoor Store"}, "receiver": {"name": "Alva Berg"},
				"destination": {"address": {"postal_code": "111 57", "country": "SE"}}, "delivery_type": "PICKUP"}`), "id")
			e.post(t, "/parcel", `{"tos_id": "`+tos+`", "tracking_number": "TN1", "carrier_product_ref": "np-point", "direction_type": "OUTBOUND"}`)
			orders := e.getJSON(t, "/orders?external_id=ORD-L"+tt.query, 200)
			p := dig(orders, "orders", 0, "parcels", 0)
			for _, field := range []string{"carrier_link", "tracking_link"} {
				if diff := cmp.Diff(tt.want, dig(p, field)); diff != "" {
					t.Errorf("GET /orders %s (-want +got):\n%s", field, diff)
				}
			}
			parcels := e.getJSON(t, "/parcels?tracking_number=TN1", 200)
			if tt.query == "" {
				if diff := cmp.Diff(tt.want, dig(parcels, "parcels", 0, "carrier_link")); diff != "" {
					t.Errorf("GET /parcels carrier_link (-want +got):\n%s", diff)
				}
			}
		})
	}
}
