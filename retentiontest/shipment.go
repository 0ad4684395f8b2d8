package retentiontest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
)

// shipmentColls are the collections the shipment area keeps: the records,
// then every index.
var shipmentColls = []string{"shipment.shipments", "shipment.expiry", "shipment.by_external_id", "shipment.by_tracking_number", "shipment.pending"}

func newShipments(t *testing.T, store storage.Store, clock deliverykit.Clock) *shipment.Service {
	t.Helper()
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := shipment.New(store, shipment.Options{
		Products: shipment.StaticProducts{"np-home": {Ref: "np-home", CarrierID: "north", CarrierName: "North Parcel", Name: "Home Delivery",
			DeliveryType: shipment.DeliveryDelivery}},
		Carriers: map[string]shipment.Carrier{"north": demo},
		Clock:    clock, IDs: &deliverykit.SequentialIDs{}, Retention: 10 * day,
	})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func shipmentRequest(ext string) shipment.CreateShipmentRequest {
	return shipment.CreateShipmentRequest{ExternalID: ext,
		Sender: &shipment.Sender{Name: "Warehouse", Address: &shipment.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62",
			City: "Stockholm", Country: "SE"}},
		Receiver: &shipment.Receiver{Name: "Anna", Address: &shipment.Address{AddressLines: []string{"Götgatan 45"}, PostalCode: "118 26",
			City: "Stockholm", Country: "SE"}},
		Parcels: []shipment.ParcelInput{{Weight: 1000, Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "np-home"}}}}}
}

// testShipment: shipments go ten days after their last change, with their
// external id and tracking number entries; one booked later stays until
// its own time, and nothing is left dangling.
func testShipment(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	svc := newShipments(t, store, clock)
	if _, err := svc.Create(ctx, site, shipmentRequest("quiet")); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateAndBook(ctx, site, shipmentRequest("booked")); err != nil {
		t.Fatal(err)
	}
	late, err := svc.Create(ctx, site, shipmentRequest("late"))
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(start.Add(5 * day))
	booked, err := svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: late.ID})
	if err != nil {
		t.Fatal(err)
	}
	tn := booked.Parcels[0].Deliveries[0].TrackingNumber
	for _, tt := range []struct {
		at   time.Time
		want int
	}{
		{start.Add(10*day - time.Minute), 0},
		{start.Add(10 * day), 2},
		{start.Add(15*day - time.Minute), 0},
	} {
		if n := sweep(t, svc, tt.at); n != tt.want {
			t.Errorf("sweep at %s deleted %d, want %d", tt.at, n, tt.want)
		}
	}
	want := map[string][]string{
		"shipment.shipments":          {storage.Key(site, late.ID)},
		"shipment.by_external_id":     {storage.Key(site, "late")},
		"shipment.by_tracking_number": {storage.Key(site, tn)},
	}
	for coll, keys := range want {
		if diff := cmp.Diff(keys, scanKeys(t, store, coll)); diff != "" {
			t.Errorf("%s after the first sweeps (-want +got):\n%s", coll, diff)
		}
	}
	if n := len(scanKeys(t, store, "shipment.expiry")); n != 1 {
		t.Errorf("shipment.expiry has %d entries, want the late shipment's", n)
	}
	if n := sweep(t, svc, start.Add(15*day)); n != 1 {
		t.Errorf("last sweep deleted %d, want 1", n)
	}
	for _, coll := range shipmentColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s after every shipment was swept: %q", coll, keys)
		}
	}
}
