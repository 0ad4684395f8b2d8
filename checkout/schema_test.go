package checkout

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/recordtest"
	"github.com/deliverykit/deliverykit/storage"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// The stored types name every stored field themselves: none is a wire or
// catalog type or reaches one.
func TestStoredTypesOwnTheirNames(t *testing.T) {
	recordtest.CheckOwnNames(t, reflect.TypeFor[storedSession]())
}

// A session with every stored field set is stored and read back
// unchanged: the conversions drop no field.
func TestSessionRecordRoundTrip(t *testing.T) {
	var want record
	recordtest.Fill(&want)
	want.Options = nil // computed from the inputs, never stored
	b, err := gojson.Marshal(storeSession(&want))
	if err != nil {
		t.Fatal(err)
	}
	var rec storedSession
	if err := gojson.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Schema != sessionSchema || rec.FirstOptions != nil {
		t.Errorf("stored schema %d with options %s, want schema %d without", rec.Schema, rec.FirstOptions, sessionSchema)
	}
	got, err := loadStoredSession(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(record{})); diff != "" {
		t.Errorf("read back (-stored +read):\n%s", diff)
	}
	if _, err := loadStoredSession(&storedSession{Schema: sessionSchema + 1}); err == nil {
		t.Error("a record of a newer schema was read")
	}
}

// richRequest sets every field a create request stores.
func richRequest() CreateRequest {
	ship := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	shipEnd := ship.Add(24*time.Hour - time.Millisecond)
	return CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE", "en-GB"},
		Cart: &Cart{CartID: "cart-1", TotalValue: 45000, TotalDiscount: 500, PreOrder: true, Vouchers: []string{"Welcome10"}, Voucher: "FREESHIP",
			Attributes: []string{"bulky"},
			ShippingDate: &ShippingDate{Start: &ship, End: &shipEnd, CategoryTags: []ShippingDateTag{
				{Name: "express", ShippingDate: &DateRange{Start: &shipEnd}}, {Name: "no-date"}}},
			Items: []CartItem{
				{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 40000, Discount: 500, Image: "https://shop.example/tent.png",
					Weight: 2500, Dimensions: &Dimensions{Height: 200, Length: 600, Width: 300}, ShippingDate: &ShippingDate{Start: &ship, End: &shipEnd}},
				{SKU: "pegs", Name: "Pegs", Quantity: 2, Price: 2500, Attributes: []string{"small"}, OutOfStock: true},
			}},
		SearchAddress: &SearchAddress{PostalCode: "118 26", Country: "SE", Region: "AB", City: "Stockholm",
			AddressLines: []string{"Götgatan 45"}, Coordinates: &Coordinates{Lat: 59.3139, Lng: 18.0727}},
		Customer: &Customer{Email: "anna@example.com", Phone: "+46701234567", Address: &CustomerAddress{
			Name: "Anna", AddressLines: []string{"Götgatan 45", "lgh 1102"}, Street: "Götgatan", StreetNumber: "45", ApartmentNumber: "1102",
			City: "Stockholm", PostalCode: "118 26", Region: "AB", Country: "SE", CareOf: "Berg", Attn: "Anna", DoorCode: "1234",
			Coordinates: &Coordinates{Lat: 59.3139, Lng: 18.0727}}},
		ExternalID: "web-1001",
		Meta:       Meta{"channel": "web"},
	}
}

// storeRichSessions stores, through the service, an ACTIVE session with
// the customer's choice and an addon (siw_000001), a COMPLETE one
// (siw_000003) and one created from its order with a snippet
// configuration (siw_000006).
func storeRichSessions(t *testing.T, f *fixture) {
	t.Helper()
	ctx := t.Context()
	active, err := f.svc.Create(ctx, "demo-site", richRequest())
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.svc.Select(ctx, active.Token, SelectRequest{OptionID: "home/north-parcel-home", AddonIDs: []string{"carry-in"}}); err != nil {
		t.Fatal(err)
	}
	req := richRequest()
	req.ExternalID = "web-1002"
	done, err := f.svc.Create(ctx, "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	completed, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: done.Session.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.CreateFromOrder(ctx, "demo-site", CreateFromOrderRequest{TosID: completed.TosID, ExternalID: "web-1003", Locales: []string{"en-GB"},
		SnippetConfiguration: &SnippetConfiguration{ContainerID: "widget-container-1", ObjectID: "widget_1"}}); err != nil {
		t.Fatal(err)
	}
}

// golden decodes testdata/schema1/<name> into a value of got's type and
// compares; err is the error of the call that returned got.
func golden[T any](t *testing.T, name string, got T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if *update {
		// Only a deliberate change of an old record's answer is
		// written: run with -update and -run naming that record.
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
	// none: the two compare equal. A snippet's markup is this release's;
	// what the record decides in it is compared (snippetFacts).
	// shipping.meta is new: earlier releases left it empty; it now
	// carries the product's and the session's meta, which the old
	// records' sessions have.
	newMeta := cmpopts.IgnoreFields(ResultShipping{}, "Meta")
	// The widget's written prices and dates are new: earlier releases
	// left the writing to the widget's script.
	newTexts := cmp.Options{cmpopts.IgnoreFields(WidgetState{}, "ShippingPriceText"),
		cmpopts.IgnoreFields(WidgetOption{}, "PriceText", "DatesText"), cmpopts.IgnoreFields(WidgetAddon{}, "PriceText")}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty(), snippetFacts, newMeta, newTexts); diff != "" {
		t.Errorf("%s (-old release +now):\n%s", name, diff)
	}
}

// snippetFacts compares html_snippet by what a session decides in it: its
// container's attributes (an old snippet without data-deliverykit-object
// defined _sw) and texts. The widget script's name is the release's, as
// the bootstrap script is, not the session's.
var snippetFacts = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".HTMLSnippet" },
	cmp.Transformer("snippetFacts", func(s string) map[string]string {
		tag, rest, _ := strings.Cut(s, ">")
		facts := map[string]string{"data-deliverykit-object": DefaultObjectID}
		for _, m := range snippetAttr.FindAllStringSubmatch(tag, -1) {
			facts[m[1]] = m[2]
		}
		delete(facts, "data-deliverykit-script")
		facts["loading"], _, _ = strings.Cut(strings.TrimPrefix(rest, `<div class="dk-skeleton" role="status" aria-busy="true">`), "<")
		_, noscript, _ := strings.Cut(rest, "<noscript>")
		facts["noscript"], _, _ = strings.Cut(noscript, "<")
		return facts
	}))

var snippetAttr = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)

// Records as earlier releases wrote them read as those releases read them:
// testdata/schema1/active.json, complete.json and clone.json as the
// release before stored schemas wrote them (schema 1), legacy-options.json
// as the first release stored a session, with its options and without
// their inputs. Each answers get and the widget as it did; the completed
// one lists its sessions, the others complete as they did, and the
// completion writes the current schema with options inputs.
func TestSchema1RecordsRead(t *testing.T) {
	for _, name := range []string{"active", "complete", "clone", "legacy-options"} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			raw, err := os.ReadFile(filepath.Join("testdata/schema1", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var head struct {
				ID          string `json:"id"`
				WidgetToken string `json:"widget_token"`
				TosID       string `json:"tos_id"`
			}
			if err := json.Unmarshal(raw, &head); err != nil {
				t.Fatal(err)
			}
			f := newFixture(t)
			for range 20 { // the ids the stored records use are taken
				f.svc.ids.NewID("")
			}
			if err := f.store.Update(ctx, func(tx storage.Tx) error {
				if _, err := tx.Put(sessions.Name, storage.Key("demo-site", head.ID), raw, storage.MustNotExist()); err != nil {
					return err
				}
				if head.TosID != "" {
					if _, err := tosIndex.Put(tx, storage.Key("demo-site", head.TosID), head.ID, storage.MustNotExist()); err != nil {
						return err
					}
				}
				_, err := tokens.Put(tx, head.WidgetToken, tokenRecord{Site: "demo-site", SessionID: head.ID}, storage.MustNotExist())
				return err
			}); err != nil {
				t.Fatal(err)
			}
			v, err := f.svc.Get(ctx, "demo-site", head.ID)
			golden(t, name+".view.json", v, err)
			w, err := f.svc.WidgetState(ctx, head.WidgetToken)
			if err == nil {
				keepOldTexts(t, name+".widget.view.json", w)
			}
			golden(t, name+".widget.view.json", w, err)
			if name == "complete" {
				sums, err := f.svc.Summaries(ctx, "demo-site", head.TosID)
				golden(t, name+".summaries.view.json", sums, err)
				return
			}
			res, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: head.ID, ExternalID: "web-2000"})
			golden(t, name+".complete.view.json", res, err)
			// The facts the old release's recorder was given are in
			// the order's event.
			type orderFacts struct {
				TosID, ExternalID, Currency, Locale string
				ShippingPrice                       int64
			}
			var orders []orderFacts
			for _, ev := range f.orders(t) {
				o, err := event.Decode[event.OrderCompleted](ev)
				if err != nil {
					t.Fatal(err)
				}
				orders = append(orders, orderFacts{o.TosID, o.ExternalID, o.Currency, o.Locale, o.ShippingPrice})
			}
			golden(t, name+".orders.view.json", orders, nil)
			var written []byte
			if err := f.store.View(ctx, func(tx storage.Tx) error {
				rec, err := tx.Get(sessions.Name, storage.Key("demo-site", head.ID))
				written = rec.Value
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if s := string(written); !strings.HasPrefix(s, fmt.Sprintf(`{"schema":%d,`, sessionSchema)) || !strings.Contains(s, `"options_input":`) || strings.Contains(s, `"options":`) {
				t.Errorf("the completed session is stored as %s", s)
			}
		})
	}
}

// The stored documents are the record types' (testdata/schema4/store.json):
// changing a wire or catalog type's JSON tags changes none of their bytes,
// and a change to a record type shows here.
func TestStoredRecordsGolden(t *testing.T) {
	f := newFixture(t)
	storeRichSessions(t, f)
	storeShopperSession(t, f)
	got := recordtest.Dump(t, f.store, sessions.Name)
	const path = "testdata/schema4/store.json"
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

// storeShopperSession stores, through the newer generation, a session
// whose shopper entered a delivery and a billing address in the widget.
func storeShopperSession(t *testing.T, f *fixture) {
	t.Helper()
	v, err := f.svc.CreateCheckout(t.Context(), "demo-site", CheckoutCreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK",
		Locales: []string{"sv-SE"}, Cart: &CheckoutCart{CartID: "cart-9", TotalValue: 45000, Items: []CheckoutItem{{SKU: "tent-2p", Quantity: 1, Price: 45000}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SaveAddresses(t.Context(), v.Token, AddressRequest{DeliveryAddress: shopperAddress(), BillingAddress: &BillingAddress{
		CompanyName: "Berg AB", FirstName: "Anna", LastName: "Berg", Street: "Sveavägen", StreetNumber: "1", PostalCode: "111 57",
		City: "Stockholm", Country: "SE", VAT: "SE556000000001", VATType: "EU"}}); err != nil {
		t.Fatal(err)
	}
}

// shopperAddress is a delivery address as a shopper fills the form in.
func shopperAddress() *DeliveryAddress {
	return &DeliveryAddress{FirstName: "Anna", LastName: "Berg", Street: "Götgatan", StreetNumber: "45", ApartmentNumber: "1102",
		PostalCode: "118 26", City: "Stockholm", Country: "SE", Email: "anna@example.com", Phone: "+46701234567", DoorCode: "1234"}
}

// Records of schema 2 (testdata/schema2/store.json, as the release before
// shopper addresses stored them) and schema 3 (before shipping dates were
// objects and snippet configurations) read as they were (their snippets
// with the default names): the upgrade changes the schema number and
// writes an item's shipping date, a timestamp, as a date starting and
// ending then; the service reads and completes them.
func TestSchema2And3RecordsRead(t *testing.T) {
	for _, schema := range []string{"schema2", "schema3"} {
		t.Run(schema, func(t *testing.T) { testOldRecordsRead(t, "testdata/"+schema+"/store.json") })
	}
}

func testOldRecordsRead(t *testing.T, path string) {
	f := newFixture(t)
	for range 20 { // the ids the stored records use are taken
		f.svc.ids.NewID("")
	}
	entries := recordtest.Load(t, f.store, path)
	for _, e := range entries {
		var old map[string]any
		if err := json.Unmarshal(e.Value, &old); err != nil {
			t.Fatal(err)
		}
		it, err := sessions.Decode(storage.Record{Key: storage.Key(e.Key...), Value: e.Value, Version: 1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := gojson.Marshal(storeSession(&it.Value))
		if err != nil {
			t.Fatal(err)
		}
		var now map[string]any
		if err := json.Unmarshal(b, &now); err != nil {
			t.Fatal(err)
		}
		old["schema"] = float64(sessionSchema)
		if cart, ok := old["cart"].(map[string]any); ok {
			items, _ := cart["items"].([]any)
			for _, it := range items {
				if it := it.(map[string]any); it["shipping_date"] != nil {
					if _, ok := it["shipping_date"].(string); !ok {
						t.Fatalf("%s: an item's shipping date is %v, not a timestamp", path, it["shipping_date"])
					}
					it["ship_date"] = map[string]any{"start": it["shipping_date"], "end": it["shipping_date"]}
					delete(it, "shipping_date")
				}
			}
		}
		if diff := cmp.Diff(old, now); diff != "" {
			t.Errorf("%v read and stored again (-old schema +now):\n%s", e.Key, diff)
		}
		v, err := f.svc.Get(t.Context(), e.Key[0], e.Key[1])
		if err != nil {
			t.Errorf("get %v: %v", e.Key, err)
		} else if !strings.HasPrefix(v.HTMLSnippet, `<div id="shipwallet-container"`) || !strings.Contains(v.HTMLSnippet, `data-deliverykit-object="_sw"`) {
			t.Errorf("get %v: the snippet does not have the default names: %s", e.Key, v.HTMLSnippet)
		}
		if _, err := f.svc.GetCheckout(t.Context(), e.Key[0], e.Key[1], ""); err != nil {
			t.Errorf("newer generation's get %v: %v", e.Key, err)
		}
	}
	if len(entries) < 3 {
		t.Fatalf("%d records in %s, want 3 or more", len(entries), path)
	}
	if _, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: "siw_000001", ExternalID: "web-3000"}); err != nil {
		t.Errorf("completing an old record: %v", err)
	}
}

// keepOldTexts drops from w the widget texts the release of the golden
// file did not have: texts are this release's, not the stored record's,
// and texts added since (the address form's) are no misread.
func keepOldTexts(t *testing.T, name string, w *WidgetState) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/schema1", name))
	if err != nil {
		t.Fatal(err)
	}
	var old WidgetState
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	for k := range w.Messages {
		if _, ok := old.Messages[k]; !ok && strings.HasPrefix(k, "widget.address.") {
			delete(w.Messages, k)
		}
	}
}
