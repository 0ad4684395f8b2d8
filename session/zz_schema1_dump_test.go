package session_test

// Writes testdata/schema1 from the code of main as it is before stored
// records got a schema of their own. Run once, by hand:
//
//	go test ./session -run TestDumpSchema1 -dump-schema1

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage"
)

var dumpSchema1 = flag.Bool("dump-schema1", false, "write testdata/schema1 from today's code")

func TestDumpSchema1(t *testing.T) {
	if !*dumpSchema1 {
		t.Skip("run with -dump-schema1")
	}
	ctx := t.Context()
	b, err := os.ReadFile("testdata/schema1/request.json")
	if err != nil {
		t.Fatal(err)
	}
	req := func() session.Session {
		var s session.Session
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	write := func(name string, v []byte) {
		if err := os.WriteFile(filepath.Join("testdata/schema1", name), v, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	view := func(name string, v any) {
		out, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		write(name, append(out, '\n'))
	}

	e := newEnv(t)
	// An ACTIVE session, patched once.
	active, err := e.svc.Create(ctx, "demo-site", req())
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(5 * time.Minute)
	in := req()
	in.Name, in.Etag = active.Name, active.Etag
	in.Deliveries[0].LineItems[1].Quantity = 3
	if active, err = e.svc.Patch(ctx, "demo-site", in); err != nil {
		t.Fatal(err)
	}
	write("active.json", storedBytes(t, e, active.Name))

	// A COMPLETED session of two deliveries, with an addon and an
	// external id.
	two := req()
	d2 := req().Deliveries[0]
	d2.ID = "d2"
	two.Deliveries = append(two.Deliveries, d2)
	created, err := e.svc.Create(ctx, "demo-site", two)
	if err != nil {
		t.Fatal(err)
	}
	var home, pickup string
	for _, c := range created.Deliveries[0].DeliveryCategories {
		switch c.ID {
		case "home":
			home = c.DeliveryOptions[0].ID
		case "pickup":
			pickup = c.DeliveryOptions[0].ID
		}
	}
	done, err := e.svc.Complete(ctx, "demo-site", created.Name, session.CompleteRequest{DeliveryChoices: []session.DeliveryChoice{
		{DeliveryID: "d1", OptionID: home, AddonIDs: []string{"carry-in"}, ExternalID: "order-1"},
		{DeliveryID: "d2", OptionID: pickup},
	}})
	if err != nil {
		t.Fatal(err)
	}
	write("completed.json", storedBytes(t, e, done.Session.Name))

	// A record of the releases before options inputs were stored: the
	// session with its categories, no etag, and the carrier's own product
	// id in carrier.product_id (the reference in the meta).
	legacy, err := e.svc.Get(ctx, "demo-site", active.Name)
	if err != nil {
		t.Fatal(err)
	}
	legacy.Etag = ""
	for _, c := range legacy.Deliveries[0].DeliveryCategories {
		for j := range c.DeliveryOptions {
			c.DeliveryOptions[j].Carrier.ProductID = "CARRIER-" + strings.ToUpper(c.DeliveryOptions[j].Carrier.ProductID)
		}
	}
	legacyColl := storage.Collection[session.Session]{Name: "session.sessions"}
	if err := e.store.Update(ctx, func(tx storage.Tx) error {
		_, err := legacyColl.Put(tx, storage.Key("demo-site", "legacy"), *legacy, storage.MustNotExist())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	write("legacy-categories.json", storedBytes(t, e, "sessions/legacy"))

	// Each record read back from a store of its own, as the tests of
	// today's code read them: the views to compare with. The ACTIVE one
	// is completed too.
	for _, name := range []string{"active", "completed", "legacy-categories"} {
		raw, err := os.ReadFile(filepath.Join("testdata/schema1", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t)
		id := "000001"
		if err := e.store.Update(ctx, func(tx storage.Tx) error {
			_, err := rawSessions.Put(tx, storage.Key("demo-site", id), raw, storage.MustNotExist())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		got, err := e.svc.Get(ctx, "demo-site", "sessions/"+id)
		if err != nil {
			t.Fatal(err)
		}
		view(name+".view.json", got)
		if name != "active" {
			continue
		}
		var choice string
		for _, c := range got.Deliveries[0].DeliveryCategories {
			if c.ID == "home" {
				choice = c.DeliveryOptions[0].ID
			}
		}
		res, err := e.svc.Complete(ctx, "demo-site", got.Name, session.CompleteRequest{DeliveryChoices: []session.DeliveryChoice{
			{DeliveryID: "d1", OptionID: choice, AddonIDs: []string{"carry-in"}, ExternalID: "order-2"}}})
		if err != nil {
			t.Fatal(err)
		}
		view(name+".complete.view.json", res)
		view(name+".orders.view.json", e.rec.orders)
	}
}
