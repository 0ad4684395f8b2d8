package shipment_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

func TestNewRequiresProductsAndCarrier(t *testing.T) {
	store := memory.New()
	demo, _ := carrier.NewDemo(store, carrier.DemoOptions{})
	for name, opts := range map[string]shipment.Options{
		"no products": {DefaultCarrier: demo},
		"no carrier":  {Products: testProducts},
	} {
		if _, err := shipment.New(store, opts); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	if _, err := shipment.New(nil, shipment.Options{Products: testProducts, DefaultCarrier: demo}); err == nil {
		t.Error("nil store: New succeeded")
	}
}

func TestCreate(t *testing.T) {
	f := newFixture(t)
	req := request("EXT-1", parcel("wh-leg", "np-point"))
	req.Attributes = map[string]string{"channel": "web"}
	got := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, req))
	want := &shipment.Shipment{
		ID: "shp_000001", SiteID: site, ExternalID: "EXT-1", State: shipment.ShipmentCreated,
		DirectionType: shipment.DirectionOutbound, Reference: "ORD-1001", Attributes: map[string]string{"channel": "web"},
		Sender: *sender(), Receiver: *receiver(),
		Parcels: []shipment.Parcel{{
			ID: "shp_000001-P1", Weight: 1250, Dimensions: &shipment.Dimensions{Length: 300, Width: 200, Height: 100},
			LineItems: req.Parcels[0].LineItems,
			Deliveries: []shipment.Delivery{
				{ID: "shp_000001-P1-D1", ShipmentID: "shp_000001", ParcelID: "shp_000001-P1", State: shipment.DeliveryCreated,
					CarrierProductRef: "wh-leg", CarrierName: "North Parcel", ProductName: "Warehouse Linehaul", DeliveryType: shipment.DeliveryInwarehouse},
				{ID: "shp_000001-P1-D2", ShipmentID: "shp_000001", ParcelID: "shp_000001-P1", State: shipment.DeliveryCreated,
					CarrierProductRef: "np-point", CarrierName: "North Parcel", ProductName: "Service Point", DeliveryType: shipment.DeliveryPickup,
					Pickup: req.Parcels[0].Deliveries[1].Pickup},
			},
		}},
		CreatedAt: t0, UpdatedAt: t0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Create (-want +got):\n%s", diff)
	}
	read := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: got.ID}))
	if diff := cmp.Diff(got, read); diff != "" {
		t.Errorf("Get after Create (-create +get):\n%s", diff)
	}
	if calls := f.carrier.Calls(); len(calls) != 0 {
		t.Errorf("Create called the carrier: %v", calls)
	}
}

func TestCreateValidation(t *testing.T) {
	type v struct{ Field, Rule string }
	cases := []struct {
		name   string
		mutate func(r *shipment.CreateShipmentRequest)
		want   []v
	}{
		{"no sender or receiver", func(r *shipment.CreateShipmentRequest) { r.Sender, r.Receiver = nil, nil },
			[]v{{"receiver", "required"}, {"sender", "required"}}},
		{"no parcels", func(r *shipment.CreateShipmentRequest) { r.Parcels = nil }, []v{{"parcels", "required"}}},
		{"zero weight and dimensions", func(r *shipment.CreateShipmentRequest) {
			r.Parcels[0].Weight = 0
			r.Parcels[0].Dimensions = &shipment.Dimensions{Length: -1}
		}, []v{{"parcels[0].dimensions.height", "gt"}, {"parcels[0].dimensions.length", "gt"}, {"parcels[0].dimensions.width", "gt"}, {"parcels[0].weight", "gt"}}},
		{"no deliveries", func(r *shipment.CreateShipmentRequest) { r.Parcels[0].Deliveries = nil }, []v{{"parcels[0].deliveries", "required"}}},
		{"unknown product", func(r *shipment.CreateShipmentRequest) { r.Parcels[0].Deliveries[0].CarrierProductRef = "bogus" },
			[]v{{"parcels[0].deliveries[0].carrier_product_ref", "known"}}},
		{"product without carrier", func(r *shipment.CreateShipmentRequest) { r.Parcels[0].Deliveries[0].CarrierProductRef = "nowhere" },
			[]v{{"parcels[0].deliveries[0].carrier_product_ref", "carrier"}}},
		{"pickup delivery without point", func(r *shipment.CreateShipmentRequest) {
			r.Parcels[0].Deliveries[0].DeliveryType = shipment.DeliveryPickup
		}, []v{{"parcels[0].deliveries[0].pickup", "required_if"}}},
		{"bad enums and codes", func(r *shipment.CreateShipmentRequest) {
			r.DirectionType = "SIDEWAYS"
			r.Parcels[0].Deliveries[0].DeliveryType = "TELEPORT"
			r.Receiver.Address.Country = "Sweden"
			r.Receiver.Email = "not-an-address"
			r.Parcels[0].LineItems[0].Currency = "kr"
			r.Parcels[0].LineItems[0].Quantity = 0
		}, []v{{"direction_type", "oneof"}, {"parcels[0].deliveries[0].delivery_type", "oneof"},
			{"parcels[0].line_items[0].currency", "iso4217"}, {"parcels[0].line_items[0].quantity", "gt"},
			{"receiver.address.country", "iso3166_1_alpha2"}, {"receiver.email", "email"}}},
		{"outbound link on an outbound shipment", func(r *shipment.CreateShipmentRequest) { r.OutboundShipmentID = "shp_x" },
			[]v{{"outbound_shipment_id", "direction"}}},
		{"coordinates out of range", func(r *shipment.CreateShipmentRequest) {
			r.Sender.Address.Coordinates = &shipment.Coordinates{Lat: 91, Lng: -181}
		}, []v{{"sender.address.coordinates.lat", "lte"}, {"sender.address.coordinates.lng", "gte"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			req := request("")
			tc.mutate(&req)
			_, err := f.svc.Create(ctx, site, req)
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("Create: %v, want invalid argument", err)
			}
			var got []v
			for _, fv := range deliverykit.ViolationsOf(err) {
				got = append(got, v{fv.Field, fv.Rule})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateIdempotentByExternalID(t *testing.T) {
	f := newFixture(t)
	first := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-1")))
	again := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-1")))
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("second Create returned another shipment (-first +again):\n%s", diff)
	}
	other := request("EXT-1")
	other.Reference = "ORD-2"
	_, err := f.svc.Create(ctx, site, other)
	if deliverykit.KindOf(err) != deliverykit.KindConflict || deliverykit.ViolationsOf(err)[0].Field != "external_id" {
		t.Errorf("Create with other content: %v, want a conflict naming external_id", err)
	}
	a := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	b := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	if a.ID == b.ID {
		t.Errorf("two creates without external_id share id %s", a.ID)
	}
}

func TestBookParcels(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-1", parcel("np-home"), parcel("np-point"))))
	f.clock.Advance(time.Hour)
	booked := must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	if booked.State != shipment.ShipmentBooked {
		t.Errorf("state %s, want BOOKED", booked.State)
	}
	wantNumbers := []string{"CP000000014SE", "CP000000028SE"}
	if diff := cmp.Diff(wantNumbers, numbers(booked)); diff != "" {
		t.Errorf("tracking numbers (-want +got):\n%s", diff)
	}
	t1 := t0.Add(time.Hour)
	d := booked.Parcels[1].Deliveries[0]
	want := shipment.Delivery{
		ID: sh.ID + "-P2-D1", ShipmentID: sh.ID, ParcelID: sh.ID + "-P2", State: shipment.DeliveryBooked,
		CarrierProductRef: "np-point", CarrierName: "North Parcel", ProductName: "Service Point", DeliveryType: shipment.DeliveryPickup,
		Pickup: d.Pickup, TrackingNumber: "CP000000028SE", TrackingLink: "https://track.test/tt_000003", // the link token the booking drew
		Label:    &shipment.Label{PDFURL: "/v1/som/labels/CP000000028SE?format=pdf", ZPLURL: "/v1/som/labels/CP000000028SE?format=zpl", RoutingCode: "SE-753"},
		BookedAt: &t1,
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("booked delivery (-want +got):\n%s", diff)
	}
	for _, n := range numbers(booked) {
		if err := carrier.CheckS10(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if diff := cmp.Diff(wantNumbers, f.numbers(t)); diff != "" {
		t.Errorf("recorded parcels (-want +got):\n%s", diff)
	}
	rp := f.booked(t)[1]
	if rp.OrderExternalID != "EXT-1" || rp.ShipmentID != sh.ID || rp.DeliveryType != string(shipment.DeliveryPickup) || rp.PickupAddress == nil ||
		rp.DeliveryID != sh.ID+"-P2-D1" || len(rp.Items) != 1 || "https://track.test/"+rp.LinkToken != d.TrackingLink {
		t.Errorf("booked parcel = %+v", rp)
	}

	// A repeated call books nothing again.
	calls := len(f.carrier.Calls())
	again := must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	if diff := cmp.Diff(booked, again); diff != "" {
		t.Errorf("repeated BookParcels changed the shipment (-first +again):\n%s", diff)
	}
	if n := len(f.carrier.Calls()); n != calls {
		t.Errorf("repeated BookParcels called the carrier: %v", f.carrier.Calls()[calls:])
	}
	if n := len(f.numbers(t)); n != 2 {
		t.Errorf("%d parcels reported booked, want 2", n)
	}
	d2 := must[*shipment.Delivery](t)(f.svc.GetDelivery(ctx, site, "CP000000028SE"))
	if diff := cmp.Diff(&want, d2); diff != "" {
		t.Errorf("GetDelivery (-want +got):\n%s", diff)
	}
}

func TestBookParcelsRetryKeepsTrackingNumbers(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("", parcel("wh-leg", "np-home"))))
	f.carrier.failBookAt = 2
	_, err := f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID})
	if !errors.Is(err, errCarrierDown) {
		t.Fatalf("BookParcels with a failing carrier: %v", err)
	}
	stored := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID}))
	if stored.State != shipment.ShipmentCreated || len(numbers(stored)[0]) != 0 {
		t.Fatalf("after a failed booking: state %s numbers %q, want CREATED without numbers", stored.State, numbers(stored))
	}
	if _, err := f.svc.GetDelivery(ctx, site, "CP000000014SE"); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("the number of the failed attempt is reachable: %v", err)
	}
	booked := must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	// The first delivery got CP000000014SE in the failed attempt; the
	// retry gets it again, and only the second delivery draws a number.
	if diff := cmp.Diff([]string{"CP000000014SE", "CP000000028SE"}, numbers(booked)); diff != "" {
		t.Errorf("numbers after retry (-want +got):\n%s", diff)
	}
}

func TestConcurrentBookParcelsAssignOneNumber(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	var wg sync.WaitGroup
	results := make([]string, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID})
			switch {
			case err == nil:
				results[i] = got.Parcels[0].Deliveries[0].TrackingNumber
			case deliverykit.KindOf(err) == deliverykit.KindConflict:
				results[i] = "conflict"
			default:
				results[i] = err.Error()
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r != "CP000000014SE" && r != "conflict" {
			t.Errorf("concurrent BookParcels: %q, want CP000000014SE or a conflict", r)
		}
	}
	final := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID}))
	if diff := cmp.Diff([]string{"CP000000014SE"}, numbers(final)); diff != "" {
		t.Errorf("final numbers (-want +got):\n%s", diff)
	}
}

func TestBookPickup(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("", parcel("np-home"), parcel("np-home"))))
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))

	// One delivery: the shipment stays BOOKED until every delivery has a pickup.
	one := must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: "CP000000014SE", PickupWindow: pickupWindow()}))
	if one.State != shipment.ShipmentBooked || cmp.Diff([]shipment.DeliveryState{"PICKUP_BOOKED", "BOOKED"}, states(one)) != "" {
		t.Errorf("after one pickup: %s %v", one.State, states(one))
	}
	all := must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{ShipmentID: sh.ID, PickupWindow: pickupWindow()}))
	if all.State != shipment.ShipmentPickupBooked {
		t.Errorf("after the shipment's pickup: %s %v", all.State, states(all))
	}
	want := &shipment.TimeSpan{Start: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff(want, all.Parcels[1].Deliveries[0].PickupWindow); diff != "" {
		t.Errorf("pickup window (-want +got):\n%s", diff)
	}
	b := must[carrier.Booking](t)(f.carrier.Lookup(ctx, "CP000000028SE"))
	if b.Pickup == nil || !b.Pickup.Start.Equal(want.Start) || b.PickupAddress == nil || b.PickupAddress.City != "Stockholm" {
		t.Errorf("the carrier was not told: %+v", b)
	}
	pickups := func() int {
		n := 0
		for _, c := range f.carrier.Calls() {
			if strings.HasPrefix(c, "pickup ") {
				n++
			}
		}
		return n
	}
	if n := pickups(); n != 2 {
		t.Errorf("%d carrier pickups, want 2 (the first delivery was already booked for the window)", n)
	}
	// The same window again changes nothing; another window is rebooked.
	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{ShipmentID: sh.ID, PickupWindow: pickupWindow()}))
	if n := pickups(); n != 2 {
		t.Errorf("a repeated pickup called the carrier (%d calls)", n)
	}
	later := &shipment.DateTimeRangeStrict{Start: "2026-11-22T09:00:00+01:00", End: "2026-11-22T12:00:00+01:00"}
	moved := must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: "CP000000014SE", PickupWindow: later}))
	if got := moved.Parcels[0].Deliveries[0].PickupWindow.Start; !got.Equal(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)) || pickups() != 3 {
		t.Errorf("rebooked window starts %v after %d carrier calls", got, pickups())
	}
}

func TestBookPickupValidation(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		name  string
		req   shipment.BookPickupRequest
		field string
	}{
		{"neither", shipment.BookPickupRequest{PickupWindow: pickupWindow()}, "tracking_number|shipment_id"},
		{"both", shipment.BookPickupRequest{TrackingNumber: "CP000000014SE", ShipmentID: "shp_1", PickupWindow: pickupWindow()}, "tracking_number|shipment_id"},
		{"no window", shipment.BookPickupRequest{ShipmentID: "shp_1"}, "pickup_window"},
		{"window backwards", shipment.BookPickupRequest{ShipmentID: "shp_1", PickupWindow: &shipment.DateTimeRangeStrict{Start: "2026-11-21T12:00:00Z", End: "2026-11-21T09:00:00Z"}}, "pickup_window.end"},
		{"window not a time", shipment.BookPickupRequest{ShipmentID: "shp_1", PickupWindow: &shipment.DateTimeRangeStrict{Start: "tomorrow", End: "2026-11-21T09:00:00Z"}}, "pickup_window.start"},
		{"bad check digit", shipment.BookPickupRequest{TrackingNumber: "CP000000015SE", PickupWindow: pickupWindow()}, "tracking_number"},
		{"not S10", shipment.BookPickupRequest{TrackingNumber: "1Z999", PickupWindow: pickupWindow()}, "tracking_number"},
	}
	for _, tc := range cases {
		_, err := f.svc.BookPickup(ctx, site, tc.req)
		vs := deliverykit.ViolationsOf(err)
		if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument || len(vs) == 0 || vs[0].Field != tc.field {
			t.Errorf("%s: %v, want invalid argument naming %s", tc.name, err, tc.field)
		}
	}
}

func TestGet(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-9")))
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	for _, q := range []shipment.GetShipmentQuery{{ID: sh.ID}, {ExternalID: "EXT-9"}, {TrackingNumber: "CP000000014SE"}} {
		got, err := f.svc.Get(ctx, site, q)
		if err != nil || got.ID != sh.ID {
			t.Errorf("Get(%+v) = %v, %v", q, got, err)
		}
	}
	for _, tc := range []struct {
		q    shipment.GetShipmentQuery
		kind deliverykit.Kind
	}{
		{shipment.GetShipmentQuery{}, deliverykit.KindInvalidArgument},
		{shipment.GetShipmentQuery{ID: sh.ID, ExternalID: "EXT-9"}, deliverykit.KindInvalidArgument},
		{shipment.GetShipmentQuery{ID: "shp_nope"}, deliverykit.KindNotFound},
		{shipment.GetShipmentQuery{ExternalID: "EXT-0"}, deliverykit.KindNotFound},
		{shipment.GetShipmentQuery{TrackingNumber: "CP000000028SE"}, deliverykit.KindNotFound},
		{shipment.GetShipmentQuery{TrackingNumber: "CP000000015SE"}, deliverykit.KindInvalidArgument},
	} {
		if _, err := f.svc.Get(ctx, site, tc.q); deliverykit.KindOf(err) != tc.kind {
			t.Errorf("Get(%+v): %v, want %s", tc.q, err, tc.kind)
		}
	}
}

func TestTenantIsolation(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("EXT-1")))
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	const other = "site-2"
	checks := map[string]error{}
	_, checks["get by id"] = f.svc.Get(ctx, other, shipment.GetShipmentQuery{ID: sh.ID})
	_, checks["get by external id"] = f.svc.Get(ctx, other, shipment.GetShipmentQuery{ExternalID: "EXT-1"})
	_, checks["get by tracking number"] = f.svc.Get(ctx, other, shipment.GetShipmentQuery{TrackingNumber: "CP000000014SE"})
	_, checks["get delivery"] = f.svc.GetDelivery(ctx, other, "CP000000014SE")
	_, checks["book"] = f.svc.BookParcels(ctx, other, shipment.ShipmentRef{ShipmentID: sh.ID})
	_, checks["pickup"] = f.svc.BookPickup(ctx, other, shipment.BookPickupRequest{TrackingNumber: "CP000000014SE", PickupWindow: pickupWindow()})
	_, checks["cancel delivery"] = f.svc.CancelDelivery(ctx, other, shipment.DeliveryRef{TrackingNumber: "CP000000014SE"})
	_, checks["cancel delivery by id"] = f.svc.CancelDelivery(ctx, other, shipment.DeliveryRef{DeliveryID: sh.Parcels[0].Deliveries[0].ID})
	_, checks["cancel"] = f.svc.CancelShipment(ctx, other, shipment.ShipmentRef{ShipmentID: sh.ID})
	_, checks["update"] = f.svc.Update(ctx, other, shipment.UpdateShipmentRequest{ShipmentID: sh.ID})
	_, checks["add parcel"] = f.svc.AddParcel(ctx, other, shipment.AddParcelRequest{ShipmentID: sh.ID, Parcel: ptr(parcel("np-home"))})
	_, checks["confirm pickup"] = f.svc.ConfirmPickup(ctx, other, shipment.ConfirmPickupRequest{TrackingNumber: "CP000000014SE"})
	_, _, checks["label"] = f.svc.Label(ctx, other, "CP000000014SE", shipment.LabelPDF)
	for name, err := range checks {
		if deliverykit.KindOf(err) != deliverykit.KindNotFound {
			t.Errorf("%s from another site: %v, want not found", name, err)
		}
	}
	// The same external id is another shipment in another site.
	mine := must[*shipment.Shipment](t)(f.svc.Create(ctx, other, request("EXT-1")))
	if mine.ID == sh.ID || mine.SiteID != other {
		t.Errorf("other site's shipment = %s of %s", mine.ID, mine.SiteID)
	}
	req := request("")
	req.SiteID = other
	if _, err := f.svc.Create(ctx, site, req); deliverykit.KindOf(err) != deliverykit.KindPermissionDenied {
		t.Errorf("site_id of another site: %v, want permission denied", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestCreateAndBook(t *testing.T) {
	f := newFixture(t)
	req := request("EXT-1", parcel("wh-leg", "np-home"))
	req.PickupWindow = pickupWindow()
	sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, req))
	if sh.State != shipment.ShipmentPickupBooked || cmp.Diff([]string{"CP000000014SE", "CP000000028SE"}, numbers(sh)) != "" {
		t.Fatalf("CreateAndBook: %s %v", sh.State, numbers(sh))
	}
	if diff := cmp.Diff([]string{"CP000000014SE", "CP000000028SE"}, f.numbers(t)); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if sh.Parcels[0].Deliveries[0].TrackingLink != "https://track.test/tt_000002" {
		t.Errorf("tracking link %q", sh.Parcels[0].Deliveries[0].TrackingLink)
	}
	// A retry with the same external id returns the same shipment and
	// books nothing new.
	calls := len(f.carrier.Calls())
	again := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, req))
	if diff := cmp.Diff(sh, again); diff != "" {
		t.Errorf("retried CreateAndBook (-first +again):\n%s", diff)
	}
	if got := f.carrier.Calls()[calls:]; len(got) != 0 {
		t.Errorf("retry called the carrier: %v", got)
	}
}

func TestCreateAndBookIsAtomic(t *testing.T) {
	for _, tc := range []struct {
		name       string
		failBookAt int
		failPickup bool
		wantCalls  []string
	}{
		{"second booking fails", 2, false, []string{
			"book site-1/shp_000001-P1-D1 CP000000014SE",
			"book-failed site-1/shp_000001-P2-D1",
			"cancel site-1/shp_000001-P1-D1 CP000000014SE",
		}},
		{"pickup fails", 0, true, []string{
			"book site-1/shp_000001-P1-D1 CP000000014SE",
			"book site-1/shp_000001-P2-D1 CP000000028SE",
			"pickup-failed CP000000014SE",
			"cancel site-1/shp_000001-P1-D1 CP000000014SE",
			"cancel site-1/shp_000001-P2-D1 CP000000028SE",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.carrier.failBookAt, f.carrier.failPickup = tc.failBookAt, tc.failPickup
			req := request("EXT-1", parcel("np-home"), parcel("np-home"))
			req.PickupWindow = pickupWindow()
			if _, err := f.svc.CreateAndBook(ctx, site, req); !errors.Is(err, errCarrierDown) {
				t.Fatalf("CreateAndBook: %v", err)
			}
			if diff := cmp.Diff(tc.wantCalls, f.carrier.Calls()); diff != "" {
				t.Errorf("carrier calls (-want +got):\n%s", diff)
			}
			if _, err := f.svc.Get(ctx, site, shipment.GetShipmentQuery{ExternalID: "EXT-1"}); deliverykit.KindOf(err) != deliverykit.KindNotFound {
				t.Errorf("after a failed CreateAndBook the shipment exists: %v", err)
			}
			if _, err := f.svc.GetDelivery(ctx, site, "CP000000014SE"); deliverykit.KindOf(err) != deliverykit.KindNotFound {
				t.Errorf("after a failed CreateAndBook the delivery exists: %v", err)
			}
			if b := must[carrier.Booking](t)(f.carrier.Lookup(ctx, "CP000000014SE")); !b.Cancelled {
				t.Errorf("the carrier booking of the failed attempt is live: %+v", b)
			}
			if n := len(f.numbers(t)); n != 0 {
				t.Errorf("%d parcels of a failed attempt were reported booked", n)
			}
			f.carrier.failBookAt, f.carrier.failPickup = 0, false
			sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, req))
			if sh.State != shipment.ShipmentPickupBooked || len(sh.Parcels) != 2 {
				t.Errorf("retry: %s with %d parcels", sh.State, len(sh.Parcels))
			}
		})
	}
}

func TestCancelDelivery(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("", parcel("np-home"), parcel("np-home"))))
	// Before booking, by id.
	c := must[*shipment.Shipment](t)(f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{DeliveryID: sh.ID + "-P2-D1"}))
	if c.State != shipment.ShipmentCreated || cmp.Diff([]shipment.DeliveryState{"CREATED", "CANCELLED"}, states(c)) != "" {
		t.Errorf("after cancelling the unbooked delivery: %s %v", c.State, states(c))
	}
	b := must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	if b.State != shipment.ShipmentBooked || cmp.Diff([]string{"CP000000014SE", ""}, numbers(b)) != "" {
		t.Errorf("booking skips a cancelled delivery: %s %v", b.State, numbers(b))
	}
	// The last live delivery cancelled: the shipment is cancelled.
	last := must[*shipment.Shipment](t)(f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: "CP000000014SE"}))
	if last.State != shipment.ShipmentCancelled || last.CancelledAt == nil {
		t.Errorf("after cancelling the last delivery: %s", last.State)
	}
	if bk := must[carrier.Booking](t)(f.carrier.Lookup(ctx, "CP000000014SE")); !bk.Cancelled {
		t.Error("the carrier was not told about the cancellation")
	}
	for _, ref := range []shipment.DeliveryRef{{}, {TrackingNumber: "CP000000014SE", DeliveryID: "x"}} {
		if _, err := f.svc.CancelDelivery(ctx, site, ref); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
			t.Errorf("CancelDelivery(%+v): %v, want invalid argument", ref, err)
		}
	}
	if _, err := f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{DeliveryID: "shp_nope-P1-D1"}); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("unknown delivery id: %v", err)
	}
}

func TestCancelShipment(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("", parcel("wh-leg", "np-home"))))
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	f.clock.Advance(time.Minute)
	c := must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	t1 := t0.Add(time.Minute)
	if c.State != shipment.ShipmentCancelled || !c.CancelledAt.Equal(t1) || cmp.Diff([]shipment.DeliveryState{"CANCELLED", "CANCELLED"}, states(c)) != "" {
		t.Errorf("after CancelShipment: %s %v", c.State, states(c))
	}
	for _, n := range numbers(c) {
		if b := must[carrier.Booking](t)(f.carrier.Lookup(ctx, n)); !b.Cancelled {
			t.Errorf("%s not cancelled at the carrier", n)
		}
	}
	// The labels are void.
	if _, _, err := f.svc.Label(ctx, site, "CP000000014SE", shipment.LabelPDF); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("label of a cancelled delivery: %v", err)
	}
	// A failing carrier leaves the shipment as it was.
	f2 := newFixture(t)
	sh2 := must[*shipment.Shipment](t)(f2.svc.Create(ctx, site, request("")))
	must[*shipment.Shipment](t)(f2.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh2.ID}))
	f2.carrier.failCancel = true
	if _, err := f2.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: sh2.ID}); err == nil {
		t.Fatal("CancelShipment with a failing carrier succeeded")
	}
	if got := must[*shipment.Shipment](t)(f2.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh2.ID})); got.State != shipment.ShipmentBooked {
		t.Errorf("after a failed cancel: %s", got.State)
	}
}

func TestUpdate(t *testing.T) {
	newName := &shipment.Receiver{Name: "Alva Berg-Lind", Address: receiver().Address}
	ref := "ORD-1002"
	attrs := map[string]string{"gift": "yes"}
	cases := []struct {
		name    string
		booked  bool
		req     shipment.UpdateShipmentRequest
		kind    deliverykit.Kind
		field   string
		receive string
	}{
		{"created: receiver", false, shipment.UpdateShipmentRequest{Receiver: newName}, 0, "", "Alva Berg-Lind"},
		{"created: reference and attributes", false, shipment.UpdateShipmentRequest{Reference: &ref, Attributes: &attrs}, 0, "", "Alva Berg"},
		{"created: invalid receiver", false, shipment.UpdateShipmentRequest{Receiver: &shipment.Receiver{Address: &shipment.Address{}}}, deliverykit.KindInvalidArgument, "receiver.name", ""},
		{"booked: attributes", true, shipment.UpdateShipmentRequest{Attributes: &attrs}, 0, "", "Alva Berg"},
		{"booked: same receiver", true, shipment.UpdateShipmentRequest{Receiver: receiver()}, 0, "", "Alva Berg"},
		{"booked: receiver", true, shipment.UpdateShipmentRequest{Receiver: newName}, deliverykit.KindFailedPrecondition, "receiver", ""},
		{"booked: reference", true, shipment.UpdateShipmentRequest{Reference: &ref}, deliverykit.KindFailedPrecondition, "reference", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
			if tc.booked {
				must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
			}
			tc.req.ShipmentID = sh.ID
			got, err := f.svc.Update(ctx, site, tc.req)
			if tc.kind != 0 || err != nil {
				vs := deliverykit.ViolationsOf(err)
				if deliverykit.KindOf(err) != tc.kind || len(vs) == 0 || vs[0].Field != tc.field {
					t.Fatalf("Update: %v, want %s naming %s", err, tc.kind, tc.field)
				}
				return
			}
			if got.Receiver.Name != tc.receive {
				t.Errorf("receiver %q, want %q", got.Receiver.Name, tc.receive)
			}
			if tc.req.Attributes != nil && cmp.Diff(attrs, got.Attributes) != "" {
				t.Errorf("attributes %v", got.Attributes)
			}
		})
	}
}

func TestAddParcel(t *testing.T) {
	f := newFixture(t)
	out := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("OUT-1")))
	retReq := shipment.CreateShipmentRequest{
		ExternalID: "RET-1", DirectionType: shipment.DirectionReturn, OutboundShipmentID: out.ID,
		Sender: &shipment.Sender{Name: "Alva Berg", Address: receiver().Address}, Receiver: &shipment.Receiver{Name: "Returns", Address: sender().Address},
		Parcels: []shipment.ParcelInput{parcel("np-point")},
	}
	ret := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, retReq))
	out = must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: out.ID}))
	if out.ReturnShipmentID != ret.ID || ret.OutboundShipmentID != out.ID {
		t.Fatalf("not connected: %q %q", out.ReturnShipmentID, ret.OutboundShipmentID)
	}
	// A second return shipment for the same outbound one is refused.
	retReq.ExternalID = "RET-2"
	if _, err := f.svc.Create(ctx, site, retReq); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("second return shipment: %v", err)
	}
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: out.ID}))

	// The outbound shipment is booked: the new parcel is booked at once;
	// the return shipment is not: its copy is only added.
	added := must[*shipment.Shipment](t)(f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: out.ID, Parcel: ptr(parcel("np-home"))}))
	if added.State != shipment.ShipmentBooked || cmp.Diff([]string{"CP000000014SE", "CP000000028SE"}, numbers(added)) != "" {
		t.Errorf("after AddParcel: %s %v", added.State, numbers(added))
	}
	if added.Parcels[1].ID != out.ID+"-P2" || added.Parcels[1].Deliveries[0].Label == nil {
		t.Errorf("added parcel %+v", added.Parcels[1])
	}
	ret = must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: ret.ID}))
	if len(ret.Parcels) != 2 || ret.Parcels[1].Deliveries[0].CarrierProductRef != "np-point" || ret.Parcels[1].Deliveries[0].State != shipment.DeliveryCreated || ret.Parcels[1].Weight != 1250 {
		t.Errorf("return shipment after AddParcel: %+v", ret.Parcels)
	}
	// An explicit return parcel; the return shipment booked: booked too.
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: ret.ID}))
	rp := parcel("np-home")
	rp.Weight = 900
	must[*shipment.Shipment](t)(f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: out.ID, Parcel: ptr(parcel("np-home")), ReturnParcel: &rp}))
	ret = must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: ret.ID}))
	if len(ret.Parcels) != 3 || ret.Parcels[2].Weight != 900 || ret.Parcels[2].Deliveries[0].State != shipment.DeliveryBooked {
		t.Errorf("return shipment after the second AddParcel: %+v", ret.Parcels[2])
	}
	// A return shipment past booking blocks adding (both change together).
	must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{ShipmentID: ret.ID, PickupWindow: pickupWindow()}))
	_, err := f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: out.ID, Parcel: ptr(parcel("np-home"))})
	if deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition || !strings.Contains(err.Error(), ret.ID+" is PICKUP_BOOKED") {
		t.Errorf("AddParcel with the return shipment PICKUP_BOOKED: %v", err)
	}
	if _, err := f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: out.ID, Parcel: &shipment.ParcelInput{}}); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("AddParcel with an empty parcel: %v", err)
	}
}

// TestChainedDeliveryLegs books a warehouse leg and a last mile with their
// own endpoints: each leg's label and tracking registration use the leg's
// sender and receiver.
func TestChainedDeliveryLegs(t *testing.T) {
	f := newFixture(t)
	hub := &shipment.Address{Street: "Hamnvägen", StreetNumber: "3", PostalCode: "415 05", City: "Göteborg", Country: "SE"}
	p := parcel("wh-leg", "np-home")
	p.Deliveries[0].Receiver = &shipment.Receiver{Name: "Hub West", Address: hub}
	p.Deliveries[1].Sender = &shipment.Sender{Name: "Hub West", Address: hub}
	sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("", p)))
	legs := sh.Parcels[0].Deliveries
	if legs[0].DeliveryType != shipment.DeliveryInwarehouse || legs[0].Label.RoutingCode != "SE-415" || legs[1].Label.RoutingCode != "SE-753" {
		t.Errorf("legs: %+v / %+v", legs[0], legs[1])
	}
	got := f.booked(t)
	if len(got) != 2 || got[0].Receiver.Name != "Hub West" || got[0].Sender.Name != "Demo Outdoor Warehouse" ||
		got[1].Sender.Name != "Hub West" || got[1].Receiver.Name != "Alva Berg" || got[1].DeliveryID != legs[1].ID {
		t.Errorf("booked legs: %+v", got)
	}
	zpl, _, err := f.svc.Label(ctx, site, legs[0].TrackingNumber, shipment.LabelZPL)
	if err != nil || !strings.Contains(string(zpl), "^FDHub West^FS") || !strings.Contains(string(zpl), "^FD415 05 Göteborg^FS") {
		t.Errorf("warehouse leg label: %v\n%s", err, zpl)
	}
}

func TestReturnShipmentLinkRules(t *testing.T) {
	f := newFixture(t)
	out := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	ret := func(outbound string) shipment.CreateShipmentRequest {
		r := request("")
		r.DirectionType, r.OutboundShipmentID = shipment.DirectionReturn, outbound
		return r
	}
	if _, err := f.svc.Create(ctx, site, ret("shp_nope")); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("unknown outbound shipment: %v", err)
	}
	r := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, ret(out.ID)))
	if _, err := f.svc.Create(ctx, site, ret(r.ID)); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("a return shipment as outbound: %v", err)
	}
	gone := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: gone.ID}))
	if _, err := f.svc.Create(ctx, site, ret(gone.ID)); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("a cancelled outbound shipment: %v", err)
	}
	// A cancelled return shipment no longer receives parcels.
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: r.ID}))
	must[*shipment.Shipment](t)(f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: out.ID, Parcel: ptr(parcel("np-home"))}))
	if got := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: r.ID})); len(got.Parcels) != 1 {
		t.Errorf("cancelled return shipment got a parcel: %d parcels", len(got.Parcels))
	}
}

// TestAddParcelBound: addParcel keeps the bound shipments.create has, so a
// shipment record cannot grow without limit.
func TestAddParcelBound(t *testing.T) {
	f := newFixture(t)
	parcels := make([]shipment.ParcelInput, shipment.MaxParcels)
	for i := range parcels {
		parcels[i] = parcel("np-home")
	}
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("FULL-1", parcels...)))
	_, err := f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: sh.ID, Parcel: ptr(parcel("np-home"))})
	if kindOf(err) != "failed precondition" {
		t.Fatalf("AddParcel to a full shipment = %v, want failed precondition", err)
	}
}
