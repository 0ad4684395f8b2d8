package label_test

import (
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

func TestMoney(t *testing.T) {
	tests := []struct {
		v        int64
		decimals int
		want     string
	}{
		{129900, 2, "1299.00"}, {5, 2, "0.05"}, {0, 2, "0.00"}, {-150, 2, "-1.50"}, {50100, 0, "50100"}, {1234, 3, "1.234"},
	}
	for _, tt := range tests {
		if got := label.Money(tt.v, tt.decimals); got != tt.want {
			t.Errorf("Money(%d, %d) = %q, want %q", tt.v, tt.decimals, got, tt.want)
		}
	}
}

// The documents are deterministic, set Latin text in the core fonts, and
// refuse a declaration without items; a CN22 with more items than it has
// room for sums the rest up in one line.
func TestCustomsDocuments(t *testing.T) {
	d := label.CustomsData{ShipmentID: "shp_1", TrackingNumbers: []string{"CP000000014SE"}, SenderName: "Demo Outdoor", ReceiverName: "Ola Nordmann",
		ContentsType: "gift", Incoterm: "DAP", Currency: "SEK", Decimals: 2, GrossGrams: 900, Date: time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)}
	for i := range 7 {
		d.Items = append(d.Items, label.CustomsItem{Description: "Wool socks", HSCode: "611595", Origin: "SE", Quantity: 1, NetGrams: 100, Value: int64(i+1) * 1000})
	}
	for name, render := range map[string]func(label.CustomsData) ([]byte, error){"cn22": label.CN22, "cn23": label.CN23, "invoice": label.CommercialInvoice} {
		a, err := render(d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b, _ := render(d); string(a) != string(b) {
			t.Errorf("%s: two renders differ", name)
		}
		if strings.Contains(string(a), "FontFile2") {
			t.Errorf("%s: Latin text embeds a font", name)
		}
		texts, err := labeltest.Texts(a)
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(texts, "|")
		more := strings.Contains(all, "and 3 more items")
		if more != (name == "cn22") {
			t.Errorf("%s: summed-up rows %v: %s", name, more, all)
		}
		if !strings.Contains(all, "280.00 SEK") {
			t.Errorf("%s: no total of 280.00 SEK: %s", name, all)
		}
		if _, err := render(label.CustomsData{}); err == nil {
			t.Errorf("%s: rendered without items", name)
		}
	}
}
