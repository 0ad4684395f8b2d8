package wiring_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// A deployment: every area on one store, its background work (Run), and
// the HTTP handler.
func ExampleNew() {
	logger := slog.New(slog.DiscardHandler)
	cfg := config.Demo()
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{PublicURL: "https://track.example.com", Logger: logger})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Retries, notifications, webhooks, simulated parcels and retention,
	// until ctx ends.
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- svcs.Run(ctx) }()
	handler := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Logger: logger})

	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest("GET", "/returns/customer/return/rt_unknown", nil))
	fmt.Println(rec.Code)
	cancel()
	fmt.Println(<-stopped)
	// Output:
	// 404
	// context canceled
}
