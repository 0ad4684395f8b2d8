package checkout

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/options"
)

// TestCreateViewOutlivesItsScratch: Create computes a session's options
// in pooled memory (options.Scratch) and hands the memory back once the
// view is rendered. The view must share none of it: a view rendered from
// options in a scratch reads the same after the scratch is reset and
// computes another session's options, at another address, in the same
// memory.
func TestCreateViewOutlivesItsScratch(t *testing.T) {
	f := newFixture(t)
	var scratch options.Scratch
	first := createRequest()
	rec, engine, err := f.svc.create(ctx, "demo-site", first, &scratch)
	if err != nil {
		t.Fatal(err)
	}
	view := f.svc.view(engine, rec)
	if view.Session.SelectedShippingOption == nil || view.Session.SelectedShippingOption.Location == nil {
		t.Fatalf("the first session's option has no pickup location: %+v", view.Session.SelectedShippingOption)
	}
	want, err := json.Marshal(view)
	if err != nil {
		t.Fatal(err)
	}
	firstOptions := map[*options.Option]bool{}
	for i := range rec.Options.Categories {
		for j := range rec.Options.Categories[i].Options {
			firstOptions[&rec.Options.Categories[i].Options[j]] = true
		}
	}
	scratch.Reset()

	second := createRequest()
	second.SearchAddress = &SearchAddress{PostalCode: "111 57"}
	second.Cart.TotalValue = 90000
	rec2, _, err := f.svc.create(ctx, "demo-site", second, &scratch)
	if err != nil {
		t.Fatal(err)
	}
	reused := 0
	for i := range rec2.Options.Categories {
		for j := range rec2.Options.Categories[i].Options {
			if firstOptions[&rec2.Options.Categories[i].Options[j]] {
				reused++
			}
		}
	}
	if reused == 0 {
		t.Fatal("none of the second session's options is in the first one's memory: the test proves nothing")
	}
	if rec2.Options.Preselected == view.Session.SelectedShippingOption.TimeSlot.ID {
		t.Fatalf("both sessions preselect %s: the test proves nothing", rec2.Options.Preselected)
	}
	got, err := json.Marshal(view)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("the first view changed when its scratch was reused (-before +after):\n%s", diff)
	}
}
