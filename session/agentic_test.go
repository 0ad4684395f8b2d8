package session_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/session"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// optionFor returns the first option of delivery d whose carrier product
// is ref, failing the test when there is none.
func optionFor(t *testing.T, s *session.Session, d int, ref string) string {
	t.Helper()
	for _, c := range s.Deliveries[d].DeliveryCategories {
		for _, o := range c.DeliveryOptions {
			if o.Carrier.ProductID == ref {
				return o.ID
			}
		}
	}
	t.Fatalf("deliveries[%d] has no %s option", d, ref)
	return ""
}

// named gives the recipient a name, which becomes fulfillment_address.name.
func named(s *session.Session) { s.Deliveries[0].RecipientContact.Name = "Anna Svensson" }

// agenticSessions creates the sessions the golden files show, keyed by
// file name: an ACTIVE one, one COMPLETED per delivery type (home with
// the carry-in addon, pickup point, locker, mailbox, store) and one of
// two deliveries.
func agenticSessions(t *testing.T, e *env) map[string]string {
	t.Helper()
	ctx := t.Context()
	active, err := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].RecipientContact.Address.RegionCode = "AB"
	}))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"active.json": active.Name}
	complete := func(file string, mod func(*session.Session), choose func(*session.Session) []session.DeliveryChoice) {
		s, err := e.svc.Create(ctx, "demo-site", input(t, named, mod))
		if err != nil {
			t.Fatal(err)
		}
		done, err := e.svc.Complete(ctx, "demo-site", s.Name, completeReq(choose(s)...))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out[file] = done.Session.Name
	}
	one := func(ref string, addons ...string) func(*session.Session) []session.DeliveryChoice {
		return func(s *session.Session) []session.DeliveryChoice {
			return []session.DeliveryChoice{{DeliveryID: "d1", OptionID: optionFor(t, s, 0, ref), AddonIDs: addons}}
		}
	}
	same := func(*session.Session) {}
	complete("completed.json", twoDeliveries, func(s *session.Session) []session.DeliveryChoice {
		return []session.DeliveryChoice{
			{DeliveryID: "d1", OptionID: "home/north-parcel-home", AddonIDs: []string{"leave-at-door"}},
			{DeliveryID: "d2", OptionID: "mailbox/north-parcel-mailbox"},
		}
	})
	complete("home-carry-in.json", same, one("north-parcel-home", "carry-in"))
	complete("pickup.json", same, one("north-parcel-point"))
	complete("locker.json", same, one("swift-courier-locker"))
	complete("mailbox.json", same, one("north-parcel-mailbox"))
	complete("instore.json", same, one("store-collect"))
	return out
}

// checkGolden compares got, as JSON, with the golden file at path; with
// -update it rewrites the file first.
func checkGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
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
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", path, diff)
	}
}

// TestAgenticCheckoutGolden compares the agentic checkout conversion with
// the golden files of the ACP version it emits. Run with -update to
// rewrite them after a deliberate change, and review the diff.
func TestAgenticCheckoutGolden(t *testing.T) {
	e := newEnv(t)
	for file, name := range agenticSessions(t, e) {
		t.Run(file, func(t *testing.T) {
			res, err := e.svc.Convert(t.Context(), "demo-site", name, session.FormatAgenticCheckout)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "agentic", session.ACPVersion, file), res.AgenticCheckout)
		})
	}
}

// TestAgenticCheckoutAmounts checks the amounts of the chosen option:
// total is checkout's shipping price (option and chosen addons), tax the
// VAT checkout's price components carry (25 % included, rounded per
// price), subtotal the rest.
func TestAgenticCheckoutAmounts(t *testing.T) {
	e := newEnv(t)
	names := agenticSessions(t, e)
	type amounts struct{ Subtotal, Tax, Total session.Int64 }
	tests := []struct {
		file string
		want amounts
	}{
		// 7900 + carry-in 19900: VAT 1580 + 3980.
		{"home-carry-in.json", amounts{22240, 5560, 27800}},
		// 4900: VAT 980, as area C's price component.
		{"pickup.json", amounts{3920, 980, 4900}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := e.svc.Convert(t.Context(), "demo-site", names[tt.file], session.FormatAgenticCheckout)
			if err != nil {
				t.Fatal(err)
			}
			d := res.AgenticCheckout.Deliveries[0]
			var got amounts
			for _, fo := range d.FulfillmentOptions {
				if fo.ID == d.FulfillmentOptionID {
					got = amounts{fo.Subtotal, fo.Tax, fo.Total}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chosen option's amounts (-want +got):\n%s", diff)
			}
			if name := d.FulfillmentAddress.Name; name != "Anna Svensson" {
				t.Errorf("fulfillment_address.name = %q, want the recipient's", name)
			}
		})
	}
}

// TestAgenticCheckoutShape checks the rules of the mapping that the golden
// files show only by example.
func TestAgenticCheckoutShape(t *testing.T) {
	e := newEnv(t)
	s, _ := e.svc.Create(t.Context(), "demo-site", input(t))
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
