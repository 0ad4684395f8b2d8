package page

import (
	"slices"
	"time"

	"github.com/deliverykit/deliverykit/tracking"
)

// currency says how long an alert of one type is shown (see the package
// documentation's table). An alert is current from its created_at until
// the first of its ends.
type currency struct {
	// day ends it with its local calendar day, in the delivery's zone:
	// "out for delivery today" is stale tomorrow.
	day bool
	// maxAge ends it this long after it was raised (0: never).
	maxAge time.Duration
	// steps ends it at a later progress step in the set; nil: any later
	// step, since the parcel has moved on from what the alert says.
	steps map[tracking.Step]bool
	// alerts ends it at a later alert of these types.
	alerts []tracking.AlertType
}

var (
	// deliveredOrStopped are the steps after which a delay no longer
	// matters: the parcel arrived, or it will not arrive.
	deliveredOrStopped = map[tracking.Step]bool{
		tracking.StepDeliveredToPickupPoint: true, tracking.StepDeliveredToConsumer: true,
		tracking.StepTerminated: true, tracking.StepSentBack: true, tracking.StepDeliveredToMerchant: true,
	}
	// atCarrier are the steps that show the parcel reached the carrier.
	atCarrier = map[tracking.Step]bool{
		tracking.StepSubmittedToCarrier: true, tracking.StepOnRoute: true,
		tracking.StepDeliveredToPickupPoint: true, tracking.StepDeliveredToConsumer: true,
		tracking.StepTerminated: true, tracking.StepSentBack: true, tracking.StepDeliveredToMerchant: true,
	}
)

// alertCurrency is the one table of how long each alert type is current;
// a type not listed is current until any later step.
var alertCurrency = map[tracking.AlertType]currency{
	tracking.AlertOutForDelivery:               {day: true},
	tracking.AlertDeliveryAttemptFailed:        {maxAge: 72 * time.Hour, alerts: []tracking.AlertType{tracking.AlertOutForDelivery}},
	tracking.AlertEstimatedDeliveryTimeUpdated: {maxAge: 24 * time.Hour},
	tracking.AlertDeliveryDelayed:              {steps: deliveredOrStopped},
	tracking.AlertDeliveryDelayedFromCarrier:   {steps: deliveredOrStopped},
	tracking.AlertSubmissionDelayed:            {steps: atCarrier},
}

// current reports whether the page shows alert a of parcel p at now. An
// alert whose time cannot be read is shown: hiding it would hide news.
func current(a tracking.Alert, p *tracking.PrivateParcel, now time.Time, loc *time.Location) bool {
	at, err := time.Parse(time.RFC3339Nano, a.CreatedAt)
	if err != nil {
		return true
	}
	c := alertCurrency[a.Type]
	if c.day {
		y1, m1, d1 := at.In(loc).Date()
		y2, m2, d2 := now.In(loc).Date()
		if y1 != y2 || m1 != m2 || d1 != d2 {
			return false
		}
	}
	if c.maxAge > 0 && now.Sub(at) >= c.maxAge {
		return false
	}
	for _, it := range p.Progress {
		t, err := time.Parse(time.RFC3339Nano, it.Time)
		if err == nil && t.After(at) && (c.steps == nil || c.steps[it.Step]) {
			return false
		}
	}
	for _, later := range p.Alerts {
		t, err := time.Parse(time.RFC3339Nano, later.CreatedAt)
		if err == nil && t.After(at) && slices.Contains(c.alerts, later.Type) {
			return false
		}
	}
	return true
}
