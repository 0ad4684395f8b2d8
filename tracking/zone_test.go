package tracking

import (
	"context"
	"errors"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// The order's time zone is the destination's, then the site's, then the
// sender's; its locale is the one it was registered with.
func TestOrderTimeZoneAndLocale(t *testing.T) {
	addr := func(country string) *Address { return &Address{City: "X", Country: country} }
	tests := []struct {
		name   string
		site   string
		edit   func(*CreateTrackingOrderRequest, *CreateParcelRequest)
		wantTZ string
	}{
		{"destination country", "site-a", func(o *CreateTrackingOrderRequest, _ *CreateParcelRequest) {}, "Europe/Stockholm"},
		{"parcel pickup point wins over the order", "site-a", func(_ *CreateTrackingOrderRequest, p *CreateParcelRequest) {
			p.Receiver = &ParcelReceiver{Name: "A", Destination: &ParcelDestination{Pickup: &Pickup{ID: "pp-9", Address: addr("FI")}}}
		}, "Europe/Helsinki"},
		{"receiver address when the destination names no country", "site-a", func(o *CreateTrackingOrderRequest, _ *CreateParcelRequest) {
			o.Destination.Address = &Address{City: "Oslo"}
			o.Receiver.Address = addr("NO")
		}, "Europe/Oslo"},
		{"a country outside the table falls back to the site's zone", "site-z", func(o *CreateTrackingOrderRequest, _ *CreateParcelRequest) {
			o.Destination.Address = addr("US")
			o.Sender.Address = addr("DE")
		}, "Europe/Copenhagen"},
		{"then to the sender's country", "site-a", func(o *CreateTrackingOrderRequest, _ *CreateParcelRequest) {
			o.Destination.Address = addr("US")
			o.Sender.Address = addr("DE")
		}, "Europe/Berlin"},
		{"none known", "site-a", func(o *CreateTrackingOrderRequest, _ *CreateParcelRequest) {
			o.Destination.Address = &Address{}
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			svc, err := New(memory.New(), Options{
				Products: testProducts, Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
				Sites: map[string]Site{"site-z": {Name: "Z", TimeZone: "Europe/Copenhagen"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			o := orderReq("ORD-1")
			o.Locale = "sv-SE"
			p := CreateParcelRequest{TrackingNumber: "TN1", CarrierProductRef: "fastpost-pickup", DirectionType: DirectionOutbound}
			tt.edit(&o, &p)
			id, err := svc.CreateOrder(ctx, tt.site, o)
			if err != nil {
				t.Fatal(err)
			}
			p.TosID = id
			if err := svc.CreateParcel(ctx, tt.site, p); err != nil {
				t.Fatal(err)
			}
			po, err := svc.OrderByToken(ctx, "tt_000003", "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([2]string{"sv-SE", tt.wantTZ}, [2]string{po.Locale, po.TimeZone}); diff != "" {
				t.Errorf("locale, time zone (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOrderLocaleValidated(t *testing.T) {
	f := newFixture(t)
	o := orderReq("ORD-1")
	o.Locale = "not a locale!"
	_, err := f.svc.CreateOrder(context.Background(), "site-a", o)
	var de *deliverykit.Error
	if !errors.As(err, &de) || len(de.Violations) != 1 || de.Violations[0].Field != "locale" {
		t.Fatalf("err = %v", err)
	}
}

func TestSiteTimeZoneChecked(t *testing.T) {
	_, err := New(memory.New(), Options{Products: testProducts, Sites: map[string]Site{"s": {TimeZone: "Mars/Olympus"}}})
	if err == nil {
		t.Fatal("New accepted an unknown time zone")
	}
}

// The observer is told the order's locale, so notifications speak it.
func TestChangeCarriesLocale(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	o := orderReq("ORD-1")
	o.Locale = "fi-FI"
	id, err := f.svc.CreateOrder(ctx, "site-a", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.CreateParcel(ctx, "site-a", CreateParcelRequest{TosID: id, TrackingNumber: "TN1", CarrierProductRef: "fastpost-pickup", DirectionType: DirectionOutbound}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-20T10:00:00Z", Alert: AlertOutForDelivery}); err != nil {
		t.Fatal(err)
	}
	if len(f.observed) != 1 || f.observed[0].Locale != "fi-FI" {
		t.Fatalf("observed = %+v", f.observed)
	}
}
