// Package webhook tells merchants what happened, by signed HTTP POSTs to
// the endpoints each site configures (config.Site.Webhooks: an id, an
// https URL, one or two secrets, the event types wanted): orders
// completed, parcels booked, moving and picked up, notifications sent or
// failed, returns and refunds changing.
//
//	svc, err := webhook.New(store, webhook.Options{Endpoints: cfg.Webhooks()})
//	for _, t := range event.Types {
//		dispatcher.Handle(t, "webhook", svc.Handle) // the outbox's consumer
//	}
//	go svc.Run(ctx, 10*time.Second) // sends, retries, gives up (wiring.Services.Run does)
//
// Settled deliveries are deleted Options.Retention after they settled by
// Sweep, which the retention sweeper calls (package retention).
//
// # Guarantees
//
//   - Delivery: Handle records one delivery per subscribed endpoint, once
//     per event; Run sends it at least once, so a receiver applies an
//     event once per webhook-id. 2xx is success; 410 Gone disables the
//     endpoint (Enable turns it on again); anything else, redirects and
//     timeouts included, is retried.
//   - Order: per endpoint and subject (the order, parcel or return the
//     event is about), a delivery waits until the earlier one is settled.
//   - Retries: exponential backoff with jitter up to Options.MaxAttempts,
//     then the delivery is dead: logged at ERROR, listed by Deliveries,
//     sent again by Redeliver (at most RedeliverLimit per endpoint per
//     RedeliverWindow). Each attempt has Options.Timeout, of which
//     Options.ConnectTimeout to connect.
//   - Fairness: no endpoint's slowness delays another's deliveries. Run
//     keeps Options.Concurrency attempts in flight, round-robin across
//     sites and their endpoints, at most Options.PerEndpoint per endpoint
//     and Options.PerSite per site; after Options.BreakerThreshold
//     failures in a row an endpoint pauses for Options.BreakerCooldown,
//     without counting attempts, then one attempt probes it.
//   - Signature: the Standard Webhooks scheme (headers webhook-id,
//     webhook-timestamp, webhook-signature; two secrets, two signatures),
//     which any Standard Webhooks library verifies.
//
// In Go, [Verify] checks a delivery:
//
//	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
//	if err := webhook.Verify(body, r.Header, time.Now(), secret); err != nil {
//		http.Error(w, "bad signature", http.StatusUnauthorized)
//		return
//	}
//
// Requests go only to configured endpoints, through a dialer that refuses
// non-public addresses after name resolution unless Options.AllowPrivate;
// event and delivery ids are random, so a receiver learns nothing about
// other sites.
//
// # Body and events
//
// The body is JSON {"type", "timestamp", "data"}: data is the event's
// payload (package event) with "site" and "subject" added. Payloads only
// gain fields; receivers ignore fields they do not know. Every event type,
// who emits it and an example body is in [Catalogue], from which the
// catalogue of docs/WEBHOOKS.md (the receiver's guide) is generated.
package webhook
