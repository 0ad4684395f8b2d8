package wiring_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// A deployment: every area on one store, the loops a server runs, and
// the HTTP handler.
func ExampleNew() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	cfg := config.Demo()
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{PublicURL: "https://track.example.com", Logger: logger})
	if err != nil {
		fmt.Println(err)
		return
	}
	go svcs.Outbox.Run(ctx, time.Second)            // retries effects that failed, until ctx ends
	go svcs.Notify.Run(ctx, 10*time.Second, logger) // sends due notifications until ctx ends
	// With Options.Simulate, also: go svcs.Simulator.Run(ctx, time.Second)
	handler := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Logger: logger})

	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest("GET", "/returns/customer/return/rt_unknown", nil))
	fmt.Println(rec.Code)
	// Output: 404
}
