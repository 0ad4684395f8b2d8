package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// newShop serves deliverykit in process: the shop's real HTTP code runs,
// no socket is opened, the clock stands still.
func newShop(t *testing.T) *Shop {
	t.Helper()
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	engines, err := checkout.NewEngines(cfg.Catalogs(), options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Options{Keys: cfg.Keyring(), Checkout: svc, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &Shop{Client: httpapi.NewInProcessClient(h), Base: "http://deliverykit.test", APIKey: "demo-key"}
}

func TestOrderTotals(t *testing.T) {
	tests := []struct {
		name         string
		items        []Item
		wantShipping int64
	}{
		{"small cart pays the pickup price", []Item{{SKU: "tent", Name: "Tent", Quantity: 1, Price: 45000}}, 4900},
		{"above 999 kr ships free", []Item{{SKU: "tent", Name: "Tent", Quantity: 3, Price: 45000}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shop := newShop(t)
			id, snippet, err := shop.StartCheckout("cart-1", tt.items, "118 26")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(snippet, "data-deliverykit-token") {
				t.Errorf("snippet = %s", snippet)
			}
			if p, err := shop.ShippingPrice(id); err != nil || p != tt.wantShipping {
				t.Errorf("ShippingPrice = %d, %v; want %d", p, err, tt.wantShipping)
			}
			o, err := shop.PlaceOrder(id, tt.items, "anna@example.com", "Götgatan 45", "118 26", "Stockholm")
			if err != nil {
				t.Fatal(err)
			}
			if o.TosID == "" || o.ShippingPrice != tt.wantShipping || o.Total != total(tt.items)+tt.wantShipping {
				t.Errorf("order = %+v", o)
			}
			// A second attempt to place the same order is refused.
			if _, err := shop.PlaceOrder(id, tt.items, "anna@example.com", "Götgatan 45", "118 26", "Stockholm"); err == nil || !strings.Contains(err.Error(), "403") {
				t.Errorf("second PlaceOrder error = %v, want 403", err)
			}
		})
	}
}
