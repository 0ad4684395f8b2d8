package tracking

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An estimated_time sent with an awaiting-supplier or linehaul alert is
// that alert's payload: the parcel's delivery estimate stays and no
// ALERT_ESTIMATED_DELIVERY_TIME_UPDATED is raised. With any other event it
// is the delivery estimate.
func TestEstimatePayloadAlerts(t *testing.T) {
	carrierEst := &DateTimeRange{Start: "2026-11-23T08:00:00Z", End: "2026-11-23T18:00:00Z"}
	payload := &DateTimeRange{Start: "2026-11-25T08:00:00Z", End: "2026-11-25T12:00:00Z"}
	tests := []struct {
		name         string
		alert        AlertType
		wantEstimate *DateTimeRange
		wantTypes    []AlertType
	}{
		{"awaiting supplier", AlertAwaitingSupplier, carrierEst, []AlertType{AlertAwaitingSupplier}},
		{"linehaul", AlertLinehaulToCarrier, carrierEst, []AlertType{AlertLinehaulToCarrier}},
		{"out for delivery", AlertOutForDelivery, payload, []AlertType{AlertEstimatedDeliveryTimeUpdated, AlertOutForDelivery}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := t.Context()
			id, err := f.svc.CreateOrder(ctx, "site-a", CreateTrackingOrderRequest{ExternalID: "ORD-E", CarrierProductRef: "fastpost-home",
				Sender: &Sender{Name: "Shop A"}, Receiver: &Receiver{Name: "Alva Berg"},
				Destination: &Destination{Address: &Address{Country: "SE"}}, DeliveryType: OrderDeliveryDelivery})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.svc.CreateParcel(ctx, "site-a", CreateParcelRequest{TosID: id, TrackingNumber: "TN1", CarrierProductRef: "fastpost-home", DirectionType: DirectionOutbound}); err != nil {
				t.Fatal(err)
			}
			if err := f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-21T09:00:00Z", Step: StepSubmittedToCarrier, EstimatedTime: carrierEst}); err != nil {
				t.Fatal(err)
			}
			f.observed = nil
			if err := f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Time: "2026-11-21T10:00:00Z", Alert: tt.alert, EstimatedTime: payload}); err != nil {
				t.Fatal(err)
			}
			res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Parcels[0]
			if diff := cmp.Diff(tt.wantEstimate, p.EstimatedDeliveryTime); diff != "" {
				t.Errorf("estimated_delivery_time (-want +got):\n%s", diff)
			}
			var types []AlertType
			for _, a := range p.Alerts {
				types = append(types, a.Type)
				if a.Type == tt.alert && (a.AwaitingSupplier != nil || a.Linehaul != nil) {
					want := &EstimatePayload{EstimatedTime: &EstimatedTime{Earliest: payload.Start, Latest: payload.End}, EstimatedTimeRange: payload}
					got := a.AwaitingSupplier
					if got == nil {
						got = a.Linehaul
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("payload (-want +got):\n%s", diff)
					}
				}
			}
			if diff := cmp.Diff(tt.wantTypes, types); diff != "" {
				t.Errorf("alerts (-want +got):\n%s", diff)
			}
			var changed []string
			for _, c := range f.observed {
				changed = append(changed, c.Alert)
			}
			var want []string
			for _, a := range tt.wantTypes {
				want = append(want, string(a))
			}
			if diff := cmp.Diff(want, changed); diff != "" {
				t.Errorf("parcel changes (-want +got):\n%s", diff)
			}
		})
	}
}
