package shipment_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// oneWarehouse receives site-a's return parcels.
type oneWarehouse struct{}

var warehouse = shipment.Receiver{Name: "Demo Outdoor Store",
	Address: &shipment.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm", Country: "SE"}}

func (oneWarehouse) ReturnReceiver(site string) (shipment.Receiver, bool) {
	return warehouse, site == "site-a"
}

func returnRequested(t *testing.T, site, returnID, product string) event.Event {
	t.Helper()
	ev, err := event.New("evt_r"+returnID, site, returnID, t0, event.ReturnShipmentRequested{
		ReturnID: returnID, ShipmentExternalID: "return-" + returnID, OrderExternalID: "SO-1", ProductRef: product,
		Sender:        deliverykit.Contact{Name: "Łukasz Żółć", Email: "lukasz@example.com"},
		SenderAddress: &deliverykit.Address{AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 51", City: "Stockholm", Country: "SE"},
		RequestedAt:   t0,
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestHandleReturnRequested: a requested return parcel is booked once as
// a RETURN shipment to the site's return receiver, and its parcel.booked
// names the outbound order (so tracking tracks it there) and the
// shipment's external id (so returns knows it); requests that can never
// be booked are InvalidArgument, a carrier failure is returned so that
// the outbox retries it.
func TestHandleReturnRequested(t *testing.T) {
	tests := []struct {
		name       string
		site       string
		product    string
		addresses  shipment.ReturnAddresses
		failBook   bool
		deliveries int // of the request
		wantKind   deliverykit.Kind
		wantBooked int
	}{
		{name: "booked", site: "site-a", product: "np-home", addresses: oneWarehouse{}, deliveries: 1, wantBooked: 1},
		{name: "delivered again", site: "site-a", product: "np-home", addresses: oneWarehouse{}, deliveries: 3, wantBooked: 1},
		{name: "carrier down, then retried", site: "site-a", product: "np-home", addresses: oneWarehouse{}, failBook: true, deliveries: 2, wantBooked: 1},
		{name: "no return receiver for the site", site: "site-b", product: "np-home", addresses: oneWarehouse{}, deliveries: 1, wantKind: deliverykit.KindInvalidArgument},
		{name: "no return addresses at all", site: "site-a", product: "np-home", deliveries: 1, wantKind: deliverykit.KindInvalidArgument},
		{name: "a product the site does not offer", site: "site-a", product: "np-nope", addresses: oneWarehouse{}, deliveries: 1, wantKind: deliverykit.KindInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := memory.New()
			demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
			if err != nil {
				t.Fatal(err)
			}
			spy := &spyCarrier{Demo: demo}
			if tc.failBook {
				spy.failBookAt = 1
			}
			svc, err := shipment.New(store, shipment.Options{Products: testProducts, Carriers: map[string]shipment.Carrier{"north": spy},
				ReturnAddresses: tc.addresses, Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{}})
			if err != nil {
				t.Fatal(err)
			}
			f := &fixture{svc: svc, store: store, carrier: spy}
			var errs []deliverykit.Kind
			for range tc.deliveries {
				err := svc.HandleReturnRequested(t.Context(), returnRequested(t, tc.site, "7", tc.product))
				if err != nil {
					errs = append(errs, deliverykit.KindOf(err))
				}
			}
			last := deliverykit.Kind(0)
			if len(errs) > 0 && (!tc.failBook || len(errs) > 1) {
				last = errs[len(errs)-1]
			}
			if last != tc.wantKind {
				t.Errorf("errors %v, want the last %v", errs, tc.wantKind)
			}
			booked := f.booked(t)
			if len(booked) != tc.wantBooked {
				t.Fatalf("%d parcels booked, want %d", len(booked), tc.wantBooked)
			}
			if tc.wantBooked == 0 {
				return
			}
			p := booked[0]
			want := event.ParcelBooked{ShipmentID: p.ShipmentID, DeliveryID: p.ShipmentID + "-P1-D1", OrderExternalID: "SO-1", Reference: "SO-1",
				TrackingNumber: p.TrackingNumber, ProductRef: "np-home", Direction: "RETURN", DeliveryType: "DELIVERY",
				Sender:        deliverykit.Contact{Name: "Łukasz Żółć", Email: "lukasz@example.com"},
				SenderAddress: &deliverykit.Address{AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 51", City: "Stockholm", Country: "SE"},
				Receiver:      deliverykit.Contact{Name: "Demo Outdoor Store"}, ReceiverAddress: warehouse.Address,
				BookedAt: t0, ShipmentExternalID: "return-7", CarrierName: "North Parcel"}
			if diff := cmp.Diff(want, p); diff != "" || p.TrackingNumber == "" {
				t.Errorf("parcel.booked (-want +got):\n%s", diff)
			}
			sh, err := svc.Get(t.Context(), tc.site, shipment.GetShipmentQuery{ExternalID: "return-7"})
			if err != nil || sh.DirectionType != shipment.DirectionReturn || sh.Attributes[shipment.AttributeOrderExternalID] != "SO-1" ||
				sh.Parcels[0].Weight != shipment.ReturnParcelGrams {
				t.Errorf("shipment %+v, %v", sh, err)
			}
			pdf, err := svc.LabelPDF(t.Context(), tc.site, p.TrackingNumber)
			if err != nil || len(pdf) < 4 || string(pdf[:4]) != "%PDF" {
				t.Errorf("label %.10q, %v", pdf, err)
			}
		})
	}
}

// TestCatalogReturnReceiver: a site's return parcels go to its first
// warehouse, named as the shop presents itself.
func TestCatalogReturnReceiver(t *testing.T) {
	c := shipment.CatalogProducts(config.Demo().Catalogs())
	r, ok := c.ReturnReceiver("demo-site")
	if !ok || r.Name != "Demo Outdoor Store" || r.Address == nil || r.Address.City != "Stockholm" || r.Address.Coordinates == nil {
		t.Errorf("demo-site: %+v %v", r, ok)
	}
	if _, ok := c.ReturnReceiver("nope"); ok {
		t.Error("a receiver for an unknown site")
	}
}
