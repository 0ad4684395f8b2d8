package page

import (
	"io"
	"testing"

	"github.com/deliverykit/deliverykit/returns"
)

// BenchmarkRender measures one status page, the customer-facing hot path
// (the template is parsed once, at package init).
func BenchmarkRender(b *testing.B) {
	r := sampleReturn(returns.StatusAwaitingRefund)
	tag := Language("", "sv-SE,sv;q=0.9")
	b.ReportAllocs()
	for b.Loop() {
		if err := Render(io.Discard, tag, r); err != nil {
			b.Fatal(err)
		}
	}
}
