package notify

import (
	"fmt"
	"time"
)

// Rule maps a parcel step or alert to a notification. A rule without a Name
// only cancels.
type Rule struct {
	// Trigger is the step or alert value that fires the rule.
	Trigger string
	// Name is the notification made, one per channel that can reach the
	// receiver. Empty: none.
	Name Name
	// Delay schedules the notification after the event's time (a pickup
	// reminder some days after arrival at the pickup point).
	Delay time.Duration
	// Cancels lists names whose PENDING or FAILED notifications of the same
	// parcel become CANCELLED: a pickup reminder is pointless once the
	// parcel was picked up.
	Cancels []Name
}

// DefaultPickupReminderDelay is how long after arrival at a pickup point the
// default rules remind the customer.
const DefaultPickupReminderDelay = 72 * time.Hour

// DefaultRules are the rules used when Options.Rules is nil.
func DefaultRules() []Rule {
	stop := []Name{NamePickupReminder}
	return []Rule{
		{Trigger: "STEP_CONFIRMED_BY_MERCHANT", Name: NameConfirmedByMerchant},
		{Trigger: "STEP_SUBMITTED_TO_CARRIER", Name: NameSubmittedToCarrier},
		{Trigger: "ALERT_OUT_FOR_DELIVERY", Name: NameOutForDelivery},
		{Trigger: "ALERT_DELIVERY_ATTEMPT_FAILED", Name: NameDeliveryAttemptFailed},
		{Trigger: "STEP_DELIVERED_TO_PICKUP_POINT", Name: NameReadyForPickup},
		{Trigger: "STEP_DELIVERED_TO_PICKUP_POINT", Name: NamePickupReminder, Delay: DefaultPickupReminderDelay},
		{Trigger: "STEP_DELIVERED_TO_CONSUMER", Name: NameDeliveredToConsumer, Cancels: stop},
		{Trigger: "STEP_TERMINATED", Cancels: stop},
		{Trigger: "STEP_SENT_BACK", Cancels: stop},
	}
}

// texts are the default English subject and body of each name. %s is the
// tracking number.
var texts = map[Name][2]string{
	NameConfirmedByMerchant:   {"Your order is confirmed", "Your order is confirmed and is being prepared. Parcel %s."},
	NameSubmittedToCarrier:    {"Your parcel is on its way", "Your parcel %s has been handed to the carrier."},
	NameOutForDelivery:        {"Your parcel is out for delivery", "Your parcel %s is out for delivery today."},
	NameDeliveryAttemptFailed: {"We missed you", "The carrier could not deliver your parcel %s. A new attempt will be made."},
	NameReadyForPickup:        {"Your parcel is ready for pickup", "Your parcel %s is waiting at the pickup point."},
	NamePickupReminder:        {"Reminder: your parcel is waiting", "Your parcel %s is still waiting at the pickup point."},
	NameDeliveredToConsumer:   {"Your parcel has been delivered", "Your parcel %s has been delivered."},
}

// text returns the subject and body of a message; unknown names get a
// generic text.
func text(name Name, trackingNumber, link string) (string, string) {
	t, ok := texts[name]
	if !ok {
		t = [2]string{"News about your parcel", "There is news about your parcel %s."}
	}
	body := fmt.Sprintf(t[1], trackingNumber)
	if link != "" {
		body += " Track it: " + link
	}
	return t[0], body
}
