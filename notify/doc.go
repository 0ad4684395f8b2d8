// Package notify is area B of deliverykit: notifications to end customers
// about their parcels, which merchants list and send again through
// GET /notifications (by the order's external_id or the parcel's
// tracking_number, exactly one) and POST /notification.retrigger (package
// httpapi, under /v1/delivery_tracking).
//
//	svc, _ := notify.New(store, notify.Options{Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: mail}})
//	_ = svc.Observe(ctx, notify.Event{Site: site, ExternalID: "ORD-1", TrackingNumber: "FP123",
//		Trigger: "ALERT_OUT_FOR_DELIVERY", Time: at, Email: "alva@example.com"})
//	_, _ = svc.Step(ctx) // pickup reminders and due sends: wiring.Services.Run calls it every interval
//
// Rules map parcel steps and alerts, which tracking reports as
// event.ParcelChanged (HandleParcelChanged consumes them), to named
// notifications, one per channel that can reach the
// receiver (EMAIL needs an e-mail address, SMS a phone number, CEP_CHANNEL
// nothing) and that has a Sender. The default rules:
//
//	| trigger                          | notification            | notes                                 |
//	|----------------------------------|-------------------------|---------------------------------------|
//	| STEP_CONFIRMED_BY_MERCHANT       | CONFIRMED_BY_MERCHANT   |                                       |
//	| STEP_SUBMITTED_TO_CARRIER        | SUBMITTED_TO_CARRIER    |                                       |
//	| ALERT_OUT_FOR_DELIVERY           | OUT_FOR_DELIVERY        |                                       |
//	| ALERT_DELIVERY_ATTEMPT_FAILED    | DELIVERY_ATTEMPT_FAILED |                                       |
//	| STEP_DELIVERED_TO_PICKUP_POINT   | READY_FOR_PICKUP        | moves the parcel on                   |
//	| STEP_DELIVERED_TO_CONSUMER       | DELIVERED_TO_CONSUMER   | moves the parcel on                   |
//	| STEP_TERMINATED, STEP_SENT_BACK  | (none)                  | move the parcel on                    |
//
// A step that moves the parcel on (Rule.Supersedes) cancels the parcel's
// notifications still PENDING or FAILED that earlier events caused, and
// an event reported after such a step, though older, makes its
// notifications CANCELLED at once: the parcel moved on before they were
// sent (an "out for delivery" never arrives after "delivered").
//
// # Pickup reminders
//
// A parcel delivered to a pickup point (STEP_DELIVERED_TO_PICKUP_POINT)
// waits for its receiver; any later step ends the wait. RemindPickups(ctx,
// now) makes one PICKUP_REMINDER per channel for each parcel still waiting
// Options.PickupReminder after its arrival (the site catalog's
// notifications.pickup_reminder_days through CatalogPickupReminders; 3
// days by default), scheduled at the end of the wait; Dispatch sends it.
// Step calls both, on the injected clock, so a test moves a
// ManualClock and calls them, with no sleeping.
//
// # Language
//
// A message is written in the language of the order's locale
// (Event.Locale, which tracking takes from the order: the checkout's
// locale, or the locale a merchant registered the order with): English,
// Swedish, Norwegian Bokmål, Danish, Finnish or German, from the module's
// one message catalog, English for any other. Each name has its own
// subject and body (the tracking number in it), followed by the tracking
// link; a name of a custom rule without its own text gets a generic one.
// Message.Language names the language, and e-mails say it in their
// Content-Language header. A retriggered notification keeps the language
// of the one it copies.
//
// # States
//
//	| state     | trigger                                   | next state | effects                                   |
//	|-----------|-------------------------------------------|------------|-------------------------------------------|
//	| (none)    | a rule fires (origin SYSTEM)              | PENDING    | scheduled_at = event time + rule delay     |
//	| (none)    | Retrigger (origin RETRIGGER)              | PENDING    | scheduled_at = now; sent at once           |
//	| PENDING   | Dispatch at or after scheduled_at, sent   | TRIGGERED  | triggered_at = send time                  |
//	| PENDING   | Dispatch, the Sender fails                | FAILED     | retried after RetryBase·2^(n−1) ≤ RetryMax |
//	| FAILED    | Dispatch at the retry time, sent          | TRIGGERED  | triggered_at = send time                  |
//	| FAILED    | Dispatch at the retry time, fails again   | FAILED     | longer backoff                            |
//	| FAILED    | the MaxAttempts-th attempt fails          | FAILED     | final: no further attempt                 |
//	| PENDING,  | a cancelling event for the same parcel,   | CANCELLED  | never sent                                |
//	| FAILED    | or a step that moves the parcel on        |            |                                           |
//	| (none)    | an event older than such a step           | CANCELLED  | never sent                                |
//
// TRIGGERED, CANCELLED and FAILED after the last attempt are final. A
// failure is never dropped: it stays visible as FAILED, is retried up to
// Options.MaxAttempts times (DefaultMaxAttempts), and can be retriggered.
//
// # Sending
//
// The Service starts no goroutines. Dispatch sends what is due at the
// clock's time; Step (with the pickup reminders) is what
// wiring.Services.Run calls periodically. Tests call
// Dispatch with a ManualClock. Each notification is claimed in a
// transaction before it is sent and settled in another after, so sending
// never happens inside a transaction (which may run more than once) and two
// dispatchers do not send the same notification; a dispatcher that dies
// mid-send leaves a claim that expires after ClaimTimeout (at-least-once
// delivery).
//
// # Events
//
// Settling a send writes, in the same transaction, an event for the
// merchant's webhooks: event.NotificationSent when it was sent, and
// event.NotificationFailed after every failed attempt (the notification is
// then FAILED and retried; Attempts counts the attempts so far). Their
// subject is the tracking number of the parcel the notification is about,
// so a merchant gets it after the parcel change that caused it; a
// notification about no parcel has its order's external id. The payloads
// carry no recipient address, and a failure's Error is a fixed sentence
// per kind of failure ("the mail server refused the message (reply 550)"),
// never the Sender's error text. A send whose notification was cancelled
// or changed while it was under way is not settled and writes nothing.
//
// # Storage
//
// Collections: notify.notifications (site, id), notify.by_order (site,
// external id, id) and notify.by_parcel (site, tracking number, id) for
// listing, notify.due (next attempt, site, id) for Dispatch, notify.dedup
// (site, external id, tracking number, name, channel, event time), which
// makes observing the same event twice harmless, notify.parcels (site,
// external id, tracking number: when the parcel last moved on),
// notify.waiting (the same key: a parcel at a pickup point) and
// notify.reminders_due (reminder time, site, external id, tracking number)
// for RemindPickups. Notifications stored before notify.by_parcel existed
// are listed by external_id only.
package notify
