package returns

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// fakePDFs renders a label naming the site and the tracking number.
type fakePDFs struct{}

func (fakePDFs) LabelPDF(_ context.Context, site, tn string) ([]byte, error) {
	return []byte("%PDF-1.3 " + site + " " + tn), nil
}

// fakeDropOffs answers two points and records what it was asked.
type fakeDropOffs struct {
	mu    sync.Mutex
	asked []string
}

var testPoints = []DropOffPoint{
	{ID: "np-1", Name: "Kiosk Centralen", Address: Address{AddressLines: []string{"Vasagatan 1"}, PostalCode: "111 20", City: "Stockholm", Country: "SE"},
		Hours: map[string][]string{"mon": {"08:00-20:00"}}, Meters: 420},
	{ID: "np-2", Name: "Butik Norr", Address: Address{PostalCode: "113 22", City: "Stockholm", Country: "SE"}, Meters: 1800},
}

func (d *fakeDropOffs) DropOffPoints(_ context.Context, site, product string, near Address, n int) ([]DropOffPoint, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, fmt.Sprintf("%s %s %s %s %d", site, product, near.PostalCode, near.Country, n))
	return testPoints, nil
}

var testAddress = &Address{Name: "Łukasz Żółć", AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 51", City: "Stockholm", Country: "SE"}

type sendBackFixture struct {
	*fixture
	dropOffs *fakeDropOffs
	policies StaticPolicies
}

func newSendBackFixture(t *testing.T, product string) *sendBackFixture {
	t.Helper()
	clock := deliverykit.NewManualClock(t0)
	pol := testPolicy
	pol.ReturnProduct = product
	f := &sendBackFixture{dropOffs: &fakeDropOffs{}, policies: StaticPolicies{"site-a": pol}}
	store := memory.New()
	f.fixture = &fixture{clock: clock, ctx: t.Context(), store: store, svc: New(store, Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Policies: f.policies, PublicURL: "https://returns.example",
		LabelPDFs: fakePDFs{}, DropOffs: f.dropOffs,
	})}
	return f
}

// requests are the return parcels asked for so far, in order.
func (f *fixture) requests(t *testing.T) []event.ReturnShipmentRequested {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []event.ReturnShipmentRequested
	for _, ev := range evs {
		if ev.Type == event.TypeReturnShipmentRequested {
			r, err := event.Decode[event.ReturnShipmentRequested](ev)
			mustDecode(t, err)
			out = append(out, r)
		}
	}
	return out
}

// booked is the parcel.booked the shipments area writes for the return
// parcel of return id, with tracking number tn.
func booked(t *testing.T, site string, id uint64, order, tn string) event.Event {
	t.Helper()
	ev, err := event.New("evt_"+tn, site, tn, t0, event.ParcelBooked{
		ShipmentID: "shp_" + tn, DeliveryID: "shp_" + tn + "-P1-D1", OrderExternalID: order, TrackingNumber: tn,
		ProductRef: "np-return", Direction: "RETURN", DeliveryType: "DELIVERY", BookedAt: t0,
		ShipmentExternalID: ShipmentExternalID(id), CarrierName: "North Parcel",
	})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestStatusPageSendBack covers when a return asks for its parcel, and
// what its status page shows before and after the parcel is booked.
func TestStatusPageSendBack(t *testing.T) {
	tests := []struct {
		name        string
		product     string
		address     *Address
		book        bool // the parcel.booked arrives before the page is opened
		inTransit   bool // the parcel is at the carrier before the page is opened
		wantAsked   int  // return parcels asked for
		wantLabel   string
		wantPending bool
		wantPoints  int
		wantQueries []string
	}{
		{name: "no return product", address: testAddress},
		{name: "no delivery address", product: "np-return"},
		{name: "asked at creation, being prepared", product: "np-return", address: testAddress, wantAsked: 1,
			wantPending: true, wantPoints: 2, wantQueries: []string{"site-a np-return 111 51 SE 5", "site-a np-return 111 51 SE 5"}},
		{name: "booked", product: "np-return", address: testAddress, book: true, wantAsked: 1,
			wantLabel: "CR000000001SE", wantPoints: 2, wantQueries: []string{"site-a np-return 111 51 SE 5", "site-a np-return 111 51 SE 5"}},
		{name: "parcel already in transit", product: "np-return", address: testAddress, inTransit: true, wantAsked: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSendBackFixture(t, tc.product)
			in := orderInput("A-1")
			in.DeliveryAddress = tc.address
			if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
				t.Fatal(err)
			}
			ret := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
			if tc.book {
				if err := f.svc.HandleParcelBooked(f.ctx, booked(t, "site-a", ret.ID, "A-1", "CR000000001SE")); err != nil {
					t.Fatal(err)
				}
			}
			if tc.inTransit {
				if _, err := f.svc.MarkInTransit(f.ctx, "site-a", ret.ID, ShipmentInput{Carrier: "own", TrackingReference: "X1"}); err != nil {
					t.Fatal(err)
				}
			}
			token := tokenOfURL(t, ret.StatusURL)
			var views [2]StatusPageView
			for i := range views {
				v, err := f.svc.StatusPage(f.ctx, token)
				if err != nil {
					t.Fatal(err)
				}
				views[i] = v
			}
			v := views[1]
			if diff := cmp.Diff(views[0], v); diff != "" {
				t.Errorf("a second view differs (-first +second):\n%s", diff)
			}
			if v.Site != "site-a" || v.Return.ID != ret.ID {
				t.Errorf("view of %s return %d", v.Site, v.Return.ID)
			}
			var gotLabel string
			if v.Label != nil {
				gotLabel = v.Label.TrackingNumber
				if want := StatusPagePath + token + "/label.pdf"; v.Label.Path != want || v.Label.CarrierName != "North Parcel" {
					t.Errorf("label %+v, want path %s", v.Label, want)
				}
			}
			if gotLabel != tc.wantLabel || v.LabelPending != tc.wantPending || len(v.DropOffs) != tc.wantPoints {
				t.Errorf("label %q pending %v, %d drop-off points; want %q %v %d", gotLabel, v.LabelPending, len(v.DropOffs), tc.wantLabel, tc.wantPending, tc.wantPoints)
			}
			if got := f.requests(t); len(got) != tc.wantAsked {
				t.Errorf("%d return parcels asked for, want %d: %+v", len(got), tc.wantAsked, got)
			}
			if diff := cmp.Diff(tc.wantQueries, f.dropOffs.asked); diff != "" {
				t.Errorf("drop-off queries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReturnShipmentRequested: the request written with the return names
// the shipment's external id, the order, the product and the customer as
// the sender, in the transaction of the return (after return.created).
func TestReturnShipmentRequested(t *testing.T) {
	f := newSendBackFixture(t, "np-return")
	in := orderInput("A-1")
	in.DeliveryAddress = &Address{AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 51", City: "Stockholm", Country: "SE",
		Coordinates: &Coordinates{Lat: 59.33, Lng: 18.06}}
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	ret := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	want := []event.ReturnShipmentRequested{{
		ReturnID: "1", ShipmentExternalID: "return-1", OrderExternalID: "A-1", ProductRef: "np-return",
		// No name on the address: the e-mail address names the sender.
		Sender: deliverykit.Contact{Name: "Customer@Example.com", Email: "Customer@Example.com"},
		SenderAddress: &deliverykit.Address{AddressLines: []string{"Drottninggatan 5"}, PostalCode: "111 51", City: "Stockholm", Country: "SE",
			Coordinates: &deliverykit.Coordinates{Lat: 59.33, Lng: 18.06}},
		RequestedAt: t0.Truncate(time.Microsecond),
	}}
	if diff := cmp.Diff(want, f.requests(t)); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	evs, err := outbox.Pending(f.ctx, f.store, 10)
	if err != nil || len(evs) != 2 || evs[0].Type != event.TypeReturnCreated || evs[1].Subject != "1" {
		t.Errorf("events %+v, %v; want return.created, then the request, both of return 1", evs, err)
	}
	if ret.ID != 1 || ShipmentExternalID(ret.ID) != "return-1" {
		t.Errorf("return %d", ret.ID)
	}
}

// TestStatusPageAsksOnce: a return created before its site's policy named
// a return product gets its parcel asked for by its status page, once
// however often, and concurrently, the page is opened.
func TestStatusPageAsksOnce(t *testing.T) {
	f := newSendBackFixture(t, "")
	in := orderInput("A-1")
	in.DeliveryAddress = testAddress
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	token := tokenOfURL(t, f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1}).StatusURL)
	if got := f.requests(t); len(got) != 0 {
		t.Fatalf("asked without a return product: %+v", got)
	}
	pol := f.policies["site-a"]
	pol.ReturnProduct = "np-return"
	f.policies["site-a"] = pol
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if v, err := f.svc.StatusPage(f.ctx, token); err != nil || !v.LabelPending {
				t.Errorf("view: pending %v, %v", v.LabelPending, err)
			}
		})
	}
	wg.Wait()
	if got := f.requests(t); len(got) != 1 || got[0].ShipmentExternalID != "return-1" {
		t.Errorf("requests %+v; want one for return-1", got)
	}
}

// TestStatusPageLocale: the return request's language, else the order's.
func TestStatusPageLocale(t *testing.T) {
	tests := []struct{ order, request, want string }{
		{"sv-SE", "", "sv-SE"},
		{"sv-SE", "de-DE", "de-DE"},
		{"", "fi", "fi"},
		{"", "", ""},
	}
	for _, tc := range tests {
		f := newSendBackFixture(t, "")
		in := orderInput("A-1")
		in.Locale = tc.order
		if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
			t.Fatal(err)
		}
		ret, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com",
			Locale: tc.request, Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := f.svc.StatusPage(f.ctx, tokenOfURL(t, ret.StatusURL))
		if err != nil || v.Locale != tc.want {
			t.Errorf("order %q, request %q: locale %q, %v; want %q", tc.order, tc.request, v.Locale, err, tc.want)
		}
	}
}

func TestReturnLabelByToken(t *testing.T) {
	f := newSendBackFixture(t, "np-return")
	in := orderInput("A-1")
	in.DeliveryAddress = testAddress
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", orderInput("B-1")); err != nil {
		t.Fatal(err)
	}
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	with := tokenOfURL(t, r.StatusURL)
	if err := f.svc.HandleParcelBooked(f.ctx, booked(t, "site-a", r.ID, "A-1", "CR000000001SE")); err != nil {
		t.Fatal(err)
	}
	without := tokenOfURL(t, f.createReturn(t, "site-a", "B-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1}).StatusURL)
	tests := []struct {
		name, token string
		advance     bool
		want        string
		kind        string
		expired     bool
	}{
		{name: "booked", token: with, want: "%PDF-1.3 site-a CR000000001SE", kind: "ok"},
		{name: "no address, no label", token: without, kind: "not found"},
		{name: "unknown token", token: "rt_nope", kind: "not found"},
		{name: "expired link", token: with, advance: true, kind: "not found", expired: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.advance {
				f.clock.Advance(DefaultStatusLinkLifetime + day)
			}
			pdf, err := f.svc.ReturnLabelByToken(f.ctx, tc.token)
			if string(pdf) != tc.want || kindOf(err) != tc.kind || errors.Is(err, ErrStatusLinkExpired) != tc.expired {
				t.Errorf("ReturnLabelByToken = %q, %v; want %q, %v (expired %v)", pdf, err, tc.want, tc.kind, tc.expired)
			}
		})
	}
}

func TestOrderInputAddressAndLocale(t *testing.T) {
	tests := []struct {
		name   string
		change func(*OrderInput)
		want   []string // violated fields
	}{
		{"valid", func(in *OrderInput) { in.Locale, in.DeliveryAddress = "nb-NO", testAddress }, nil},
		{"bad locale", func(in *OrderInput) { in.Locale = "not a locale" }, []string{"locale"}},
		{"address without country", func(in *OrderInput) { in.DeliveryAddress = &Address{City: "Oslo"} }, []string{"deliveryAddress.country"}},
		{"bad coordinates", func(in *OrderInput) {
			in.DeliveryAddress = &Address{Country: "NO", Coordinates: &Coordinates{Lat: 91, Lng: 10}}
		}, []string{"deliveryAddress.coordinates.lat"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			in := orderInput("A-1")
			tc.change(&in)
			_, err := f.svc.ImportOrder(f.ctx, "site-a", in)
			var got []string
			for _, v := range deliverykit.ViolationsOf(err) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || (err != nil) != (tc.want != nil) {
				t.Errorf("violations (-want +got):\n%s (err %v)", diff, err)
			}
		})
	}
}
