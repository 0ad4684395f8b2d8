package session_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/session"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestAgenticCheckoutGolden compares the agentic checkout conversion with
// the golden files of the ACP version it emits. Run with -update to
// rewrite them after a deliberate change, and review the diff.
func TestAgenticCheckoutGolden(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	active, err := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].RecipientContact.Address.RegionCode = "AB"
	}))
	if err != nil {
		t.Fatal(err)
	}
	twoLines, _ := e.svc.Create(ctx, "demo-site", input(t, twoDeliveries))
	done, err := e.svc.Complete(ctx, "demo-site", twoLines.Name, completeReq(
		session.DeliveryChoice{DeliveryID: "d1", OptionID: "home/north-parcel-home", AddonIDs: []string{"leave-at-door"}},
		session.DeliveryChoice{DeliveryID: "d2", OptionID: "mailbox/north-parcel-mailbox"},
	))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		name string
	}{
		{"active.json", active.Name},
		{"completed.json", done.Session.Name},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := e.svc.Convert(ctx, "demo-site", tt.name, session.FormatAgenticCheckout)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(res.AgenticCheckout, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "agentic", session.ACPVersion, tt.file)
			if *update {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			wantRaw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			var want, have any
			if err := json.Unmarshal(wantRaw, &want); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(got, &have)
			if diff := cmp.Diff(want, have); diff != "" {
				t.Errorf("%s (-golden +got):\n%s", path, diff)
			}
		})
	}
}

// TestAgenticCheckoutShape checks the rules of the mapping that the golden
// files show only by example.
func TestAgenticCheckoutShape(t *testing.T) {
	e := newEnv(t)
	s, _ := e.svc.Create(context.Background(), "demo-site", input(t))
	ac := session.ToAgenticCheckout(s)
	d := ac.Deliveries[0]
	n := 0
	for _, c := range s.Deliveries[0].DeliveryCategories {
		n += len(c.DeliveryOptions)
	}
	if len(d.FulfillmentOptions) != n {
		t.Errorf("%d fulfillment options for %d delivery options", len(d.FulfillmentOptions), n)
	}
	for _, fo := range d.FulfillmentOptions {
		if fo.Type != "shipping" || fo.Total != fo.Subtotal+fo.Tax || fo.EarliestDeliveryTime.IsZero() || fo.LatestDeliveryTime.Before(fo.EarliestDeliveryTime.Time) {
			t.Errorf("fulfillment option %+v", fo)
		}
	}
	want := &session.FulfillmentAddress{LineOne: "Götgatan 1", LineTwo: "lgh 1102", City: "Stockholm", Country: "SE", PostalCode: "118 26"}
	if diff := cmp.Diff(want, d.FulfillmentAddress); diff != "" {
		t.Errorf("fulfillment_address (-want +got):\n%s", diff)
	}
	if d.FulfillmentOptionID != s.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0].ID {
		t.Errorf("fulfillment_option_id = %q, want the preselected option", d.FulfillmentOptionID)
	}
}
