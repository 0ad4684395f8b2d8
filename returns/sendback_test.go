package returns

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// fakeLabels books like the real adapter: idempotent by site and return
// id. fail makes the next calls fail.
type fakeLabels struct {
	mu       sync.Mutex
	fail     int
	calls    int
	bookings map[string]BookedLabel
	requests []LabelRequest
}

func (l *fakeLabels) BookReturnLabel(_ context.Context, site string, req LabelRequest) (BookedLabel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.fail > 0 {
		l.fail--
		return BookedLabel{}, deliverykit.E(deliverykit.KindUnavailable, "carrier unreachable")
	}
	key := fmt.Sprintf("%s/%d", site, req.ReturnID)
	if b, ok := l.bookings[key]; ok {
		return b, nil
	}
	if l.bookings == nil {
		l.bookings = map[string]BookedLabel{}
	}
	b := BookedLabel{TrackingNumber: fmt.Sprintf("CR%09dSE", len(l.bookings)+1), CarrierName: "North Parcel"}
	l.bookings[key] = b
	l.requests = append(l.requests, req)
	return b, nil
}

func (l *fakeLabels) ReturnLabelPDF(_ context.Context, site, tn string) ([]byte, error) {
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
	labels   *fakeLabels
	dropOffs *fakeDropOffs
}

func newSendBackFixture(t *testing.T, product string) *sendBackFixture {
	t.Helper()
	clock := deliverykit.NewManualClock(t0)
	pol := testPolicy
	pol.ReturnProduct = product
	f := &sendBackFixture{labels: &fakeLabels{}, dropOffs: &fakeDropOffs{}}
	f.fixture = &fixture{clock: clock, ctx: t.Context(), svc: New(memory.New(), Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Policies: StaticPolicies{"site-a": pol}, PublicURL: "https://returns.example",
		Labels: f.labels, DropOffs: f.dropOffs,
	})}
	return f
}

// TestStatusPageSendBack covers when the status page offers a label and
// drop-off points, and that a label is booked once per return whatever
// fails or repeats.
func TestStatusPageSendBack(t *testing.T) {
	tests := []struct {
		name        string
		product     string
		address     *Address
		failCreate  int  // bookings failing from the creation on
		inTransit   bool // the parcel is at the carrier before the page is opened
		wantLabel   string
		wantPending bool
		wantPoints  int
		wantCalls   int // carrier calls after two page views
		wantAsked   []string
	}{
		{name: "no return product", address: testAddress, wantCalls: 0},
		{name: "no delivery address", product: "np-return", wantCalls: 0},
		{name: "booked at creation", product: "np-return", address: testAddress,
			wantLabel: "CR000000001SE", wantPoints: 2, wantCalls: 1, wantAsked: []string{"site-a np-return 111 51 SE 5", "site-a np-return 111 51 SE 5"}},
		{name: "booking failed at creation, booked by the page", product: "np-return", address: testAddress, failCreate: 1,
			wantLabel: "CR000000001SE", wantPoints: 2, wantCalls: 2, wantAsked: []string{"site-a np-return 111 51 SE 5", "site-a np-return 111 51 SE 5"}},
		{name: "carrier down throughout", product: "np-return", address: testAddress, failCreate: 100,
			wantPending: true, wantPoints: 2, wantCalls: 3, wantAsked: []string{"site-a np-return 111 51 SE 5", "site-a np-return 111 51 SE 5"}},
		{name: "parcel already in transit", product: "np-return", address: testAddress, failCreate: 1, inTransit: true, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newSendBackFixture(t, tc.product)
			in := orderInput("A-1")
			in.DeliveryAddress = tc.address
			if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
				t.Fatal(err)
			}
			f.labels.fail = tc.failCreate
			ret := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
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
			if f.labels.calls != tc.wantCalls || len(f.labels.bookings) > 1 {
				t.Errorf("%d carrier calls, %d bookings; want %d calls and at most one booking", f.labels.calls, len(f.labels.bookings), tc.wantCalls)
			}
			if diff := cmp.Diff(tc.wantAsked, f.dropOffs.asked); diff != "" {
				t.Errorf("drop-off queries (-want +got):\n%s", diff)
			}
			if tc.wantLabel != "" {
				want := LabelRequest{ReturnID: ret.ID, OrderForeignID: "A-1", Product: "np-return", Sender: *testAddress, Email: "Customer@Example.com"}
				if diff := cmp.Diff([]LabelRequest{want}, f.labels.requests); diff != "" {
					t.Errorf("booking (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestStatusPageConcurrentViews opens the page of a return whose label
// failed at creation from several requests at once: the return keeps one
// tracking number, and every view shows it.
func TestStatusPageConcurrentViews(t *testing.T) {
	f := newSendBackFixture(t, "np-return")
	in := orderInput("A-1")
	in.DeliveryAddress = testAddress
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	f.labels.fail = 1
	token := tokenOfURL(t, f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1}).StatusURL)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			v, err := f.svc.StatusPage(f.ctx, token)
			if err != nil || v.Label == nil {
				t.Errorf("view %d: %+v, %v", i, v.Label, err)
				return
			}
			got[i] = v.Label.TrackingNumber
		})
	}
	wg.Wait()
	for i, tn := range got {
		if tn != "CR000000001SE" {
			t.Errorf("view %d shows %q", i, tn)
		}
	}
	if len(f.labels.bookings) != 1 {
		t.Errorf("%d bookings", len(f.labels.bookings))
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
	with := tokenOfURL(t, f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1}).StatusURL)
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
