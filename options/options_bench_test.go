package options

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
)

// europe returns n points spread like pickup networks: dense around cities,
// sparse between them.
func europe(n int) []catalog.Coordinates {
	r := rand.New(rand.NewPCG(7, 11))
	cities := []catalog.Coordinates{{Lat: 59.33, Lng: 18.06}, {Lat: 57.70, Lng: 11.97}, {Lat: 55.60, Lng: 13.00}, {Lat: 52.52, Lng: 13.40}, {Lat: 53.55, Lng: 9.99}, {Lat: 48.14, Lng: 11.58}, {Lat: 50.11, Lng: 8.68}, {Lat: 51.23, Lng: 6.78}}
	out := make([]catalog.Coordinates, n)
	for i := range out {
		if i%5 == 0 {
			out[i] = catalog.Coordinates{Lat: 45 + r.Float64()*25, Lng: 5 + r.Float64()*25}
			continue
		}
		c := cities[r.IntN(len(cities))]
		out[i] = catalog.Coordinates{Lat: c.Lat + r.NormFloat64()*0.3, Lng: c.Lng + r.NormFloat64()*0.5}
	}
	return out
}

// BenchmarkNearest measures the nearest 10 pickup locations at growing
// network sizes; time should grow roughly with log n.
func BenchmarkNearest(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		coords := europe(n)
		ix := NewIndex(coords)
		queries := europe(1024)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ix.Nearest(queries[i%len(queries)], 10)
				i++
			}
		})
	}
}

// BenchmarkCompute is one options computation on the demo catalog for a
// Stockholm cart: four categories, pickup points with distances.
func BenchmarkCompute(b *testing.B) {
	site, _ := config.Demo().Site("demo-site")
	e, err := New(site.Catalog, Options{})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 45000,
		Items: []Item{{Quantity: 2, Weight: 400}}, Address: catalog.Address{Country: "SE", PostalCode: "118 26"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Compute(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
