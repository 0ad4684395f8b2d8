package page

import (
	"io"
	"testing"

	"golang.org/x/text/language"
)

// BenchmarkRender measures rendering the page of an order with one parcel,
// done on every open of a tracking link.
func BenchmarkRender(b *testing.B) {
	o := sampleOrder()
	for b.Loop() {
		if err := Render(io.Discard, o, language.Swedish, Options{Now: now}); err != nil {
			b.Fatal(err)
		}
	}
}
