package tracking

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

var testProducts = StaticProducts{
	"fastpost-home": {Ref: "fastpost-home", CarrierID: "fastpost", CarrierName: "FastPost", ProductID: "FP-H", DeliveryType: DeliveryDelivery,
		ShippingMethod: "Home delivery", TrackingURL: "https://track.example/fastpost?id={tracking_number}", LogoPattern: "https://logo.example/fastpost.svg"},
	"fastpost-pickup": {Ref: "fastpost-pickup", CarrierID: "fastpost", CarrierName: "FastPost", ProductID: "FP-P", DeliveryType: DeliveryPickup},
	"nordic-box":      {Ref: "nordic-box", CarrierID: "nordic", CarrierName: "Nordic Parcel", ProductID: "NP-B", DeliveryType: DeliveryMailbox},
}

type fixture struct {
	svc   *Service
	clock *deliverykit.ManualClock
	// observed are the parcel changes the service wrote to the outbox,
	// delivered as each change commits.
	observed []event.ParcelChanged
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{clock: deliverykit.NewManualClock(t0)}
	d := outbox.New(memory.New(), outbox.Options{Clock: f.clock})
	d.Handle(event.TypeParcelChanged, "test", func(_ context.Context, e event.Event) error {
		c, err := event.Decode[event.ParcelChanged](e)
		f.observed = append(f.observed, c)
		return err
	})
	svc, err := New(d.Store(), Options{
		Products:  testProducts,
		Clock:     f.clock,
		IDs:       &deliverykit.SequentialIDs{},
		PortalURL: "https://portal.example/",
		Sites: map[string]Site{
			"site-a": {Name: "Shop A", MerchantLink: "https://shop-a.example/orders/{external_id}?lang={locale}"},
			"site-b": {Name: "Shop B"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	return f
}

func orderReq(ext string) CreateTrackingOrderRequest {
	return CreateTrackingOrderRequest{
		ExternalID:        ext,
		CarrierProductRef: "fastpost-pickup",
		Sender:            &Sender{Name: "Shop A"},
		Receiver:          &Receiver{Name: "Alva Berg", Email: "Alva@Example.com", PhoneNumber: "+46701234567"},
		Destination: &Destination{
			Address:            &Address{Street: "Storgatan", StreetNumber: "1", City: "Stockholm", PostalCode: "11122", Country: "SE"},
			LocationExternalID: "pp-1",
			LocationType:       PickupManned,
			OperationalHours: &OperationalHours{
				Mon: []TimeRange{{Start: "10:00:00", End: "14:00:00"}, {Start: "15:00:00", End: "20:00:00"}},
				Sat: []TimeRange{{Start: "11:00:00", End: "15:30:00"}},
			},
		},
		DeliveryType: OrderDeliveryPickup,
		Cart: &Cart{
			Items: []CartItem{
				{SKU: "TENT-2", Name: "Tent", Quantity: 1, Price: 150000, Discount: 10000},
				{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900},
			},
			Total: 164800, Discount: 19900, Currency: "SEK", ShippingPrice: 0, Tax: 31960,
		},
		Promises: &Promises{
			EstimatedSubmissionTime: &DateTimeRangeStrict{Start: "2026-11-20T08:00:00Z", End: "2026-11-20T16:00:00Z"},
			EstimatedDeliveryTime:   &DateTimeRangeStrict{Start: "2026-11-21T08:00:00Z", End: "2026-11-22T18:00:00Z"},
		},
	}
}

func parcelReq(tos, tn string) CreateParcelRequest {
	return CreateParcelRequest{
		TosID: tos, TrackingNumber: tn, CarrierProductRef: "fastpost-pickup", DirectionType: DirectionOutbound,
		LineItems: []ParcelLineItem{{SKU: "TENT-2", Quantity: 1, Price: 150000, Currency: "SEK"}},
		Receiver: &ParcelReceiver{Name: "Alva Berg", Destination: &ParcelDestination{
			Pickup: &Pickup{ID: "pp-1", Address: &Address{Name: "Kiosk Central", Street: "Drottninggatan 5", City: "Stockholm", Country: "SE"}},
		}},
	}
}

// setup registers one order with one parcel at site-a.
func (f *fixture) setup(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	id, err := f.svc.CreateOrder(ctx, "site-a", orderReq("ORD-1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.CreateParcel(ctx, "site-a", parcelReq(id, "TN1")); err != nil {
		t.Fatal(err)
	}
	return id
}

func violations(t *testing.T, err error) []deliverykit.FieldViolation {
	t.Helper()
	if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	return deliverykit.ViolationsOf(err)
}

func fields(vs []deliverykit.FieldViolation) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Field + " " + v.Rule
	}
	return out
}

func TestCreateOrderValidation(t *testing.T) {
	tests := []struct {
		name   string
		modify func(r *CreateTrackingOrderRequest)
		want   []string
	}{
		{"missing required", func(r *CreateTrackingOrderRequest) {
			r.ExternalID, r.Sender, r.Receiver, r.Destination, r.DeliveryType = "", nil, nil, nil, ""
		}, []string{"delivery_type required", "destination required", "external_id required", "receiver required", "sender required"}},
		{"bad enums and codes", func(r *CreateTrackingOrderRequest) {
			r.DeliveryType = "HOME"
			r.Destination.LocationType = PickupPostOffice // not an order location type
			r.Destination.Address.Country = "se"
			r.Cart.Currency = "KRONA"
		}, []string{"cart.currency iso4217", "delivery_type oneof", "destination.address.country iso3166_1_alpha2", "destination.location_type oneof"}},
		{"time ranges", func(r *CreateTrackingOrderRequest) {
			r.Destination.OperationalHours.Mon = []TimeRange{{Start: "10:00", End: "14:00:00"}, {Start: "13:00:00", End: "12:00:00"}}
			r.Destination.OperationalHours.Sat = []TimeRange{{Start: "11:00:00"}}
			r.Promises.EstimatedDeliveryTime = &DateTimeRangeStrict{Start: "2026-11-21T08:00:00Z"}
			r.Promises.EstimatedSubmissionTime = &DateTimeRangeStrict{Start: "2026-11-21T08:00:00Z", End: "2026-11-20T08:00:00Z"}
		}, []string{
			"destination.operational_hours.mon[0].start hhmmss",
			"destination.operational_hours.mon[1].end gtfield",
			"destination.operational_hours.sat[0].end required",
			"promises.estimated_delivery_time.end required",
			"promises.estimated_submission_time.end gtefield",
		}},
		{"overlapping ranges", func(r *CreateTrackingOrderRequest) {
			r.Destination.OperationalHours.Mon = []TimeRange{{Start: "10:00:00", End: "14:00:00"}, {Start: "13:00:00", End: "18:00:00"}}
		}, []string{"destination.operational_hours.mon[1].start order"}},
		{"cart items", func(r *CreateTrackingOrderRequest) {
			r.Cart.Items = []CartItem{{SKU: "X", Quantity: 0, Price: -1}}
		}, []string{"cart.items[0].name required", "cart.items[0].price gte", "cart.items[0].quantity gt"}},
		{"unknown product", func(r *CreateTrackingOrderRequest) { r.CarrierProductRef = "nope" }, []string{"carrier_product_ref known"}},
		{"item total overflows", func(r *CreateTrackingOrderRequest) {
			r.Cart.Items[1].Quantity, r.Cart.Items[1].Price = 2, math.MaxInt32/2+1
		}, []string{"cart.items[1].quantity overflow"}},
		{"item discount overflows", func(r *CreateTrackingOrderRequest) {
			r.Cart.Items[0].Quantity, r.Cart.Items[0].Price, r.Cart.Items[0].Discount = 65_536, 1, 32_768
		}, []string{"cart.items[0].discount overflow"}},
		{"items price sum overflows", func(r *CreateTrackingOrderRequest) {
			r.Cart.Items[0].Price, r.Cart.Items[1].Quantity, r.Cart.Items[1].Price = math.MaxInt32-19_800, 2, 9_901
		}, []string{"cart.items overflow"}},
		{"items discount sum overflows", func(r *CreateTrackingOrderRequest) {
			r.Cart.Items[0].Discount, r.Cart.Items[1].Discount = math.MaxInt32, 1
		}, []string{"cart.items overflow"}},
		{"total plus shipping overflows", func(r *CreateTrackingOrderRequest) {
			r.Cart.Total, r.Cart.ShippingPrice = math.MaxInt32, 1
		}, []string{"cart.shipping_price overflow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			r := orderReq("ORD-1")
			tt.modify(&r)
			_, err := f.svc.CreateOrder(context.Background(), "site-a", r)
			if diff := cmp.Diff(tt.want, fields(violations(t, err))); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateOrderIdempotent(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id1, err := f.svc.CreateOrder(ctx, "site-a", orderReq("ORD-1"))
	if err != nil {
		t.Fatal(err)
	}
	id2, err := f.svc.CreateOrder(ctx, "site-a", orderReq("ORD-1"))
	if err != nil || id2 != id1 {
		t.Fatalf("repeat = %q, %v; want %q", id2, err, id1)
	}
	changed := orderReq("ORD-1")
	changed.Receiver.Name = "Someone Else"
	if _, err := f.svc.CreateOrder(ctx, "site-a", changed); !errors.Is(err, deliverykit.ErrConflict) {
		t.Fatalf("different content: err = %v, want conflict", err)
	}
	// The same external id at another site is another order.
	id3, err := f.svc.CreateOrder(ctx, "site-b", orderReq("ORD-1"))
	if err != nil || id3 == id1 {
		t.Fatalf("other site = %q, %v", id3, err)
	}
	if _, err := f.svc.CreateOrder(ctx, "site-a", CreateTrackingOrderRequest{SiteID: "site-b"}); !errors.Is(err, deliverykit.ErrPermissionDenied) {
		t.Fatalf("foreign site_id: err = %v", err)
	}
}

func TestCreateParcel(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.setup(t)
	tests := []struct {
		name string
		site string
		req  CreateParcelRequest
		want error
	}{
		{"identical repeat", "site-a", parcelReq(id, "TN1"), nil},
		{"same number other carrier", "site-a", func() CreateParcelRequest { r := parcelReq(id, "TN1"); r.CarrierProductRef = "nordic-box"; return r }(), nil},
		{"same number same carrier differs", "site-a", func() CreateParcelRequest { r := parcelReq(id, "TN1"); r.DirectionType = DirectionReturn; return r }(), deliverykit.ErrConflict},
		{"unknown order", "site-a", parcelReq("tos_nope", "TN2"), deliverykit.ErrNotFound},
		{"other site's order", "site-b", parcelReq(id, "TN2"), deliverykit.ErrNotFound},
		{"unknown product", "site-a", func() CreateParcelRequest { r := parcelReq(id, "TN2"); r.CarrierProductRef = "x"; return r }(), deliverykit.ErrInvalidArgument},
		{"bad direction", "site-a", func() CreateParcelRequest { r := parcelReq(id, "TN2"); r.DirectionType = "SIDEWAYS"; return r }(), deliverykit.ErrInvalidArgument},
		// A NUL would make the number pose as the key prefix of another
		// parcel's ("TN1" + NUL + carrier).
		{"NUL in tracking number", "site-a", parcelReq(id, "TN1\x00nordic-box"), deliverykit.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.svc.CreateParcel(ctx, tt.site, tt.req)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{ExternalID: "ORD-1"})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, p := range res.Parcels {
		got = append(got, p.TrackingNumber+" "+string(p.DeliveryType))
	}
	// delivery_type defaults to the order's (PICKUP).
	if diff := cmp.Diff([]string{"TN1 PICKUP", "TN1 PICKUP"}, got); diff != "" {
		t.Errorf("parcels (-want +got):\n%s", diff)
	}
}

func ev(step Step, alert AlertType, at string) Event {
	return Event{TrackingNumber: "TN1", Time: at, Step: step, Alert: alert}
}

func TestRecordEventHistory(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.setup(t)
	events := []Event{
		ev(StepSubmittedToCarrier, "", "2026-11-20T12:00:00Z"),
		ev(StepConfirmedByMerchant, "", "2026-11-20T09:00:00Z"),     // late, placed first
		ev(StepSubmittedToCarrier, "", "2026-11-20T12:00:00+00:00"), // duplicate
		ev(StepOnRoute, AlertOutForDelivery, "2026-11-21T07:00:00Z"),
		{TrackingNumber: "TN1", Time: "2026-11-21T09:00:00Z", Alert: AlertDeliveryAttemptFailed,
			EstimatedTime: &DateTimeRange{Start: "2026-11-23T08:00:00Z", End: "2026-11-23T18:00:00Z"}},
		ev(StepDeliveredToPickupPoint, "", "2026-11-23T10:00:00Z"),
	}
	for i, e := range events {
		if err := f.svc.RecordEvent(ctx, "site-a", e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	f.clock.Set(time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
	res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Parcels[0]
	wantHistory := []ProgressItem{
		{Step: StepConfirmedByMerchant, Time: "2026-11-20T09:00:00Z"},
		{Step: StepSubmittedToCarrier, Time: "2026-11-20T12:00:00Z"},
		{Step: StepOnRoute, Time: "2026-11-21T07:00:00Z"},
		{Step: StepDeliveredToPickupPoint, Time: "2026-11-23T10:00:00Z"},
	}
	// GET /parcels lists the history newest first; GET /orders keeps
	// time order.
	newest := slices.Clone(wantHistory)
	slices.Reverse(newest)
	if diff := cmp.Diff(newest, p.ProgressHistory); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&wantHistory[3], p.CurrentProgress); diff != "" {
		t.Errorf("current (-want +got):\n%s", diff)
	}
	e := &struct{}{}
	wantAlerts := []Alert{
		{Type: AlertOutForDelivery, CreatedAt: "2026-11-21T07:00:00Z", OutForDelivery: e},
		{Type: AlertEstimatedDeliveryTimeUpdated, CreatedAt: "2026-11-21T09:00:00Z", EstimatedDeliveryTimeUpdated: e},
		{Type: AlertDeliveryAttemptFailed, CreatedAt: "2026-11-21T09:00:00Z", DeliveryAttemptFailed: e},
		{Type: AlertDeliveryDelayed, CreatedAt: "2026-11-22T18:00:00Z", DeliveryDelayed: e}, // the promise passed
	}
	if diff := cmp.Diff(wantAlerts, p.Alerts); diff != "" {
		t.Errorf("alerts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&DateTimeRange{Start: "2026-11-23T08:00:00Z", End: "2026-11-23T18:00:00Z"}, p.EstimatedDeliveryTime); diff != "" {
		t.Errorf("estimate (-want +got):\n%s", diff)
	}
	var got []string
	for _, c := range f.observed {
		got = append(got, c.Step+c.Alert)
	}
	want := []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_CONFIRMED_BY_MERCHANT", "STEP_ON_ROUTE", "ALERT_OUT_FOR_DELIVERY",
		"ALERT_ESTIMATED_DELIVERY_TIME_UPDATED", "ALERT_DELIVERY_ATTEMPT_FAILED", "STEP_DELIVERED_TO_PICKUP_POINT"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
	c := f.observed[0]
	if c.Receiver.Email != "Alva@Example.com" || c.ExternalID != "ORD-1" || c.TrackingLink != "https://portal.example/v1/delivery_tracking/_/page/tt_000003" {
		t.Errorf("change = %+v", c)
	}
	// What a consumer measures the promise with: the parcel's product,
	// the order's promised delivery window, the pickup point's country.
	type measured struct {
		Product, Country, Postal string
		Promise                  *event.TimeRange
	}
	wantMeasured := measured{"fastpost-pickup", "SE", "", &event.TimeRange{
		Earliest: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC), Latest: time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC)}}
	if diff := cmp.Diff(wantMeasured, measured{c.ProductRef, c.DestinationCountry, c.DestinationPostalCode, c.Promise}); diff != "" {
		t.Errorf("measured (-want +got):\n%s", diff)
	}
}

func TestRecordEventRules(t *testing.T) {
	tests := []struct {
		name   string
		before []Event
		event  Event
		want   error
	}{
		{"unknown step", nil, ev("STEP_TELEPORTED", "", "2026-11-20T10:00:00Z"), deliverykit.ErrInvalidArgument},
		{"step unknown is not reportable", nil, ev(StepUnknown, "", "2026-11-20T10:00:00Z"), deliverykit.ErrInvalidArgument},
		{"out for delivery is an alert", nil, ev("STEP_OUT_FOR_DELIVERY", "", "2026-11-20T10:00:00Z"), deliverykit.ErrInvalidArgument},
		{"unknown alert", nil, ev("", "ALERT_SOMETHING", "2026-11-20T10:00:00Z"), deliverykit.ErrInvalidArgument},
		{"neither step nor alert", nil, ev("", "", "2026-11-20T10:00:00Z"), deliverykit.ErrInvalidArgument},
		{"bad time", nil, ev(StepOnRoute, "", "yesterday"), deliverykit.ErrInvalidArgument},
		{"unknown parcel", nil, Event{TrackingNumber: "NOPE", Time: "2026-11-20T10:00:00Z", Step: StepOnRoute}, deliverykit.ErrNotFound},
		{"return step on outbound", nil, ev(StepReturnApproved, "", "2026-11-20T10:00:00Z"), deliverykit.ErrFailedPrecondition},
		{"after final", []Event{ev(StepDeliveredToConsumer, "", "2026-11-21T10:00:00Z")}, ev(StepOnRoute, "", "2026-11-22T10:00:00Z"), deliverykit.ErrFailedPrecondition},
		{"late event before final is fine", []Event{ev(StepDeliveredToConsumer, "", "2026-11-21T10:00:00Z")}, ev(StepOnRoute, "", "2026-11-21T08:00:00Z"), nil},
		{"final before recorded step", []Event{ev(StepOnRoute, "", "2026-11-21T10:00:00Z")}, ev(StepTerminated, "", "2026-11-21T08:00:00Z"), deliverykit.ErrFailedPrecondition},
		{"back on route", []Event{ev(StepDeliveredToPickupPoint, "", "2026-11-21T10:00:00Z")}, ev(StepOnRoute, "", "2026-11-22T08:00:00Z"), nil},
		{"history full", manyEvents(StepOnRoute, "", MaxProgressItems), ev(StepOnRoute, "", "2026-01-01T00:00:00Z"), deliverykit.ErrFailedPrecondition},
		{"alerts full", manyEvents("", AlertDeliveryDelayedFromCarrier, MaxAlerts), ev("", AlertOutForDelivery, "2026-01-01T00:00:00Z"), deliverykit.ErrFailedPrecondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.setup(t)
			ctx := context.Background()
			for _, e := range tt.before {
				if err := f.svc.RecordEvent(ctx, "site-a", e); err != nil {
					t.Fatal(err)
				}
			}
			err := f.svc.RecordEvent(ctx, "site-a", tt.event)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestDerivedAlerts(t *testing.T) {
	tests := []struct {
		name   string
		now    time.Time
		events []Event
		want   []AlertType
	}{
		{"on time, nothing yet", time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), nil, nil},
		{"submission late", time.Date(2026, 11, 20, 17, 0, 0, 0, time.UTC), nil, []AlertType{AlertSubmissionDelayed}},
		{"submitted in time", time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), []Event{ev(StepSubmittedToCarrier, "", "2026-11-20T15:00:00Z")}, nil},
		{"submitted late, delivered in time", time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC),
			[]Event{ev(StepSubmittedToCarrier, "", "2026-11-20T17:00:00Z"), ev(StepDeliveredToPickupPoint, "", "2026-11-22T10:00:00Z")},
			[]AlertType{AlertSubmissionDelayed}},
		{"delivered late", time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC),
			[]Event{ev(StepSubmittedToCarrier, "", "2026-11-20T15:00:00Z"), ev(StepDeliveredToConsumer, "", "2026-11-23T10:00:00Z")},
			[]AlertType{AlertDeliveryDelayed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.setup(t)
			ctx := context.Background()
			for _, e := range tt.events {
				if err := f.svc.RecordEvent(ctx, "site-a", e); err != nil {
					t.Fatal(err)
				}
			}
			f.clock.Set(tt.now)
			res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
			if err != nil {
				t.Fatal(err)
			}
			var got []AlertType
			for _, a := range res.Parcels[0].Alerts {
				got = append(got, a.Type)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("alerts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOrders(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.setup(t)
	if err := f.svc.RecordEvent(ctx, "site-a", ev(StepConfirmedByMerchant, "", "2026-11-20T09:00:00Z")); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "ORD-1", Locale: "sv-SE"})
	if err != nil {
		t.Fatal(err)
	}
	want := []PrivateOrder{{
		AnalyticsID: "an_000002",
		Cart: &PrivateOrderCart{
			Currency: "SEK",
			Items: []Item{
				{Discount: 10000, Name: "Tent", Price: 150000, Quantity: 1, SKU: "TENT-2", TotalPrice: 150000},
				{Name: "Mug", Price: 9900, Quantity: 2, SKU: "MUG", TotalPrice: 19800},
			},
			Prices: &CartPrices{
				ShippingComponents: []ShippingComponent{{Name: "Frakt", Discount: 4900}},
				Total: &CartTotal{Discount: 19900, ItemsDiscount: 10000, ItemsPrice: 169800, Price: 164800,
					ShippingDiscount: 4900, Tax: 31960},
			},
		},
		ExternalID: "ORD-1",
		Items: []DisplayItem{
			{Discount: 10000, Name: "Tent", Price: 150000, Quantity: 1, SKU: "TENT-2", TotalPrice: 150000},
			{Name: "Mug", Price: 9900, Quantity: 2, SKU: "MUG", TotalPrice: 19800},
		},
		Parcels: []PrivateParcel{{
			TrackingNumber:        "TN1",
			Carrier:               "carrier-fastpost",
			CarrierProductID:      "FP-P",
			CarrierProductRef:     "fastpost-pickup",
			DeliveryType:          DeliveryPickup,
			DirectionType:         DirectionOutbound,
			DisplayCarrierName:    "FastPost",
			EstimatedDeliveryTime: &DateTimeRange{Start: "2026-11-21T08:00:00Z", End: "2026-11-22T18:00:00Z"},
			LineItems:             []ParcelLineItem{{SKU: "TENT-2", Quantity: 1, Price: 150000, Currency: "SEK"}},
			Location: &Location{
				Address:            &Address{Name: "Kiosk Central", Street: "Drottninggatan 5", City: "Stockholm", Country: "SE"},
				LocationExternalID: "pp-1",
				LocationType:       PickupManned,
				OperationalHours:   &DisplayHours{Mon: "10:00-14:00, 15:00-20:00", Sat: "11:00-15:30"},
			},
			Progress:   []ProgressItem{{Step: StepConfirmedByMerchant, Time: "2026-11-20T09:00:00Z"}},
			SenderName: "Shop A",
		}},
		SenderName: "Shop A",
		SiteName:   "Shop A",
		TosID:      id,
		TrackingLinks: &TrackingLinks{Links: []TrackingLink{
			{Type: LinkServicePortal, URL: "https://portal.example/v1/delivery_tracking/_/page/tt_000003?locale=sv-SE"},
			{Type: LinkMerchantProvided, URL: "https://shop-a.example/orders/ORD-1?lang=sv-SE"},
		}},
		TimeZone: "Europe/Stockholm",
	}}
	if diff := cmp.Diff(want, res.Orders); diff != "" {
		t.Errorf("orders (-want +got):\n%s", diff)
	}

	byEmail, err := f.svc.Orders(ctx, "site-a", OrdersQuery{Email: "alva@example.COM"})
	if err != nil || len(byEmail.Orders) != 1 || byEmail.Orders[0].TosID != id {
		t.Fatalf("by email = %+v, %v", byEmail, err)
	}
	de, _ := f.svc.Orders(ctx, "site-a", OrdersQuery{Locale: "de-DE"})
	if n := de.Orders[0].Cart.Prices.ShippingComponents[0].Name; n != "Versand" {
		t.Errorf("de name = %q", n)
	}
	for _, q := range []OrdersQuery{{}, {ExternalID: "ORD-1"}, {Email: "alva@example.com"}} {
		other, err := f.svc.Orders(ctx, "site-b", q)
		if err != nil || len(other.Orders) != 0 {
			t.Errorf("site-b %+v sees %+v, %v", q, other, err)
		}
	}
	if _, err := f.svc.Orders(ctx, "site-a", OrdersQuery{Locale: "!!"}); !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("bad locale err = %v", err)
	}
}

func TestParcelsQueryRules(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.setup(t)
	link, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{Locale: "en-GB", OrderID: id})
	if err != nil {
		t.Fatal(err)
	}
	token := "tt_000003"
	tests := []struct {
		name    string
		site    string
		q       ParcelsQuery
		wantErr error
		wantTos string
	}{
		{"by external id", "site-a", ParcelsQuery{ExternalID: "ORD-1"}, nil, id},
		{"by tracking number", "site-a", ParcelsQuery{TrackingNumber: "TN1"}, nil, id},
		{"both", "site-a", ParcelsQuery{ExternalID: "ORD-1", TrackingNumber: "TN1"}, deliverykit.ErrInvalidArgument, ""},
		{"neither", "site-a", ParcelsQuery{}, deliverykit.ErrInvalidArgument, ""},
		{"token wins over both", "site-a", ParcelsQuery{Token: token, ExternalID: "x", TrackingNumber: "y"}, nil, id},
		{"unknown token", "site-a", ParcelsQuery{Token: "tt_nope"}, deliverykit.ErrNotFound, ""},
		{"token of another site", "site-b", ParcelsQuery{Token: token}, deliverykit.ErrNotFound, ""},
		{"external id of another site", "site-b", ParcelsQuery{ExternalID: "ORD-1"}, deliverykit.ErrNotFound, ""},
		{"tracking number of another site", "site-b", ParcelsQuery{TrackingNumber: "TN1"}, deliverykit.ErrNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := f.svc.Parcels(ctx, tt.site, tt.q)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.TosID != tt.wantTos || res.ExternalID != "ORD-1" || len(res.Parcels) != 1 || res.TrackingLink == "" {
				t.Errorf("res = %+v", res)
			}
		})
	}
	if link.TrackingLink != "https://portal.example/v1/delivery_tracking/_/page/"+token+"?locale=en-GB" {
		t.Errorf("link = %q", link.TrackingLink)
	}
}

func TestGenerateLink(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.setup(t)
	portal := "https://portal.example/v1/delivery_tracking/_/page/tt_000003?locale=sv-SE"
	tests := []struct {
		name    string
		site    string
		req     GenerateTrackingPageLinkRequest
		want    []TrackingLink
		wantErr error
	}{
		{"by tos id", "site-a", GenerateTrackingPageLinkRequest{Locale: "sv-SE", OrderID: id},
			[]TrackingLink{{LinkServicePortal, portal}, {LinkMerchantProvided, "https://shop-a.example/orders/ORD-1?lang=sv-SE"}}, nil},
		{"by external id", "site-a", GenerateTrackingPageLinkRequest{Locale: "sv-SE", OrderID: "ORD-1"},
			[]TrackingLink{{LinkServicePortal, portal}, {LinkMerchantProvided, "https://shop-a.example/orders/ORD-1?lang=sv-SE"}}, nil},
		// A link asked for by tracking number points at the parcel.
		{"by tracking number", "site-a", GenerateTrackingPageLinkRequest{Locale: "sv-SE", TrackingNumber: "TN1"},
			[]TrackingLink{{LinkServicePortal, portal + "&tracking_number=TN1"}, {LinkMerchantProvided, "https://shop-a.example/orders/ORD-1?lang=sv-SE"}}, nil},
		{"neither", "site-a", GenerateTrackingPageLinkRequest{Locale: "sv-SE"}, nil, deliverykit.ErrInvalidArgument},
		{"no locale", "site-a", GenerateTrackingPageLinkRequest{OrderID: id}, nil, deliverykit.ErrInvalidArgument},
		{"bad locale", "site-a", GenerateTrackingPageLinkRequest{OrderID: id, Locale: "??"}, nil, deliverykit.ErrInvalidArgument},
		{"parcel of another order", "site-a", GenerateTrackingPageLinkRequest{Locale: "sv", OrderID: id, TrackingNumber: "TN9"}, nil, deliverykit.ErrNotFound},
		{"another site's order", "site-b", GenerateTrackingPageLinkRequest{Locale: "sv-SE", OrderID: id}, nil, deliverykit.ErrNotFound},
		{"another site's parcel", "site-b", GenerateTrackingPageLinkRequest{Locale: "sv-SE", TrackingNumber: "TN1"}, nil, deliverykit.ErrNotFound},
		{"foreign site_id", "site-b", GenerateTrackingPageLinkRequest{SiteID: "site-a", Locale: "sv-SE", OrderID: id}, nil, deliverykit.ErrPermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := f.svc.GenerateLink(ctx, tt.site, tt.req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.TrackingLinks.Links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
			if res.TrackingLink != tt.want[0].URL {
				t.Errorf("tracking_link = %q", res.TrackingLink)
			}
		})
	}
	// A site without a merchant link gets the portal link only.
	idB, err := f.svc.CreateOrder(ctx, "site-b", orderReq("B-1"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.GenerateLink(ctx, "site-b", GenerateTrackingPageLinkRequest{Locale: "de", OrderID: idB})
	if err != nil || len(res.TrackingLinks.Links) != 1 || res.TrackingLinks.Links[0].Type != LinkServicePortal {
		t.Fatalf("site-b links = %+v, %v", res, err)
	}
}

func TestOrderByToken(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.setup(t)
	po, err := f.svc.OrderByToken(ctx, "tt_000003", "sv-SE")
	if err != nil {
		t.Fatal(err)
	}
	if po.TosID != id || len(po.Parcels) != 1 || po.SiteName != "Shop A" {
		t.Errorf("order = %+v", po)
	}
	if _, err := f.svc.OrderByToken(ctx, "tt_000004", ""); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("unknown token err = %v", err)
	}
}

func TestCarrierFallback(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.setup(t)
	read := func() bool {
		res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "ORD-1"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Orders[0].Parcels[0].CarrierFallbackEnabled
	}
	if read() {
		t.Error("fallback enabled at registration")
	}
	f.clock.Advance(DefaultCarrierFallbackAfter)
	if !read() {
		t.Error("fallback not enabled after silence")
	}
	if err := f.svc.RecordEvent(ctx, "site-a", ev(StepOnRoute, "", "2026-11-21T09:00:00Z")); err != nil {
		t.Fatal(err)
	}
	if read() {
		t.Error("fallback still enabled after a carrier event")
	}
}

func TestNewRequiresProducts(t *testing.T) {
	if _, err := New(memory.New(), Options{}); err == nil {
		t.Fatal("New without Products succeeded")
	}
}

func TestRecordOrder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.svc.RecordOrder(ctx, "site-a", "tos_checkout_1", orderReq("CART-1")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		tos  string
		req  CreateTrackingOrderRequest
		want error
	}{
		{"delivered again", "tos_checkout_1", orderReq("CART-1"), nil},
		{"same tos, other order", "tos_checkout_1", orderReq("CART-2"), deliverykit.ErrConflict},
		{"same order, other tos", "tos_checkout_2", orderReq("CART-1"), deliverykit.ErrConflict},
		{"no tos", "", orderReq("CART-3"), deliverykit.ErrInvalidArgument},
		{"invalid order", "tos_checkout_3", CreateTrackingOrderRequest{}, deliverykit.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f.svc.RecordOrder(ctx, "site-a", tt.tos, tt.req)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	// The recorded id is the order's tos_id: parcels and links use it.
	if err := f.svc.CreateParcel(ctx, "site-a", parcelReq("tos_checkout_1", "TN7")); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{ExternalID: "CART-1"})
	if err != nil || res.TosID != "tos_checkout_1" || len(res.Parcels) != 1 {
		t.Fatalf("parcels = %+v, %v", res, err)
	}
}

// TestConcurrentCreateOrder registers the same order from several
// goroutines: one order is made and every caller gets its id.
func TestConcurrentCreateOrder(t *testing.T) {
	f := newFixture(t)
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			id, err := f.svc.CreateOrder(context.Background(), "site-a", orderReq("ORD-RACE"))
			if err != nil {
				t.Error(err)
			}
			ids[i] = id
		})
	}
	wg.Wait()
	for _, id := range ids[1:] {
		if id != ids[0] {
			t.Fatalf("ids = %v", ids)
		}
	}
	res, err := f.svc.Orders(context.Background(), "site-a", OrdersQuery{})
	if err != nil || len(res.Orders) != 1 {
		t.Fatalf("orders = %d, %v", len(res.Orders), err)
	}
}

// manyEvents returns n events of one step or alert, a minute apart.
func manyEvents(step Step, alert AlertType, n int) []Event {
	out := make([]Event, n)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		out[i] = ev(step, alert, t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
	}
	return out
}
