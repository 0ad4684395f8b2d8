package shipment_test

// Writes testdata/schema1 from the code of main as it is before stored
// records got a schema of their own. Run once, by hand:
//
//	go test ./shipment -run TestDumpSchema1 -dump-schema1

import (
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/internal/recordtest"
	"github.com/deliverykit/deliverykit/shipment"
)

var dumpSchema1 = flag.Bool("dump-schema1", false, "write testdata/schema1 from today's code")

var schema1Collections = []string{"shipment.shipments", "shipment.by_external_id", "shipment.by_tracking_number"}

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
	return req
}

func TestDumpSchema1(t *testing.T) {
	if !*dumpSchema1 {
		t.Skip("run with -dump-schema1")
	}
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
	f.rec.failAt = 3 // one booked delivery stays unrecorded
	// An outbound shipment: booked, one pickup booked, one picked up.
	out := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, richRequest()))
	f.clock.Advance(time.Minute)
	if _, err := f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: out.ID}); err == nil {
		t.Fatal("the recorder did not fail")
	}
	f.clock.Advance(time.Minute)
	booked := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: out.ID}))
	tn := booked.Parcels[0].Deliveries[1].TrackingNumber
	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: tn, PickupWindow: pickupWindow(),
		Address: &shipment.Address{Street: "Lagervägen", StreetNumber: "1", PostalCode: "121 62", City: "Stockholm", Country: "SE"}, Instructions: "Gate 4"}))
	f.clock.Advance(time.Minute)
	must[*shipment.Shipment](t)(f.svc.ConfirmPickup(ctx, site, shipment.ConfirmPickupRequest{TrackingNumber: booked.Parcels[0].Deliveries[0].TrackingNumber}))
	// Its return shipment, created only.
	ret := richRequest()
	ret.ExternalID, ret.DirectionType, ret.OutboundShipmentID = "EXT-1-R", shipment.DirectionReturn, out.ID
	ret.Sender, ret.Receiver = &shipment.Sender{Name: "Alva Berg", Address: ret.Receiver.Address}, &shipment.Receiver{Name: "Warehouse", Address: ret.Sender.Address}
	ret.Parcels = ret.Parcels[1:]
	ret.Parcels[0].Deliveries[0] = shipment.DeliveryInput{CarrierProductRef: "np-home"}
	must[*shipment.Shipment](t)(f.svc.Create(ctx, site, ret))
	// A cancelled one.
	gone := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-3")))
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: gone.ID}))

	if err := os.WriteFile("testdata/schema1/store.json", recordtest.Dump(t, f.store, schema1Collections...), 0o644); err != nil {
		t.Fatal(err)
	}

	// The records read back from a store of their own: the views to
	// compare with.
	g := newFixture(t)
	recordtest.Load(t, g.store, "testdata/schema1/store.json")
	if a, b := recordtest.Dump(t, f.store, schema1Collections...), recordtest.Dump(t, g.store, schema1Collections...); string(a) != string(b) {
		t.Fatal("the snapshot does not load back as it was stored")
	}
	var views []*shipment.Shipment
	for _, id := range []string{"shp_000001", "shp_000002", "shp_000003"} {
		views = append(views, must[*shipment.Shipment](t)(g.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: id})))
	}
	view("shipments.view.json", views)
	view("delivery.view.json", must[*shipment.Delivery](t)(g.svc.GetDelivery(ctx, site, tn)))
	// Creating the first again is idempotent: the stored request matches.
	view("recreate.view.json", must[*shipment.Shipment](t)(g.svc.Create(ctx, site, richRequest())))
	// Booking again records the unrecorded delivery.
	view("rebook.view.json", must[*shipment.Shipment](t)(g.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: "shp_000001"})))
	view("rebook.recorded.view.json", g.rec.got)
}
