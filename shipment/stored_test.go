package shipment_test

import (
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/recordtest"
	"github.com/deliverykit/deliverykit/shipment"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var storedCollections = []string{"shipment.shipments", "shipment.by_external_id", "shipment.by_tracking_number", "shipment.manifests"}

// richRequest sets every field a create request stores.
func richRequest() shipment.CreateShipmentRequest {
	req := request("EXT-1", parcel("wh-leg", "np-home"), parcel("np-point"))
	req.Attributes = map[string]string{"channel": "web", "priority": "high"}
	req.Sender.Email, req.Sender.PhoneNumber = "wh@example.com", "+4681234567"
	req.Sender.Address.Coordinates = &shipment.Coordinates{Lat: 59.3, Lng: 18.1}
	req.Receiver.PhoneNumber = "+46701234567"
	a := req.Receiver.Address
	a.AddressLines, a.ApartmentNumber, a.Attn, a.BuildingName, a.CareOf = []string{"Storgatan 5"}, "1102", "Alva", "Huset", "Berg"
	a.DoorCode, a.FloorNumber, a.Name, a.POBoxID, a.Region, a.Subregion = "1234", "3", "Alva Berg", "PO-1", "Uppsala län", "Uppsala"
	req.Parcels[0].ExternalID = "PARCEL-1"
	req.Parcels[0].LineItems = append(req.Parcels[0].LineItems, shipment.LineItem{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900, Currency: "SEK", Discount: 900})
	leg := &req.Parcels[0].Deliveries[0]
	leg.DeliveryType = shipment.DeliveryInwarehouse
	leg.Receiver = &shipment.Receiver{Name: "Hub", Address: &shipment.Address{Street: "Hubvägen", StreetNumber: "2", PostalCode: "754 50", City: "Uppsala", Country: "SE"}}
	req.Parcels[0].Deliveries[1].Sender = &shipment.Sender{Name: "Hub", Address: &shipment.Address{Street: "Hubvägen", StreetNumber: "2", PostalCode: "754 50", City: "Uppsala", Country: "SE"}}
	req.Parcels[1].Deliveries[0].Pickup.LocationType = "LOCKER"
	// A declaration is optional within a customs territory, and stored
	// when given.
	req.Customs = &shipment.CustomsDeclaration{ContentsType: shipment.ContentsGift, Incoterm: shipment.IncotermDDP, InvoiceNumber: "INV-1",
		Exporter: &shipment.CustomsParty{VAT: "SE556000000001", EORI: "SE5560000000"}, Importer: &shipment.CustomsParty{VAT: "SE556000000002"},
		Items: []shipment.CustomsItem{{SKU: "MUG", HSCode: "691200", OriginCountry: "SE", NetWeight: 400}}}
	return req
}

// storeRichShipments stores, through the service, an outbound shipment
// (booked, one pickup booked, one delivery picked
// up), its return shipment and a cancelled shipment. It returns the
// tracking number whose pickup is booked.
func storeRichShipments(t *testing.T, f *fixture) string {
	t.Helper()
	out := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, richRequest()))
	f.clock.Advance(time.Minute)
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: out.ID}))
	f.clock.Advance(time.Minute)
	booked := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: out.ID}))
	tn := booked.Parcels[0].Deliveries[1].TrackingNumber
	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: tn, PickupWindow: pickupWindow(),
		Address: &shipment.Address{Street: "Lagervägen", StreetNumber: "1", PostalCode: "121 62", City: "Stockholm", Country: "SE"}, Instructions: "Gate 4"}))
	f.clock.Advance(time.Minute)
	must[*shipment.Shipment](t)(f.svc.ConfirmPickup(ctx, site, shipment.ConfirmPickupRequest{TrackingNumber: booked.Parcels[0].Deliveries[0].TrackingNumber}))
	ret := richRequest()
	ret.ExternalID, ret.DirectionType, ret.OutboundShipmentID = "EXT-1-R", shipment.DirectionReturn, out.ID
	ret.Sender, ret.Receiver = &shipment.Sender{Name: "Alva Berg", Address: ret.Receiver.Address}, &shipment.Receiver{Name: "Warehouse", Address: ret.Sender.Address}
	ret.Parcels, ret.Customs = ret.Parcels[1:], nil
	ret.Parcels[0].Deliveries[0] = shipment.DeliveryInput{CarrierProductRef: "np-home"}
	must[*shipment.Shipment](t)(f.svc.Create(ctx, site, ret))
	gone := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-3")))
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: gone.ID}))
	return tn
}

// golden decodes testdata/<path> into a value of want's type and compares
// got with it.
func golden[T any](t *testing.T, path string, got T) {
	t.Helper()
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
// (testdata/schema1/store.json, schema 1) read as that release read them,
// a repeated create with the first request's content finds its shipment,
// and booking again records the delivery that release left unrecorded.
func TestSchema1RecordsRead(t *testing.T) {
	f := newFixture(t)
	recordtest.Load(t, f.store, "testdata/schema1/store.json")
	var views []*shipment.Shipment
	for _, id := range []string{"shp_000001", "shp_000002", "shp_000003"} {
		views = append(views, must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: id})))
	}
	golden(t, "schema1/shipments.view.json", views)
	golden(t, "schema1/delivery.view.json", must[*shipment.Delivery](t)(f.svc.GetDelivery(ctx, site, "CP000000028SE")))
	recreate := richRequest()
	recreate.Customs = nil // that release had no declarations
	golden(t, "schema1/recreate.view.json", must[*shipment.Shipment](t)(f.svc.Create(ctx, site, recreate)))
	other := recreate
	other.Reference = "ORD-2002"
	if _, err := f.svc.Create(ctx, site, other); deliverykit.KindOf(err) != deliverykit.KindConflict {
		t.Errorf("create with the external id and other content: %v, want Conflict", err)
	}
	rebooked := must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: "shp_000001"}))
	// The late report gives the delivery a customer tracking link, as the
	// old release's recorder did; its form is now the link of the token
	// the event carries, where the old test recorder made one from the
	// tracking number.
	late := &rebooked.Parcels[1].Deliveries[0]
	if booked := f.booked(t); len(booked) != 1 || late.TrackingLink != "https://track.test/"+booked[0].LinkToken {
		t.Errorf("late report: link %q, events %+v", late.TrackingLink, booked)
	}
	late.TrackingLink = "https://track.test/site-1/" + late.TrackingNumber
	golden(t, "schema1/rebook.view.json", rebooked)
	// The delivery that release left unrecorded is reported now: the
	// facts the old release's recorder was given are in its event.
	type parcelFacts struct{ ShipmentID, OrderExternalID, TrackingNumber, CarrierProductRef string }
	var reported []parcelFacts
	for _, p := range f.booked(t) {
		reported = append(reported, parcelFacts{p.ShipmentID, p.OrderExternalID, p.TrackingNumber, p.ProductRef})
	}
	golden(t, "schema1/rebook.recorded.view.json", reported)
}

// Records of schema 2 (testdata/schema2/store.json, written before
// customs declarations) read: a shipment without a declaration, and a
// repeated create of its request finds it.
func TestSchema2RecordsRead(t *testing.T) {
	f := newFixture(t)
	recordtest.Load(t, f.store, "testdata/schema2/store.json")
	sh := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: "shp_000001"}))
	if sh.Customs != nil || sh.Documents != nil || sh.ExternalID != "EXT-1" || len(sh.Parcels) != 2 {
		t.Errorf("schema 2 shipment read as %+v", sh)
	}
	req := richRequest()
	req.Customs = nil
	if again := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, req)); again.ID != sh.ID {
		t.Errorf("repeated create found %s, want %s", again.ID, sh.ID)
	}
}

// Records of schema 3 (testdata/schema3/store.json, written before
// manifests) read: deliveries in no manifest, which can be manifested.
func TestSchema3RecordsRead(t *testing.T) {
	f := newFixture(t)
	recordtest.Load(t, f.store, "testdata/schema3/store.json")
	sh := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: "shp_000001"}))
	if sh.Customs == nil || sh.Parcels[0].Deliveries[1].ManifestID != "" {
		t.Errorf("schema 3 shipment read as %+v", sh)
	}
	m := must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	if m.Totals.Parcels == 0 {
		t.Error("no schema 3 delivery was manifested")
	}
}

// The stored documents are the record types' (testdata/schema4/store.json):
// changing a wire type's JSON tags changes none of their bytes, and a
// change to a record type shows here.
func TestStoredRecordsGolden(t *testing.T) {
	f := newFixture(t)
	storeRichShipments(t, f)
	must[*shipment.Manifest](t)(f.svc.CreateManifest(ctx, site, shipment.CreateManifestRequest{Carrier: "north", PickupDate: "2026-11-20"}))
	got := recordtest.Dump(t, f.store, storedCollections...)
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
