package page

import (
	"io"
	"testing"

	"github.com/deliverykit/deliverykit/returns"
)

// BenchmarkRender measures one status page, the customer-facing hot path
// (the template is parsed once, at package init): without and with the
// send-back section (QR code and drop-off points).
func BenchmarkRender(b *testing.B) {
	tag := Language("", "", "sv-SE,sv;q=0.9")
	for _, bc := range []struct {
		name string
		v    returns.StatusPageView
	}{
		{"status", returns.StatusPageView{Return: sampleReturn(returns.StatusAwaitingRefund)}},
		{"send-back", sendBack()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Render(io.Discard, tag, bc.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
