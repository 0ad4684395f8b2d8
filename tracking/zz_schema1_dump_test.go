package tracking

// Writes testdata/schema1 from the code of main as it is before stored
// records got a schema of their own. Run once, by hand:
//
//	go test ./tracking -run TestDumpSchema1 -dump-schema1

import (
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/internal/recordtest"
)

var dumpSchema1 = flag.Bool("dump-schema1", false, "write testdata/schema1 from today's code")

var schema1Collections = []string{"tracking.orders", "tracking.orders_by_external_id", "tracking.orders_by_email", "tracking.parcels", "tracking.tokens"}

// richOrder sets every field an order request stores.
func richOrder() CreateTrackingOrderRequest {
	r := orderReq("ORD-1")
	r.Locale = "sv-SE"
	r.Sender.Address = &Address{Street: "Lagervägen", StreetNumber: "1", City: "Johanneshov", PostalCode: "12162", Country: "SE",
		Coordinates: &Coordinates{Lat: 59.29, Lng: 18.08}}
	r.Receiver.Address = &Address{AddressLines: []string{"Storgatan 1", "lgh 1102"}, ApartmentNumber: "1102", Attn: "Alva", BuildingName: "Huset",
		CareOf: "Berg", City: "Stockholm", Country: "SE", DoorCode: "1234", FloorNumber: "3", Name: "Alva Berg", POBoxID: "PO-1",
		PostalCode: "11122", Region: "Stockholms län", Street: "Storgatan", StreetNumber: "1", Subregion: "Stockholm"}
	r.Receiver.BillingAddress = &Address{Street: "Fakturavägen", StreetNumber: "9", City: "Solna", PostalCode: "17000", Country: "SE"}
	h := r.Destination.OperationalHours
	h.Tue, h.Wed, h.Thu, h.Fri, h.Sun = h.Mon, h.Mon, h.Mon, h.Mon, []TimeRange{{Start: "12:00:00", End: "14:00:00"}}
	r.Cart.Items[0].Image = "https://shop.example/tent.png"
	r.Cart.ShippingPrice = 4900
	r.Promises.EstimatedPreparationTime = &DateTimeRangeStrict{Start: "2026-11-20T08:00:00Z", End: "2026-11-20T12:00:00Z"}
	return r
}

// richParcel sets every field a parcel request stores.
func richParcel(tos, tn string) CreateParcelRequest {
	p := parcelReq(tos, tn)
	p.DeliveryType = DeliveryPickup
	p.Attributes = map[string]any{"fragile": true, "weight": 1250, "tags": []any{"a", "b"}, "dims": map[string]any{"l": 30.5}}
	p.LineItems = append(p.LineItems, ParcelLineItem{SKU: "MUG", Quantity: 2, Price: 9900, Currency: "SEK", Discount: 900,
		Image: "https://shop.example/mug.png", Name: "Mug", Properties: map[string]string{"color": "red", "size": "L"}, TotalPrice: 18000})
	p.Receiver.Email, p.Receiver.PhoneNumber = "alva@example.com", "+46709999999"
	p.Receiver.Destination.Address = &Address{Street: "Storgatan", StreetNumber: "1", City: "Stockholm", PostalCode: "11122", Country: "SE"}
	p.Receiver.Destination.Pickup.LocationType = PickupLocker
	p.Sender = &ParcelSender{Name: "Shop A Warehouse", Address: &Address{City: "Johanneshov", Country: "SE"}}
	return p
}

func TestDumpSchema1(t *testing.T) {
	if !*dumpSchema1 {
		t.Skip("run with -dump-schema1")
	}
	ctx := t.Context()
	view := func(name string, v any) {
		out, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/schema1/"+name, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t)
	tos, err := f.svc.CreateOrder(ctx, "site-a", richOrder())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.CreateParcel(ctx, "site-a", richParcel(tos, "TN1")); err != nil {
		t.Fatal(err)
	}
	second := parcelReq(tos, "TN2")
	second.CarrierProductRef, second.DirectionType = "nordic-box", DirectionReturn
	if err := f.svc.CreateParcel(ctx, "site-a", second); err != nil {
		t.Fatal(err)
	}
	est := &DateTimeRange{Start: "2026-11-21T10:00:00+01:00", End: "2026-11-21T14:00:00+01:00"}
	for _, ev := range []Event{
		{TrackingNumber: "TN1", Time: "2026-11-20T09:00:00Z", Step: StepPreparedByMerchant},
		{TrackingNumber: "TN1", Time: "2026-11-20T10:00:00Z", Step: StepSubmittedToCarrier, EstimatedTime: est},
		{TrackingNumber: "TN1", Time: "2026-11-20T11:00:00Z", Alert: AlertAwaitingSupplier, EstimatedTime: est},
		{TrackingNumber: "TN1", Time: "2026-11-20T12:00:00Z", Step: StepOnRoute, EstimatedTime: &DateTimeRange{Start: "2026-11-22T10:00:00Z"}},
		{TrackingNumber: "TN1", Time: "2026-11-20T12:30:00Z", Alert: AlertDeliveryAttemptFailed},
		{TrackingNumber: "TN2", Time: "2026-11-20T09:30:00Z", Step: StepReturnRequested},
	} {
		f.clock.Advance(time.Minute)
		if err := f.svc.RecordEvent(ctx, "site-a", ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("testdata/schema1/store.json", recordtest.Dump(t, f.svc.store, schema1Collections...), 0o644); err != nil {
		t.Fatal(err)
	}

	// The records read back from a store of their own, three days later:
	// the views to compare with.
	g := newFixture(t)
	recordtest.Load(t, g.svc.store, "testdata/schema1/store.json")
	if a, b := recordtest.Dump(t, f.svc.store, schema1Collections...), recordtest.Dump(t, g.svc.store, schema1Collections...); string(a) != string(b) {
		t.Fatal("the snapshot does not load back as it was stored")
	}
	g.clock.Set(t0.Add(72 * time.Hour))
	orders, err := g.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "ORD-1", Locale: "sv-SE"})
	if err != nil {
		t.Fatal(err)
	}
	view("orders.view.json", orders)
	byEmail, err := g.svc.Orders(ctx, "site-a", OrdersQuery{Email: "alva@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	view("orders-by-email.view.json", byEmail)
	parcels, err := g.svc.Parcels(ctx, "site-a", ParcelsQuery{ExternalID: "ORD-1"})
	if err != nil {
		t.Fatal(err)
	}
	view("parcels.view.json", parcels)
	one, err := g.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
	if err != nil {
		t.Fatal(err)
	}
	view("parcel.view.json", one)
	page, err := g.svc.OrderByToken(ctx, "tt_000003", "")
	if err != nil {
		t.Fatal(err)
	}
	view("page.view.json", page)
	// Registering the same order and parcel again is idempotent: the
	// stored requests match.
	again, err := g.svc.CreateOrder(ctx, "site-a", richOrder())
	if err != nil || again != tos {
		t.Fatalf("order registered again: %q, %v", again, err)
	}
	if err := g.svc.CreateParcel(ctx, "site-a", richParcel(tos, "TN1")); err != nil {
		t.Fatal(err)
	}
	// A new event on a stored parcel.
	if err := g.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-22T12:00:00Z", Step: StepDeliveredToPickupPoint,
		EstimatedTime: &DateTimeRange{Start: "2026-11-22T09:00:00Z", End: "2026-11-22T18:00:00Z"}}); err != nil {
		t.Fatal(err)
	}
	after, err := g.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
	if err != nil {
		t.Fatal(err)
	}
	view("event.view.json", after)
	view("event.observed.view.json", g.observed)
}
