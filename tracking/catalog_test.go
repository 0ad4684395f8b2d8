package tracking

import (
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// testCatalog is a catalog whose carrier has a tracking page and a logo
// and whose pickup location has instructions and hours in words.
// instructions are the catalog location's pickup instructions: the
// tracking API shows the default locale's, the page its language's.
var instructions = catalog.Text{"en-US": "Ask at the tobacco counter; bring an ID.", "sv-SE": "Fråga vid tobaksdisken; ta med legitimation."}

func testCatalog() *catalog.Catalog {
	return &catalog.Catalog{
		Locales:    []string{"en-US", "sv-SE"},
		Warehouses: []catalog.Warehouse{{ID: "w1", Address: catalog.Address{Country: "SE"}, TimeZone: "Europe/Stockholm"}},
		Carriers: []catalog.Carrier{{ID: "np", Name: "North Parcel",
			TrackingURL: "https://np.example/track?n={tracking_number}&zip={postal_code}&lang={locale}",
			LogoPattern: "https://cdn.example/np/{size}.svg",
			Products: []catalog.Product{{ID: "point", Ref: "np-point", Name: catalog.Text{"en-US": "Pickup point", "sv-SE": "Ombud"}, DeliveryType: catalog.DeliveryPickup,
				TransitDays: catalog.DayRange{Min: 1, Max: 2}}}}},
		Categories: []catalog.Category{{ID: "point", DisplayName: map[string]string{"en-US": "Pickup point"}, DeliveryType: catalog.DeliveryPickup,
			Products: []string{"np-point"}, Prices: []catalog.PriceRule{{Currency: "SEK", Price: 2900}}}},
		PickupLocations: []catalog.PickupLocation{{ID: "l1", ExternalID: "PP-1", Name: "Kiosk", Carrier: "np", Type: catalog.LocationManned,
			Address:            catalog.Address{Country: "SE", PostalCode: "111 57", Coordinates: &catalog.Coordinates{Lat: 59.3, Lng: 18}},
			PickupInstructions: instructions,
			HoursText:          []string{"Closed on the last Friday of the month"}}},
	}
}

// The catalog's carrier links and pickup location texts, and a merchant's
// link per order, show on the parcels and orders.
func TestCatalogCarrierAndLocationFields(t *testing.T) {
	tests := []struct {
		name         string
		merchantLink string
		siteLink     string
		pickupID     string
		wantLinks    []TrackingLink
		wantLocation *Location
		wantCarrier  string
	}{
		{
			name: "order link and catalog location", merchantLink: "https://shop.example/orders/1", siteLink: "https://shop.example/site/{external_id}", pickupID: "PP-1",
			wantLinks: []TrackingLink{{Type: LinkServicePortal, URL: "https://portal.example/v1/delivery_tracking/_/page/tt_000003?locale=sv-SE"},
				{Type: LinkMerchantProvided, URL: "https://shop.example/orders/1"}},
			wantLocation: &Location{Address: &Address{PostalCode: "111 57", Country: "SE"}, LocationExternalID: "PP-1",
				PickupInstructions: "Ask at the tobacco counter; bring an ID.", PickupInstructionsText: instructions,
				OperationalHours: &DisplayHours{FreeText: []string{"Closed on the last Friday of the month"}}},
			wantCarrier: "https://np.example/track?n=TN+1&zip=111+57&lang=sv-SE",
		},
		{
			name: "site template, location not in the catalog", siteLink: "https://shop.example/site/{external_id}", pickupID: "PP-9",
			wantLinks: []TrackingLink{{Type: LinkServicePortal, URL: "https://portal.example/v1/delivery_tracking/_/page/tt_000003?locale=sv-SE"},
				{Type: LinkMerchantProvided, URL: "https://shop.example/site/ORD-C"}},
			wantLocation: &Location{Address: &Address{PostalCode: "111 57", Country: "SE"}, LocationExternalID: "PP-9"},
			wantCarrier:  "https://np.example/track?n=TN+1&zip=111+57&lang=sv-SE",
		},
		{
			name:      "no merchant link",
			pickupID:  "PP-1",
			wantLinks: []TrackingLink{{Type: LinkServicePortal, URL: "https://portal.example/v1/delivery_tracking/_/page/tt_000003?locale=sv-SE"}},
			wantLocation: &Location{Address: &Address{PostalCode: "111 57", Country: "SE"}, LocationExternalID: "PP-1",
				PickupInstructions: "Ask at the tobacco counter; bring an ID.", PickupInstructionsText: instructions,
				OperationalHours: &DisplayHours{FreeText: []string{"Closed on the last Friday of the month"}}},
			wantCarrier: "https://np.example/track?n=TN+1&zip=111+57&lang=sv-SE",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			cat := testCatalog()
			if err := cat.Validate(); err != nil {
				t.Fatal(err)
			}
			svc, err := New(memory.New(), Options{Products: CatalogProducts{"site-c": cat}, PortalURL: "https://portal.example",
				Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
				Sites: map[string]Site{"site-c": {Name: "Shop C", MerchantLink: tt.siteLink}}})
			if err != nil {
				t.Fatal(err)
			}
			tos, err := svc.CreateOrder(ctx, "site-c", CreateTrackingOrderRequest{ExternalID: "ORD-C", CarrierProductRef: "np-point",
				Sender: &Sender{Name: "Shop C"}, Receiver: &Receiver{Name: "Alva Berg"}, Locale: "sv-SE",
				Destination:  &Destination{Address: &Address{Country: "SE", PostalCode: "111 57"}},
				DeliveryType: OrderDeliveryPickup, MerchantTrackingLink: tt.merchantLink})
			if err != nil {
				t.Fatal(err)
			}
			err = svc.CreateParcel(ctx, "site-c", CreateParcelRequest{TosID: tos, TrackingNumber: "TN 1", CarrierProductRef: "np-point",
				DirectionType: DirectionOutbound, Receiver: &ParcelReceiver{Name: "Alva Berg", Destination: &ParcelDestination{
					Pickup: &Pickup{ID: tt.pickupID, Address: &Address{Country: "SE", PostalCode: "111 57"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := svc.Orders(ctx, "site-c", OrdersQuery{ExternalID: "ORD-C", Locale: "sv-SE"})
			if err != nil {
				t.Fatal(err)
			}
			o := res.Orders[0]
			if diff := cmp.Diff(tt.wantLinks, o.TrackingLinks.Links); diff != "" {
				t.Errorf("tracking_links (-want +got):\n%s", diff)
			}
			p := o.Parcels[0]
			got := struct{ CarrierLink, TrackingLink, Logo string }{p.CarrierLink, p.TrackingLink, p.CarrierLogoPattern}
			want := struct{ CarrierLink, TrackingLink, Logo string }{tt.wantCarrier, tt.wantCarrier, "https://cdn.example/np/{size}.svg"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("carrier fields (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLocation, p.Location); diff != "" {
				t.Errorf("location (-want +got):\n%s", diff)
			}
			parcels, err := svc.Parcels(ctx, "site-c", ParcelsQuery{ExternalID: "ORD-C"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantLocation, parcels.Parcels[0].Destination); diff != "" {
				t.Errorf("GET /parcels destination (-want +got):\n%s", diff)
			}
			if got := parcels.Parcels[0].CarrierLink; got != tt.wantCarrier {
				t.Errorf("GET /parcels carrier_link = %q, want %q", got, tt.wantCarrier)
			}
		})
	}
}

// A merchant link that is not an https URL is refused, naming the field.
func TestMerchantTrackingLinkValidated(t *testing.T) {
	f := newFixture(t)
	req := orderReq("ORD-M")
	req.MerchantTrackingLink = "javascript:alert(1)"
	_, err := f.svc.CreateOrder(t.Context(), "site-a", req)
	if diff := cmp.Diff([]string{"merchant_tracking_link httpsurl"}, fields(violations(t, err))); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

// TestCatalogSites: every named site is a tracking site, with its first
// warehouse's time zone when its catalog has one.
func TestCatalogSites(t *testing.T) {
	got := CatalogSites(map[string]string{"a": "Shop A", "b": "Shop B"}, map[string]*catalog.Catalog{"a": testCatalog(), "c": testCatalog()})
	want := map[string]Site{"a": {Name: "Shop A", TimeZone: "Europe/Stockholm"}, "b": {Name: "Shop B"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sites (-want +got):\n%s", diff)
	}
}

// TestCarrierLinkWithoutLocale: an order without a locale, read without
// one, has links without an empty "lang=": the carrier page's and the
// merchant's parameter is left out rather than sent empty.
func TestCarrierLinkWithoutLocale(t *testing.T) {
	tests := []struct {
		name, orderLocale, readLocale string
		wantCarrier, wantMerchant     string
	}{
		{"order locale", "sv-SE", "", "https://np.example/track?n=TN1&zip=111+57&lang=sv-SE", "https://shop.example/o/ORD-C"},
		{"reader's locale", "", "de-DE", "https://np.example/track?n=TN1&zip=111+57&lang=de-DE", "https://shop.example/o/ORD-C?lang=de-DE"},
		{"no locale", "", "", "https://np.example/track?n=TN1&zip=111+57", "https://shop.example/o/ORD-C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			svc, err := New(memory.New(), Options{Products: CatalogProducts{"site-c": testCatalog()}, PortalURL: "https://portal.example",
				Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
				Sites: map[string]Site{"site-c": {Name: "Shop C", MerchantLink: "https://shop.example/o/{external_id}?lang={locale}"}}})
			if err != nil {
				t.Fatal(err)
			}
			tos, err := svc.CreateOrder(ctx, "site-c", CreateTrackingOrderRequest{ExternalID: "ORD-C", CarrierProductRef: "np-point",
				Sender: &Sender{Name: "Shop C"}, Receiver: &Receiver{Name: "Alva Berg"}, Locale: tt.orderLocale,
				Destination:  &Destination{Address: &Address{Country: "SE", PostalCode: "111 57"}},
				DeliveryType: OrderDeliveryPickup})
			if err != nil {
				t.Fatal(err)
			}
			if err := svc.CreateParcel(ctx, "site-c", CreateParcelRequest{TosID: tos, TrackingNumber: "TN1", CarrierProductRef: "np-point",
				DirectionType: DirectionOutbound}); err != nil {
				t.Fatal(err)
			}
			res, err := svc.Orders(ctx, "site-c", OrdersQuery{ExternalID: "ORD-C", Locale: tt.readLocale})
			if err != nil {
				t.Fatal(err)
			}
			o := res.Orders[0]
			if diff := cmp.Diff(tt.wantCarrier, o.Parcels[0].CarrierLink); diff != "" {
				t.Errorf("carrier_link (-want +got):\n%s", diff)
			}
			var merchant string
			for _, l := range o.TrackingLinks.Links {
				if l.Type == LinkMerchantProvided {
					merchant = l.URL
				}
			}
			if diff := cmp.Diff(tt.wantMerchant, merchant); diff != "" {
				t.Errorf("merchant link (-want +got):\n%s", diff)
			}
		})
	}
}
