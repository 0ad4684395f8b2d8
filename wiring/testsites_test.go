package wiring

import (
	"log/slog"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/testmode"
)

// TestTestSitesRefundOnTheirClock: a deployment with the demo refund
// executor gives each test site one of its own, on the site's clock, and
// an advance steps it; a deployment with none gives test sites none.
func TestTestSitesRefundOnTheirClock(t *testing.T) {
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	for _, executor := range []bool{true, false} {
		var opts Options
		opts.Clock, opts.Logger = clock, slog.New(slog.DiscardHandler)
		if executor {
			d, err := returns.NewDemoRefunds(returns.DemoRefundsOptions{Delay: time.Hour, Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			opts.RefundExecutor = d
		}
		svcs, err := New(memory.New(), config.Demo(), opts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := svcs.TestSites.Create(t.Context(), "demo-site", testmode.CreateRequest{})
		if err != nil {
			t.Fatal(err)
		}
		sub, siteClock, err := svcs.TestSite(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := sub.refunds.(*returns.DemoRefunds)
		if ok != executor || ok && (d == opts.RefundExecutor || d.Clock() != deliverykit.Clock(siteClock)) {
			t.Errorf("executor %v: the test site's is %#v", executor, sub.refunds)
		}
		stepped := false
		for _, l := range sub.loops() {
			stepped = stepped || l.name == "demo refunds"
		}
		if stepped != executor {
			t.Errorf("executor %v: the test site steps demo refunds: %v", executor, stepped)
		}
	}
}
