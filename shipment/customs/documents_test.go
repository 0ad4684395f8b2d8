package customs_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/shipment/customs"
)

func TestDocuments(t *testing.T) {
	postal := func(g int32) customs.Parcel { return customs.Parcel{Postal: true, Grams: g} }
	courier := customs.Parcel{Grams: 5000}
	tests := []struct {
		name     string
		parcels  []customs.Parcel
		value    int64
		currency string
		contents string
		want     []customs.Kind
	}{
		{"small gift by post", []customs.Parcel{postal(500)}, 100_000, "SEK", "gift", []customs.Kind{customs.CN22}},
		{"300 SDR in SEK is 4170 SEK", []customs.Parcel{postal(500)}, 417_000, "SEK", "gift", []customs.Kind{customs.CN22}},
		{"one öre above 300 SDR", []customs.Parcel{postal(500)}, 417_001, "SEK", "gift", []customs.Kind{customs.CN23}},
		{"exactly 2 kg", []customs.Parcel{postal(2000)}, 1000, "EUR", "sample", []customs.Kind{customs.CN22}},
		{"over 2 kg", []customs.Parcel{postal(2001)}, 1000, "EUR", "sample", []customs.Kind{customs.CN23}},
		{"sale on a CN23 gets the invoice", []customs.Parcel{postal(2500)}, 1000, "EUR", "sale", []customs.Kind{customs.CN23, customs.CommercialInvoice}},
		{"return on a CN23", []customs.Parcel{postal(2500)}, 1000, "EUR", "return", []customs.Kind{customs.CN23}},
		{"small sale on a CN22", []customs.Parcel{postal(300)}, 1000, "EUR", "sale", []customs.Kind{customs.CN22}},
		{"currency without a conversion", []customs.Parcel{postal(300)}, 1, "JPY", "gift", []customs.Kind{customs.CN23}},
		{"ISK has no minor unit", []customs.Parcel{postal(300)}, 50_100, "ISK", "gift", []customs.Kind{customs.CN22}},
		{"ISK above", []customs.Parcel{postal(300)}, 50_101, "ISK", "gift", []customs.Kind{customs.CN23}},
		{"courier", []customs.Parcel{courier}, 1000, "EUR", "gift", []customs.Kind{customs.CommercialInvoice}},
		{"postal and courier", []customs.Parcel{postal(100), courier}, 1000, "EUR", "gift", []customs.Kind{customs.CN22, customs.CommercialInvoice}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := customs.Documents(tt.parcels, tt.value, tt.currency, tt.contents)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
