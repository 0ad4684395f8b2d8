package options

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
)

// ComputeAt with Compute's "now" and coordinates gives Compute's result,
// whatever the engine's clock reads by then, and validates like Compute.
func TestComputeAtReproducesCompute(t *testing.T) {
	site, _ := config.Demo().Site("demo-site")
	at := time.Date(2026, 11, 19, 9, 0, 0, 123, time.FixedZone("CET", 3600))
	clock := deliverykit.NewManualClock(at)
	e, err := New(site.Catalog, Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"placed", Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 45000, Items: []Item{{Quantity: 1}},
			Address: catalog.Address{Country: "SE", PostalCode: "118 26"}}},
		{"country only", Request{Currency: "SEK", Locales: []string{"en-GB"}, CartValue: 100, Address: catalog.Address{Country: "SE"}}},
		{"unknown postal code", Request{Currency: "SEK", CartValue: 100, Attributes: []string{"small"},
			Address: catalog.Address{Country: "SE", PostalCode: "999 99"}}},
		{"Germany", Request{Currency: "SEK", Locales: []string{"de-DE"}, CartValue: 90000, Items: []Item{{Quantity: 2, Weight: 500}},
			Address: catalog.Address{Country: "DE", PostalCode: "10115"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock.Set(at)
			want, err := e.Compute(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(36 * time.Hour)
			got, err := e.ComputeAt(tc.req, at, want.Coordinates)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ComputeAt (-Compute +ComputeAt):\n%s", diff)
			}
		})
	}
	for _, tc := range []struct {
		req   Request
		field string
	}{
		{Request{Locales: []string{"sv-SE", "!!"}, Address: catalog.Address{Country: "SE"}}, "locales[1]"},
		{Request{}, "address.country"},
	} {
		_, err := e.ComputeAt(tc.req, at, nil)
		var de *deliverykit.Error
		if !errors.As(err, &de) || len(de.Violations) == 0 || de.Violations[0].Field != tc.field {
			t.Errorf("ComputeAt(%+v) = %v; want a violation of %s", tc.req, err, tc.field)
		}
	}
}
