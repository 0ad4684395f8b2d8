package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit/internal/recordtest"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage"
)

// richInput is testdata/schema1/request.json: a session that sets every
// field a request stores.
func richInput(t *testing.T) session.Session {
	t.Helper()
	b, err := os.ReadFile("testdata/schema1/request.json")
	if err != nil {
		t.Fatal(err)
	}
	var s session.Session
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// optionOf returns the first option of the category of delivery d.
func optionOf(s *session.Session, d int, category string) string {
	for _, c := range s.Deliveries[d].DeliveryCategories {
		if c.ID == category {
			return c.DeliveryOptions[0].ID
		}
	}
	return ""
}

// storeRichSessions stores, through the service, an ACTIVE session
// patched once (sessions/000001) and a COMPLETED one of two deliveries
// with an addon and an external id (sessions/000002).
func storeRichSessions(t *testing.T, e *env) {
	t.Helper()
	ctx := t.Context()
	active, err := e.svc.Create(ctx, "demo-site", richInput(t))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(5 * time.Minute)
	in := richInput(t)
	in.Name, in.Etag = active.Name, active.Etag
	in.Deliveries[0].LineItems[1].Quantity = 3
	if _, err = e.svc.Patch(ctx, "demo-site", in); err != nil {
		t.Fatal(err)
	}
	two := richInput(t)
	d2 := richInput(t).Deliveries[0]
	d2.ID = "d2"
	two.Deliveries = append(two.Deliveries, d2)
	created, err := e.svc.Create(ctx, "demo-site", two)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Complete(ctx, "demo-site", created.Name, session.CompleteRequest{DeliveryChoices: []session.DeliveryChoice{
		{DeliveryID: "d1", OptionID: optionOf(created, 0, "home"), AddonIDs: []string{"carry-in"}, ExternalID: "order-1"},
		{DeliveryID: "d2", OptionID: optionOf(created, 1, "pickup")},
	}}); err != nil {
		t.Fatal(err)
	}
}

// golden decodes testdata/schema1/<name> into a value of got's type and
// compares.
//
// An ACTIVE session's categories are computed again from today's catalog,
// so its view shows what the catalog has gained since: with -update a
// session's view file is rewritten, and the diff must show only such
// additions. (Other files hold more than the facts compared.)
func golden[T any](t *testing.T, name string, got T) {
	t.Helper()
	view := false
	switch any(got).(type) {
	case *session.Session, *session.CompleteResponse:
		view = true
	}
	if view && *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata/schema1", name), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join("testdata/schema1", name))
	if err != nil {
		t.Fatal(err)
	}
	var want T
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	// The golden file is JSON, which writes an empty list as it writes
	// none: the two compare equal. An option's VAT rate is not on the
	// wire, so the old release's views cannot show it
	// (TestAgenticCheckoutAmounts checks it).
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(session.DeliveryOption{}, "VATRate")); diff != "" {
		t.Errorf("%s (-old release +now):\n%s", name, diff)
	}
}

// Records as earlier releases wrote them read as those releases read them:
// testdata/schema1/active.json and completed.json as the release before
// stored schemas wrote them (schema 1), legacy-categories.json as releases
// before options inputs and product references wrote an ACTIVE session.
// The ACTIVE ones complete as they did.
func TestSchema1RecordsRead(t *testing.T) {
	for _, name := range []string{"active", "completed", "legacy-categories"} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			raw, err := os.ReadFile(filepath.Join("testdata/schema1", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t)
			if err := e.store.Update(ctx, func(tx storage.Tx) error {
				_, err := rawSessions.Put(tx, storage.Key("demo-site", "000001"), raw, storage.MustNotExist())
				return err
			}); err != nil {
				t.Fatal(err)
			}
			got, err := e.svc.Get(ctx, "demo-site", "sessions/000001")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name+".view.json", got)
			if got.State != session.StateActive {
				return
			}
			done, err := e.svc.Complete(ctx, "demo-site", got.Name, session.CompleteRequest{DeliveryChoices: []session.DeliveryChoice{
				{DeliveryID: "d1", OptionID: optionOf(got, 0, "home"), AddonIDs: []string{"carry-in"}, ExternalID: "order-2"}}})
			if err != nil {
				t.Fatal(err)
			}
			if name == "active" {
				golden(t, name+".complete.view.json", done)
				// The facts the old release's recorder was given are
				// in the order's event.
				type orderFacts struct {
					TosID, ExternalID, ProductRef string
					ShippingPrice                 int64
				}
				var orders []orderFacts
				for _, o := range e.orders(t) {
					orders = append(orders, orderFacts{o.TosID, o.ExternalID, o.ProductRef, o.ShippingPrice})
				}
				golden(t, name+".orders.view.json", orders)
			}
			// Completing wrote the session in the current schema.
			if b := storedBytes(t, e, got.Name); !strings.HasPrefix(string(b), `{"schema":2,`) || strings.Contains(string(b), "CARRIER-") {
				t.Errorf("the completed session is stored as %.80s…", b)
			}
		})
	}
}

// The stored documents are the record types' (testdata/schema2/store.json):
// changing a wire type's JSON tags or its encoding changes none of their
// bytes, and a change to a record type shows here.
func TestStoredRecordsGolden(t *testing.T) {
	e := newEnv(t)
	storeRichSessions(t, e)
	got := recordtest.Dump(t, e.store, "session.sessions")
	const path = "testdata/schema2/store.json"
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("stored records (-golden +stored):\n%s", diff)
	}
}
