package label_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/shipment/label"
)

// BenchmarkPDF renders a label whose text Windows-1252 holds (core fonts)
// and one that needs the embedded Go fonts.
func BenchmarkPDF(b *testing.B) {
	for _, bc := range []struct {
		name string
		data label.Data
	}{
		{"windows1252", data()},
		{"unicode", unicodeData(unicodeNames[0].name, unicodeNames[0].lines)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := label.PDF(bc.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
