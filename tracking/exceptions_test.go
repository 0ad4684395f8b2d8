package tracking

import (
	"net/url"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/event"
	"github.com/google/go-cmp/cmp"
)

// Carrier exceptions, named by the event or implied by its step or alert,
// are listed by created_at, each once.
func TestParcelExceptions(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   []ParcelException
	}{
		{"named", []Event{{Time: "2026-11-21T10:00:00Z", Exception: ExceptionDamaged}},
			[]ParcelException{{CreatedAt: "2026-11-21T10:00:00Z", Status: ExceptionDamaged}}},
		{"implied by a failed attempt", []Event{{Time: "2026-11-21T10:00:00Z", Alert: AlertDeliveryAttemptFailed}},
			[]ParcelException{{CreatedAt: "2026-11-21T10:00:00Z", Status: ExceptionDeliveryAttemptFailed}}},
		{"implied by sent back, with an address problem", []Event{
			{Time: "2026-11-22T10:00:00Z", Step: StepSentBack, Exception: ExceptionAddressProblem},
			{Time: "2026-11-21T10:00:00Z", Exception: ExceptionHeldAtCustoms}, // late, placed first
		}, []ParcelException{
			{CreatedAt: "2026-11-21T10:00:00Z", Status: ExceptionHeldAtCustoms},
			{CreatedAt: "2026-11-22T10:00:00Z", Status: ExceptionAddressProblem},
			{CreatedAt: "2026-11-22T10:00:00Z", Status: ExceptionReturnedToSender},
		}},
		{"repeated", []Event{
			{Time: "2026-11-21T10:00:00Z", Exception: ExceptionLost},
			{Time: "2026-11-21T10:00:00+00:00", Exception: ExceptionLost},
		}, []ParcelException{{CreatedAt: "2026-11-21T10:00:00Z", Status: ExceptionLost}}},
		{"none", []Event{{Time: "2026-11-21T10:00:00Z", Step: StepOnRoute}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.setup(t)
			for _, e := range tt.events {
				e.TrackingNumber = "TN1"
				if err := f.svc.RecordEvent(t.Context(), "site-a", e); err != nil {
					t.Fatal(err)
				}
			}
			res, err := f.svc.Orders(t.Context(), "site-a", OrdersQuery{ExternalID: "ORD-1"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Orders[0].Parcels[0].Exceptions); diff != "" {
				t.Errorf("exceptions (-want +got):\n%s", diff)
			}
		})
	}
}

// An exception outside the list is refused, naming the field; a carrier
// event through the outbox carries its exception.
func TestParcelExceptionInput(t *testing.T) {
	f := newFixture(t)
	f.setup(t)
	err := f.svc.RecordEvent(t.Context(), "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-21T10:00:00Z", Exception: "MISLAID"})
	if diff := cmp.Diff([]string{"exception exception"}, fields(violations(t, err))); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	e, err := event.New("evt_1", "site-a", "TN1", t0, event.CarrierEventReported{TrackingNumber: "TN1", Time: t0.Add(3 * 3600e9), Exception: string(ExceptionRefusedByReceiver)})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.HandleCarrierEvent(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	res, err := f.svc.Orders(t.Context(), "site-a", OrdersQuery{ExternalID: "ORD-1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []ParcelException{{CreatedAt: "2026-11-20T11:00:00Z", Status: ExceptionRefusedByReceiver}}
	if diff := cmp.Diff(want, res.Orders[0].Parcels[0].Exceptions); diff != "" {
		t.Errorf("exceptions (-want +got):\n%s", diff)
	}
}

// preselected_parcel_index is the parcel a link points at: a booked
// parcel's own link token, or a link asked for by tracking number.
func TestPreselectedParcelIndex(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	id := f.setup(t)
	if err := f.svc.CreateParcel(ctx, "site-a", parcelReq(id, "TN2")); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.addLinkToken(ctx, "site-a", id, "lt_parcel2", "TN2"); err != nil {
		t.Fatal(err)
	}
	byNumber, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{Locale: "sv-SE", TrackingNumber: "TN2"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(byNumber.TrackingLink)
	if err != nil {
		t.Fatal(err)
	}
	orderToken := u.Path[strings.LastIndex(u.Path, "/")+1:]
	tests := []struct {
		name, token, trackingNumber string
		want                        int64
	}{
		{"the order's link", orderToken, "", 0},
		{"a link asked for by tracking number", orderToken, u.Query().Get("tracking_number"), 1},
		{"a link naming a parcel of no order's", orderToken, "TN9", 0},
		{"a booked parcel's link", "lt_parcel2", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := f.svc.OrderByLink(ctx, tt.token, "", tt.trackingNumber)
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{Token: tt.token, TrackingNumber: tt.trackingNumber})
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{page.PreselectedParcelIndex, res.Orders[0].PreselectedParcelIndex}
			if diff := cmp.Diff([]int64{tt.want, tt.want}, got); diff != "" {
				t.Errorf("preselected_parcel_index of the page and GET /orders (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := f.svc.Orders(ctx, "site-b", OrdersQuery{Token: orderToken}); err == nil {
		t.Error("another site's token read an order")
	}
}

// OrdersQuery.TosID finds the order with that tos_id, with its parcels;
// another site's or an unknown one finds none.
func TestOrdersByTosID(t *testing.T) {
	f := newFixture(t)
	tos := f.setup(t)
	tests := []struct {
		site, tos string
		want      []string // external ids, tracking numbers
	}{
		{"site-a", tos, []string{"ORD-1", "TN1"}},
		{"site-b", tos, nil},
		{"site-a", "tos_nope", nil},
	}
	for _, tt := range tests {
		res, err := f.svc.Orders(t.Context(), tt.site, OrdersQuery{TosID: tt.tos})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, o := range res.Orders {
			got = append(got, o.ExternalID)
			for _, p := range o.Parcels {
				got = append(got, p.TrackingNumber)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.site, tt.tos, diff)
		}
	}
}
