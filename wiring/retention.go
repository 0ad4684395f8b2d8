package wiring

import (
	"cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
)

// newSweeper is the retention sweeper of the areas that delete records.
func newSweeper(s *Services, opts Options) *retention.Sweeper {
	ro := opts.Retention
	ro.Clock, ro.Logger = cmp.Or[deliverykit.Clock](ro.Clock, opts.Clock), cmp.Or(ro.Logger, opts.Logger)
	return retention.NewSweeper([]retention.Area{
		{Name: "checkout", Sweep: s.Checkout},
		{Name: "session", Sweep: s.Session},
		{Name: "outbox", Sweep: s.Outbox},
	}, ro)
}
