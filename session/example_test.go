package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// Create a session for a Swedish purchase, patch it with the etag read,
// complete it with the customer's choice and convert it to the agentic
// checkout shape, all in-process with the demo catalog and a memory store.
func Example() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	site, _ := config.Demo().Site("demo-site")
	engine, err := options.New(site.Catalog, options.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	svc, err := session.New(memory.New(), session.Options{
		Engines: engines{"demo-site": engine},
		Clock:   clock,
		IDs:     &deliverykit.SequentialIDs{},
	})
	if err != nil {
		panic(err)
	}

	var in session.Session
	if err := json.Unmarshal([]byte(`{
	  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["en-US"]},
	  "deliveries": [{
	    "id": "d1",
	    "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 800, "price": "45000"}],
	    "fulfillments": [{"readiness": {"earliest_time": "2026-11-19T08:00:00Z"}}],
	    "recipient_contact": {"address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}
	  }]
	}`), &in); err != nil {
		panic(err)
	}
	s, err := svc.Create(ctx, "demo-site", in)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Name, s.State, "returns cost", s.ReturnsPromise.ReturnCost)
	for _, c := range s.Deliveries[0].DeliveryCategories {
		fmt.Printf("  %s: %d options from %d\n", c.DisplayName, len(c.DeliveryOptions), c.DeliveryOptions[0].Price)
	}

	// The cart grows past the free-shipping threshold.
	in.Name, in.Etag = s.Name, s.Etag
	in.Purchase.TotalValue = 120000
	p, err := svc.Patch(ctx, "demo-site", in)
	if err != nil {
		panic(err)
	}
	fmt.Println("patched, etag changed:", p.Etag != s.Etag, "home delivery now", p.Deliveries[0].DeliveryCategories[1].DeliveryOptions[0].Price)

	// A client still holding the first etag is refused.
	_, err = svc.Patch(ctx, "demo-site", in)
	fmt.Println("stale etag:", deliverykit.KindOf(err))

	done, err := svc.Complete(ctx, "demo-site", s.Name, session.CompleteRequest{
		Etag: p.Etag,
		DeliveryChoices: []session.DeliveryChoice{{
			DeliveryID: "d1", OptionID: "home/north-parcel-home", AddonIDs: []string{"leave-at-door"}, ExternalID: "order-1001",
		}},
	})
	if err != nil {
		panic(err)
	}
	d := done.Session.Deliveries[0]
	fmt.Println(done.Session.State, d.TosID, d.ExternalID)

	conv, err := svc.Convert(ctx, "demo-site", s.Name, session.FormatAgenticCheckout)
	if err != nil {
		panic(err)
	}
	ad := conv.AgenticCheckout.Deliveries[0]
	fmt.Println("agentic checkout", session.ACPVersion+":", len(ad.FulfillmentOptions), "options, chosen", ad.FulfillmentOptionID)
	// Output:
	// sessions/000001 ACTIVE returns cost 4900
	//   Pickup point: 8 options from 4900
	//   Home delivery: 2 options from 7900
	//   Mailbox: 1 options from 2900
	//   Collect in store: 1 options from 0
	// patched, etag changed: true home delivery now 0
	// stale etag: conflict
	// COMPLETED tos_000002 order-1001
	// agentic checkout 2025-09-29: 12 options, chosen home/north-parcel-home
}
