package tracking

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

func carrierEvent(t *testing.T, id, tn, step, alert string, at time.Time, est *event.TimeRange) event.Event {
	t.Helper()
	ev, err := event.New(id, "site-a", tn, at, event.CarrierEventReported{TrackingNumber: tn, ProductRef: "fastpost-pickup",
		Step: step, Alert: alert, Time: at, Estimate: est, Source: "simulator"})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// A carrier's event is recorded as POST /parcel.event records it: a step
// with the carrier's estimate, an alert, nothing twice; a parcel not
// registered yet is retried, an event the step rules refuse is dead at
// once.
func TestHandleCarrierEvent(t *testing.T) {
	f := newFixture(t)
	f.setup(t)
	ctx := context.Background()
	at := t0.Add(2 * time.Hour)
	est := &event.TimeRange{Earliest: time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), Latest: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	tests := []struct {
		name     string
		ev       event.Event
		fails    bool
		wantKind deliverykit.Kind // when it fails
		want     []string         // the parcel changes written
	}{
		{"a step with an estimate", carrierEvent(t, "e1", "TN1", "STEP_SUBMITTED_TO_CARRIER", "", at, est), false, 0,
			[]string{"STEP_SUBMITTED_TO_CARRIER", "ALERT_ESTIMATED_DELIVERY_TIME_UPDATED"}},
		{"the same again", carrierEvent(t, "e1", "TN1", "STEP_SUBMITTED_TO_CARRIER", "", at, est), false, 0, nil},
		{"an alert", carrierEvent(t, "e2", "TN1", "", "ALERT_DELIVERY_DELAYED_FROM_CARRIER", at.Add(time.Hour), nil), false, 0,
			[]string{"ALERT_DELIVERY_DELAYED_FROM_CARRIER"}},
		{"delivered", carrierEvent(t, "e3", "TN1", "STEP_DELIVERED_TO_CONSUMER", "", at.Add(48*time.Hour), nil), false, 0,
			[]string{"STEP_DELIVERED_TO_CONSUMER"}},
		{"a step after the final one never applies", carrierEvent(t, "e4", "TN1", "STEP_ON_ROUTE", "", at.Add(50*time.Hour), nil),
			true, deliverykit.KindInvalidArgument, nil},
		{"a parcel not registered yet is retried", carrierEvent(t, "e5", "TN9", "STEP_ON_ROUTE", "", at, nil), true, deliverykit.KindNotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(f.observed)
			err := f.svc.HandleCarrierEvent(ctx, tt.ev)
			switch {
			case !tt.fails && err != nil:
				t.Fatalf("err = %v", err)
			case tt.fails && (err == nil || deliverykit.KindOf(err) != tt.wantKind):
				t.Fatalf("err = %v, want kind %v", err, tt.wantKind)
			}
			var got []string
			for _, c := range f.observed[before:] {
				got = append(got, c.Step+c.Alert)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
	res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Parcels[0]
	if diff := cmp.Diff(&DateTimeRange{Start: "2026-11-23T00:00:00Z", End: "2026-11-24T00:00:00Z"}, p.EstimatedDeliveryTime); diff != "" {
		t.Errorf("estimate (-want +got):\n%s", diff)
	}
	if _, err := event.Decode[event.CarrierEventReported](event.Event{Type: event.TypeParcelChanged}); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("decoding another type: %v", err)
	}
}
