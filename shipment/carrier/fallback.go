package carrier

import (
	"fmt"

	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
)

// NewFallback is the carrier that books every product no integration
// books: the simulator with sim (on producers, the store whose commits
// deliver their events at once, so the steps it reports travel as soon as
// they are written), else the demo carrier on store. The simulator is
// returned too, nil without sim: run it so that parcels move.
func NewFallback(store, producers storage.Store, sim *SimulatorOptions) (shipment.Carrier, *Simulator, error) {
	if sim == nil {
		demo, err := NewDemo(store, DemoOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("demo carrier: %w", err)
		}
		return demo, nil, nil
	}
	s, err := NewSimulator(producers, *sim)
	if err != nil {
		return nil, nil, fmt.Errorf("carrier simulator: %w", err)
	}
	return s, s, nil
}
