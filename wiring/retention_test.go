package wiring_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestRetentionFollowsTheConfiguration: the sweeper New builds deletes an
// expired checkout session after the configuration's grace period, not
// before.
func TestRetentionFollowsTheConfiguration(t *testing.T) {
	cfg := config.Demo()
	days := 2
	cfg.Retention = &config.Retention{ActiveSessionDays: &days}
	start := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		Retention: retention.Options{Limit: 10}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := svcs.Checkout.Create(t.Context(), "demo-site", checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.Cart{TotalValue: 1000, Items: []checkout.CartItem{{SKU: "s", Name: "S", Quantity: 1, Price: 1000}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		after time.Duration
		want  map[string]int
	}{
		{checkout.DefaultSessionTTL + 2*24*time.Hour - time.Minute, map[string]int{"checkout": 0, "session": 0, "outbox": 0, "tracking": 0, "notify": 0}},
		{checkout.DefaultSessionTTL + 2*24*time.Hour + time.Minute, map[string]int{"checkout": 1, "session": 0, "outbox": 0, "tracking": 0, "notify": 0}},
	} {
		clock.Set(start.Add(tt.after))
		got, err := svcs.Retention.SweepOnce(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("swept %v after creation (-want +got):\n%s", tt.after, diff)
		}
	}
	if _, err := svcs.Checkout.Get(t.Context(), "demo-site", v.Session.ID); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("get the swept session: %v, want NotFound", err)
	}
}
