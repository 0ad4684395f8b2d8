package options

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/catalog"
)

// TestComputeForIn: a computation in a Scratch answers what ComputeFor
// answers; computations in one Scratch before a Reset leave each other's
// results alone, also when the Scratch has to grow; after a Reset the
// memory is reused and the next result is whole.
func TestComputeForIn(t *testing.T) {
	e := newEngine(t, thursday)
	ctx := context.Background()
	reqAt := func(postal string, attrs ...string) Request {
		return Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 10000, Attributes: attrs,
			Address: catalog.Address{Country: "SE", PostalCode: postal}, Items: []Item{{Quantity: 1, Weight: 500}}}
	}
	reqs := []Request{reqAt("111 57"), reqAt("411 05", "small"), reqAt("111 57", "small"), {Currency: "EUR", Locales: []string{"sv-SE"},
		Address: catalog.Address{Country: "SE", PostalCode: "111 57"}}}
	want := make([][]byte, len(reqs))
	for i, req := range reqs {
		res, err := e.ComputeFor(ctx, req, thursday)
		if err != nil {
			t.Fatal(err)
		}
		if want[i], err = json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	var s Scratch
	for round := range 3 {
		got := make([]*Result, len(reqs))
		for i, req := range reqs {
			res, err := e.ComputeForIn(ctx, req, thursday, &s)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = res
		}
		// Only now, every computation of the round done: none wrote
		// into another's memory.
		for i, res := range got {
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want[i]), string(b)); diff != "" {
				t.Errorf("round %d, request %d: ComputeForIn differs from ComputeFor (-want +got):\n%s", round, i, diff)
			}
		}
		if round > 0 && s.opts.Used() == 0 {
			t.Errorf("round %d: no option was taken from the scratch", round)
		}
		s.Reset() // zeroes what it handed out: internal/pieces' TestTake
		if n := s.opts.Used(); n != 0 {
			t.Fatalf("round %d: %d options still taken after Reset", round, n)
		}
	}
}
