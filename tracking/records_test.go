package tracking

import (
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/recordtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var storedCollections = []string{"tracking.orders", "tracking.orders_by_external_id", "tracking.orders_by_email", "tracking.parcels", "tracking.tokens", "tracking.order_tokens", "tracking.expiry"}

// The stored types name every stored field themselves: none is a wire type
// or reaches one.
func TestStoredTypesOwnTheirNames(t *testing.T) {
	recordtest.CheckOwnNames(t, reflect.TypeFor[storedOrder]())
	recordtest.CheckOwnNames(t, reflect.TypeFor[storedParcel]())
}

// storeAndRead stores v with store, encodes and decodes the record as the
// store does, and reads it back with load.
func storeAndRead[V, R any](t *testing.T, v V, store func(*V) R, load func(*R) (V, error)) V {
	t.Helper()
	b, err := gojson.Marshal(store(&v))
	if err != nil {
		t.Fatal(err)
	}
	var rec R
	if err := gojson.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	got, err := load(&rec)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// An order and a parcel with every field set are stored and read back
// unchanged: the conversions drop no field.
func TestRecordsRoundTrip(t *testing.T) {
	var o orderRecord
	recordtest.Fill(&o)
	if diff := cmp.Diff(o, storeAndRead(t, o, storeOrder, loadStoredOrder)); diff != "" {
		t.Errorf("order read back (-stored +read):\n%s", diff)
	}
	var p parcelRecord
	recordtest.Fill(&p)
	p.Request.Attributes = map[string]any{"k": "v"} // free JSON reads back as JSON values
	if diff := cmp.Diff(p, storeAndRead(t, p, storeParcel, loadStoredParcel)); diff != "" {
		t.Errorf("parcel read back (-stored +read):\n%s", diff)
	}
}

// Records of a schema this release does not know are an error, never a
// misread.
func TestNewerSchemaIsRefused(t *testing.T) {
	if _, err := loadStoredOrder(&storedOrder{Schema: orderSchema + 1}); err == nil {
		t.Error("an order of a newer schema was read")
	}
	if _, err := loadStoredParcel(&storedParcel{Schema: parcelSchema + 1}); err == nil {
		t.Error("a parcel of a newer schema was read")
	}
}

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

// storeRichOrder registers, through the service, an order with every
// field, an outbound parcel with steps, an estimate and alerts, and a
// return parcel. It returns the order's tos_id.
func storeRichOrder(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := t.Context()
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
	return tos
}

// golden decodes testdata/<path> into a value of got's type and compares;
// err is the error of the call that returned got.
func golden[T any](t *testing.T, path string, got T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if *update && strings.HasSuffix(path, ".view.json") && !strings.Contains(path, "observed") {
		// A view shows what the release reads from the old records: a
		// new field of the view shows here.
		out, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/"+path, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile("testdata/" + path)
	if err != nil {
		t.Fatal(err)
	}
	var want T
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	// The golden file is JSON, which writes an empty list as it writes
	// none: the two compare equal.
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s (-old release +now):\n%s", path, diff)
	}
}

// Records as the release before stored schemas wrote them
// (testdata/schema1/store.json, schema 1) read as that release read them
// three days later; registering the same order and parcel again finds
// them; a new event applies to a stored parcel as it did.
func TestSchema1RecordsRead(t *testing.T) {
	ctx := t.Context()
	f := newFixture(t)
	recordtest.Load(t, f.svc.store, "testdata/schema1/store.json")
	f.clock.Set(t0.Add(72 * time.Hour))
	byID, err := f.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "ORD-1", Locale: "sv-SE"})
	golden(t, "schema1/orders.view.json", byID, err)
	byEmail, err := f.svc.Orders(ctx, "site-a", OrdersQuery{Email: "alva@example.com"})
	golden(t, "schema1/orders-by-email.view.json", byEmail, err)
	all, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{ExternalID: "ORD-1"})
	golden(t, "schema1/parcels.view.json", all, err)
	one, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
	golden(t, "schema1/parcel.view.json", one, err)
	page, err := f.svc.OrderByToken(ctx, "tt_000003", "")
	golden(t, "schema1/page.view.json", page, err)

	if again, err := f.svc.CreateOrder(ctx, "site-a", richOrder()); err != nil || again != "tos_000001" {
		t.Errorf("the stored order registered again: %q, %v; want tos_000001", again, err)
	}
	other := richOrder()
	other.Locale = "en-GB"
	if _, err := f.svc.CreateOrder(ctx, "site-a", other); deliverykit.KindOf(err) != deliverykit.KindConflict {
		t.Errorf("the stored order's external id with other content: %v, want Conflict", err)
	}
	if err := f.svc.CreateParcel(ctx, "site-a", richParcel("tos_000001", "TN1")); err != nil {
		t.Errorf("the stored parcel registered again: %v", err)
	}
	if err := f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-22T12:00:00Z", Step: StepDeliveredToPickupPoint,
		EstimatedTime: &DateTimeRange{Start: "2026-11-22T09:00:00Z", End: "2026-11-22T18:00:00Z"}}); err != nil {
		t.Fatal(err)
	}
	after, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
	golden(t, "schema1/event.view.json", after, err)
	// The facts the old release's observer was given are in the events.
	type changeFacts struct{ TosID, ExternalID, TrackingNumber, Step, Alert, Locale, TrackingLink string }
	var changes []changeFacts
	for _, c := range f.observed {
		changes = append(changes, changeFacts{c.TosID, c.ExternalID, c.TrackingNumber, c.Step, c.Alert, c.Locale, c.TrackingLink})
	}
	golden(t, "schema1/event.observed.view.json", changes, nil)
}

// The stored documents are the record types' (testdata/schema2/store.json):
// changing a wire type's JSON tags changes none of their bytes, and a
// change to a record type shows here.
func TestStoredRecordsGolden(t *testing.T) {
	f := newFixture(t)
	storeRichOrder(t, f)
	got := recordtest.Dump(t, f.svc.store, storedCollections...)
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
