package notify

import (
	"time"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"golang.org/x/text/language"
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
	// Supersedes marks a step that moves the parcel on: the parcel's open
	// notifications caused by earlier events become CANCELLED, and those
	// of events older than it, reported late, are made CANCELLED.
	Supersedes bool
}

// DefaultPickupReminderDelay is how long after arrival at a pickup point
// RemindPickups reminds the customer by default (the catalog's default,
// catalog.DefaultPickupReminderDays).
const DefaultPickupReminderDelay = 72 * time.Hour

// DefaultRules are the rules used when Options.Rules is nil.
func DefaultRules() []Rule {
	stop := []Name{NamePickupReminder}
	return []Rule{
		{Trigger: "STEP_CONFIRMED_BY_MERCHANT", Name: NameConfirmedByMerchant},
		{Trigger: "STEP_SUBMITTED_TO_CARRIER", Name: NameSubmittedToCarrier},
		{Trigger: "ALERT_OUT_FOR_DELIVERY", Name: NameOutForDelivery},
		{Trigger: "ALERT_DELIVERY_ATTEMPT_FAILED", Name: NameDeliveryAttemptFailed},
		{Trigger: "STEP_DELIVERED_TO_PICKUP_POINT", Name: NameReadyForPickup, Supersedes: true},
		{Trigger: "STEP_DELIVERED_TO_CONSUMER", Name: NameDeliveredToConsumer, Cancels: stop, Supersedes: true},
		{Trigger: "STEP_TERMINATED", Cancels: stop, Supersedes: true},
		{Trigger: "STEP_SENT_BACK", Cancels: stop, Supersedes: true},
	}
}

// text returns the subject and body of a message in the language of tag,
// from the module's message catalog (notify.<NAME>.subject and .body); a
// name the catalog has no text for (a custom rule's) gets the generic one.
func text(tag language.Tag, name Name, trackingNumber, link string) (string, string) {
	prefix := "notify." + string(name)
	if key := prefix + ".subject"; i18n.Text(tag, key) == key {
		prefix = "notify.generic"
	}
	subject := i18n.Text(tag, prefix+".subject")
	body := i18n.Text(tag, prefix+".body", trackingNumber)
	if link != "" {
		body += " " + i18n.Text(tag, "notify.track_it", link)
	}
	return subject, body
}
