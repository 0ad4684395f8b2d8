package carrier_test

import (
	"testing"

	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestNewFallback: the demo carrier without simulator options, else the
// simulator, returned as both the carrier and the simulator to run.
func TestNewFallback(t *testing.T) {
	tests := []struct {
		name     string
		sim      *carrier.SimulatorOptions
		wantDemo bool
	}{
		{"demo", nil, true},
		{"simulator", &carrier.SimulatorOptions{Rates: &carrier.Rates{}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := memory.New()
			c, sim, err := carrier.NewFallback(store, store, tc.sim)
			if err != nil {
				t.Fatal(err)
			}
			_, isDemo := c.(*carrier.Demo)
			if isDemo != tc.wantDemo || (sim == nil) != tc.wantDemo || (sim != nil && c != sim) {
				t.Errorf("carrier %T, simulator %v", c, sim)
			}
		})
	}
}
