package testmode_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// A merchant's test over HTTP: a test site of the demo site, a parcel
// booked for the LOST scenario, and six days on the test site's clock,
// which run what falls due on the way before the answer. The deployment's
// own clock does not move.
func Example() {
	clock := deliverykit.NewManualClock(start)
	cfg := config.Demo() // its sites are in test mode
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	client := httpapi.NewInProcessClient(svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: slog.New(slog.DiscardHandler)}))
	call := func(path, key string, body any, out any) {
		req, _ := http.NewRequest("GET", "http://shop.test"+path, nil)
		if body != nil {
			b, _ := json.Marshal(body)
			req, _ = http.NewRequest("POST", "http://shop.test"+path, bytes.NewReader(b))
		}
		req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(key)))
		resp, err := client.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil || resp.StatusCode != 200 {
			panic(fmt.Sprint(path, resp.StatusCode, err))
		}
	}

	var site struct {
		APIKey string `json:"api_key"`
	}
	call("/v1/test/sites", "demo-key", struct{}{}, &site)
	call("/v1/som/shipments.createAndBook", site.APIKey, bookingOf(1, "LOST", "shipment").shipment, &struct{}{})
	var advanced struct {
		Ran struct {
			CarrierEvents int `json:"carrier_events"`
		} `json:"ran"`
	}
	call("/v1/test/clock:advance", site.APIKey, map[string]string{"duration": "144h"}, &advanced)
	var orders struct {
		Orders []struct {
			Parcels []struct {
				Exceptions []struct {
					Status string `json:"status"`
				} `json:"exceptions"`
			} `json:"parcels"`
		} `json:"orders"`
	}
	call("/v1/delivery_tracking/orders?external_id=SO-1-LOST", site.APIKey, nil, &orders)
	fmt.Println("carrier events:", advanced.Ran.CarrierEvents)
	fmt.Println("exception:", orders.Orders[0].Parcels[0].Exceptions[0].Status)
	fmt.Println("the deployment's clock:", clock.Now().Equal(start))
	// Output:
	// carrier events: 3
	// exception: LOST
	// the deployment's clock: true
}
