package checkout

// Writes testdata/schema1 from the code of main as it is before stored
// records got a schema of their own. Run once, by hand:
//
//	go test ./checkout -run TestDumpSchema1 -dump-schema1

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

var dumpSchema1 = flag.Bool("dump-schema1", false, "write testdata/schema1 from today's code")

// richRequest sets every field a create request stores.
func richRequest() CreateRequest {
	ship := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	return CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE", "en-GB"},
		Cart: &Cart{CartID: "cart-1", TotalValue: 45000, TotalDiscount: 500, PreOrder: true, Vouchers: []string{"Welcome10"}, Voucher: "FREESHIP",
			Items: []CartItem{
				{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 40000, Discount: 500, Image: "https://shop.example/tent.png",
					Weight: 2500, Dimensions: &Dimensions{Height: 200, Length: 600, Width: 300}, ShippingDate: &ship},
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

func TestDumpSchema1(t *testing.T) {
	if !*dumpSchema1 {
		t.Skip("run with -dump-schema1")
	}
	dir := "testdata/schema1"
	write := func(name string, v []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), v, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stored := func(f *fixture, id string) []byte {
		var b []byte
		if err := f.store.View(ctx, func(tx storage.Tx) error {
			rec, err := tx.Get(sessions.Name, storage.Key("demo-site", id))
			b = rec.Value
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return b
	}
	view := func(name string, v any) {
		out, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		write(name, append(out, '\n'))
	}

	f := newFixture(t)
	// ACTIVE, with the customer's choice and an addon.
	active, err := f.svc.Create(ctx, "demo-site", richRequest())
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	if _, err := f.svc.Select(ctx, active.Token, SelectRequest{OptionID: "home/north-parcel-home", AddonIDs: []string{"carry-in"}}); err != nil {
		t.Fatal(err)
	}
	write("active.json", stored(f, active.Session.ID))

	// COMPLETE, without a choice.
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
	write("complete.json", stored(f, done.Session.ID))

	// A session created from the completed one's order.
	clone, err := f.svc.CreateFromOrder(ctx, "demo-site", CreateFromOrderRequest{TosID: completed.TosID, ExternalID: "web-1003", Locales: []string{"en-GB"}})
	if err != nil {
		t.Fatal(err)
	}
	write("clone.json", stored(f, clone.Session.ID))

	// The first record format: the options stored in the record.
	if err := f.store.Update(ctx, func(tx storage.Tx) error {
		key := storage.Key("demo-site", active.Session.ID)
		it, err := sessions.Get(tx, key)
		if err != nil {
			return err
		}
		rec := it.Value
		if err := f.svc.restoreOptions("demo-site", &rec); err != nil {
			return err
		}
		rec.StoredOptions, rec.OptionsInput = rec.Options, nil
		rec.ID = "siw_legacy"
		_, err = sessions.Put(tx, storage.Key("demo-site", rec.ID), rec, storage.MustNotExist())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	write("legacy-options.json", stored(f, "siw_legacy"))

	// Each record read back from a store of its own: the views to compare
	// with. The ACTIVE ones are then completed.
	for _, name := range []string{"active", "complete", "clone", "legacy-options"} {
		raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
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
		for range 20 { // ids the stored records use are taken
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
		got, err := f.svc.Get(ctx, "demo-site", head.ID)
		if err != nil {
			t.Fatal(err)
		}
		view(name+".view.json", got)
		w, err := f.svc.WidgetState(ctx, head.WidgetToken)
		if err != nil {
			t.Fatal(err)
		}
		view(name+".widget.view.json", w)
		if name == "complete" {
			sums, err := f.svc.Summaries(ctx, "demo-site", head.TosID)
			if err != nil {
				t.Fatal(err)
			}
			view(name+".summaries.view.json", sums)
			continue
		}
		res, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: head.ID, ExternalID: "web-2000"})
		if err != nil {
			t.Fatal(err)
		}
		view(name+".complete.view.json", res)
		view(name+".orders.view.json", f.orders)
	}
}
