package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// GET /openapi lists the OpenAPI documents the handler serves; a browser
// shows them at /openapi/reference.
func Example_openAPIIndex() {
	cfg := config.Demo()
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring()})

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi", nil))
	var index struct {
		Documents []struct{ Name, Version, Path string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &index); err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range index.Documents {
		fmt.Printf("%-17s %-7s %s\n", d.Name, d.Version, d.Path)
	}
	// Output:
	// tracking          1.0     /v1/delivery_tracking/_/openapi.json
	// checkout          1.0     /v1/siw/_/swagger.json
	// delivery_checkout 1.0     /v1/delivery_checkout/_/swagger.json
	// session           v1alpha /delivery/openapi.json
	// returns           1.0     /returns/openapi.json
	// shipment          1.0     /v1/som/openapi.json
	// test              1.0     /v1/test/openapi.json
	// webhooks          1.0     /v1/webhooks/openapi.json
}
