package carrier_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkSimulatorSweep measures a sweep with nothing due among many
// planned routes: its cost must not grow with them.
func BenchmarkSimulatorSweep(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint(n, "routes"), func(b *testing.B) {
			clock := deliverykit.NewManualClock(monday)
			sim, err := carrier.NewSimulator(memory.New(), carrier.SimulatorOptions{Clock: clock})
			if err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if _, err := sim.Book(b.Context(), bookingReq(i, shipment.DeliveryDelivery, shipment.DirectionOutbound)); err != nil {
					b.Fatal(err)
				}
			}
			clock.Advance(time.Minute) // before any collection
			b.ReportAllocs()
			for b.Loop() {
				if n, err := sim.Dispatch(b.Context()); n != 0 || err != nil {
					b.Fatal(n, err)
				}
			}
		})
	}
}
