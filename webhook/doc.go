// Package webhook tells merchants what happened, by signed HTTP POSTs to
// the endpoints each site configures: orders completed, parcels booked,
// moving and picked up, customer notifications sent or failed, returns
// and refunds changing.
//
// Endpoints are configuration (config.Site.Webhooks): an id, an https URL,
// one or two secrets and the event types wanted.
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
// # Delivery
//
// Handle records, for each endpoint subscribed to an event's type, a
// delivery in the service's own queue; Run sends them. Deliveries are at
// least once: a receiver may see an event twice and should apply it once
// per webhook-id. They are in order per endpoint and subject (the order,
// parcel or return the event is about): a delivery waits while an earlier
// one of its subject to the same endpoint is pending or retrying.
//
// An answer 2xx is success. 410 Gone disables the endpoint (Enable turns it
// on again) and its pending deliveries die. Anything else (another status,
// a redirect, which is never followed, a timeout, a refused connection) is
// retried with exponential backoff and jitter, up to Options.MaxAttempts;
// then the delivery is dead, logged at ERROR, and listed as such
// (Deliveries) until Redeliver sends it again. Each attempt has
// Options.Timeout (10 s, of which Options.ConnectTimeout, 5 s, to
// connect); at most MaxResponseBytes of an answer are read.
//
// # Fairness
//
// No endpoint's slowness delays another's deliveries. Run keeps
// Options.Concurrency attempts (16) in flight, refilling the pool as each
// one ends, and picks what is due round-robin across sites, then across
// each site's endpoints. An endpoint has at most Options.PerEndpoint
// attempts in flight (1), a site's endpoints together at most
// Options.PerSite (half the pool): a receiver that takes requests and
// never answers holds one worker until the timeout, not the others.
// After Options.BreakerThreshold failed attempts in a row (5) an endpoint
// is paused for Options.BreakerCooldown (a minute): its due deliveries
// move to the end of the pause without an attempt counted, then one
// attempt probes it; success resumes it, failure pauses it again. Pauses
// are per process. When a delivery is settled, the next one of its
// subject starts at once; retries are found when they are due, at the
// latest at Run's interval. Dispatch applies the same limits to one
// look at what is due and waits for it.
//
// Redeliver answers a redelivery of the event that is still pending
// instead of queueing another, and queues at most RedeliverLimit (10)
// per endpoint per RedeliverWindow (a minute): each keeps a copy of the
// body for Options.Retention.
//
// Event ids the outbox gives and delivery ids ("dlv_…") are random and
// sorted by time: a receiver learns nothing from them about other
// sites.
//
// Requests go only to configured endpoints, through a dialer that refuses
// loopback, private, link-local and other non-public addresses (checked on
// the address dialled, after name resolution) unless Options.AllowPrivate
// is set; environment proxies are not used.
//
// # Signatures
//
// Requests follow the Standard Webhooks scheme: headers webhook-id (the
// event id), webhook-timestamp (Unix seconds of the attempt) and
// webhook-signature, "v1,<base64 HMAC-SHA256 of id.timestamp.body>" keyed
// with the secret's bytes (the base64 after "whsec_"); with two secrets,
// two signatures separated by a space. Any Standard Webhooks library
// verifies them; in Go, Verify does:
//
//	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
//	if err := webhook.Verify(body, r.Header, time.Now(), secret); err != nil {
//		http.Error(w, "bad signature", http.StatusUnauthorized)
//		return
//	}
//
// # Body
//
// The body is JSON: {"type", "timestamp", "data"}, where data is the
// event's payload (package event) with "site" and "subject" added.
// Payloads only gain fields; receivers should ignore fields they do not
// know.
//
// # Event catalogue
//
// The event types, who emits them, and an example body of each.
//
// order.completed — checkout (C), delivery session (D). A checkout session, or one delivery of a delivery session, was completed: an order to ship. Subject: the order's tos_id.
//
//	{
//	  "type": "order.completed",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "tos_7f3a",
//	    "tos_id": "tos_7f3a",
//	    "external_id": "SO-10071",
//	    "session_id": "cs_91b2",
//	    "source": "checkout",
//	    "option_id": "home/north-parcel-home",
//	    "completed_at": "2025-03-14T09:30:00Z",
//	    "locale": "sv-SE",
//	    "country": "SE",
//	    "currency": "SEK",
//	    "product_ref": "north-parcel-point",
//	    "delivery_type": "pickup",
//	    "warehouse": {
//	      "city": "Haninge",
//	      "country": "SE",
//	      "postal_code": "13631",
//	      "street": "Lagervägen",
//	      "street_number": "4"
//	    },
//	    "customer": {
//	      "name": "Alva Berg",
//	      "email": "alva@example.com",
//	      "phone": "+46701234567"
//	    },
//	    "customer_address": {
//	      "city": "Stockholm",
//	      "country": "SE",
//	      "postal_code": "11122",
//	      "street": "Storgatan",
//	      "street_number": "12"
//	    },
//	    "pickup": {
//	      "external_id": "NP-4471",
//	      "type": "store",
//	      "address": {
//	        "city": "Stockholm",
//	        "country": "SE",
//	        "name": "Corner Shop Storgatan",
//	        "postal_code": "11123",
//	        "street": "Storgatan",
//	        "street_number": "30"
//	      }
//	    },
//	    "cart": {
//	      "total": 189900,
//	      "discount": 0,
//	      "items": [
//	        {
//	          "sku": "TENT-2P",
//	          "name": "Tent, 2 persons",
//	          "quantity": 1,
//	          "price": 189900
//	        }
//	      ]
//	    },
//	    "shipping_price": 4900,
//	    "promise": {
//	      "earliest": "2025-03-15T09:30:00Z",
//	      "latest": "2025-03-17T09:30:00Z"
//	    }
//	  }
//	}
//
// parcel.booked — shipments (F). A shipment delivery was booked with its carrier and has a tracking number. Subject: the tracking number.
//
//	{
//	  "type": "parcel.booked",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "CP000000014SE",
//	    "shipment_id": "shp_52c1",
//	    "delivery_id": "shp_52c1-P1-D1",
//	    "order_external_id": "SO-10071",
//	    "tracking_number": "CP000000014SE",
//	    "product_ref": "north-parcel-point",
//	    "direction": "OUTBOUND",
//	    "delivery_type": "PICKUP",
//	    "sender": {
//	      "name": "Demo Outdoor Store"
//	    },
//	    "sender_address": {
//	      "city": "Haninge",
//	      "country": "SE",
//	      "postal_code": "13631",
//	      "street": "Lagervägen",
//	      "street_number": "4"
//	    },
//	    "receiver": {
//	      "name": "Alva Berg",
//	      "email": "alva@example.com",
//	      "phone": "+46701234567"
//	    },
//	    "receiver_address": {
//	      "city": "Stockholm",
//	      "country": "SE",
//	      "postal_code": "11122",
//	      "street": "Storgatan",
//	      "street_number": "12"
//	    },
//	    "currency": "SEK",
//	    "items": [
//	      {
//	        "sku": "TENT-2P",
//	        "name": "Tent, 2 persons",
//	        "quantity": 1,
//	        "price": 189900
//	      }
//	    ],
//	    "booked_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// parcel.changed — tracking (A). A tracked parcel has a new step (step) or a new alert (alert). Subject: the tracking number.
//
//	{
//	  "type": "parcel.changed",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "CP000000014SE",
//	    "tos_id": "tos_7f3a",
//	    "external_id": "SO-10071",
//	    "tracking_number": "CP000000014SE",
//	    "step": "OUT_FOR_DELIVERY",
//	    "time": "2025-03-14T09:30:00Z",
//	    "delivery_type": "PICKUP",
//	    "receiver": {
//	      "name": "Alva Berg",
//	      "email": "alva@example.com",
//	      "phone": "+46701234567"
//	    },
//	    "tracking_link": "https://track.example.com/tracking/tk_8d1e",
//	    "locale": "sv-SE",
//	    "direction": "OUTBOUND"
//	  }
//	}
//
// notification.sent — notifications (B). A customer notification was sent. Subject: the parcel's tracking number, else the order's external id.
//
//	{
//	  "type": "notification.sent",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "CP000000014SE",
//	    "notification_id": "ntf_0c4d",
//	    "name": "OUT_FOR_DELIVERY",
//	    "channel": "EMAIL",
//	    "external_id": "SO-10071",
//	    "tracking_number": "CP000000014SE",
//	    "language": "sv",
//	    "attempts": 1,
//	    "at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// notification.failed — notifications (B). An attempt to send a customer notification failed; it is retried (with backoff) until it is sent or cancelled. Subject: the parcel's tracking number, else the order's external id.
//
//	{
//	  "type": "notification.failed",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "CP000000014SE",
//	    "notification_id": "ntf_0c4e",
//	    "name": "DELIVERED",
//	    "channel": "SMS",
//	    "external_id": "SO-10071",
//	    "tracking_number": "CP000000014SE",
//	    "language": "sv",
//	    "attempts": 2,
//	    "error": "the SMS gateway refused the number",
//	    "at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// delivery.picked_up — shipments (F). The carrier collected a booked delivery; it can no longer be cancelled. Subject: the tracking number.
//
//	{
//	  "type": "delivery.picked_up",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "CP000000014SE",
//	    "shipment_id": "shp_52c1",
//	    "delivery_id": "shp_52c1-P1-D1",
//	    "order_external_id": "SO-10071",
//	    "tracking_number": "CP000000014SE",
//	    "product_ref": "north-parcel-point",
//	    "picked_up_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// return.created — returns (E). A customer created a return. Subject: the return id.
//
//	{
//	  "type": "return.created",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "1042",
//	    "return_id": "1042",
//	    "order_external_id": "SO-10071",
//	    "status": "AWAITING_RETURN",
//	    "currency": "SEK",
//	    "items": [
//	      {
//	        "line_item_id": "line-1",
//	        "sku": "TENT-2P",
//	        "quantity": 1,
//	        "status": "AWAITING_RETURN"
//	      }
//	    ],
//	    "status_url": "https://track.example.com/returns/customer/return/rt_3kq2",
//	    "changed_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// return.status_changed — returns (E). A return's status changed (previous_status → status). Subject: the return id.
//
//	{
//	  "type": "return.status_changed",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "1042",
//	    "return_id": "1042",
//	    "order_external_id": "SO-10071",
//	    "status": "IN_TRANSIT",
//	    "previous_status": "AWAITING_RETURN",
//	    "currency": "SEK",
//	    "items": [
//	      {
//	        "line_item_id": "line-1",
//	        "sku": "TENT-2P",
//	        "quantity": 1,
//	        "status": "AWAITING_RETURN"
//	      }
//	    ],
//	    "status_url": "https://track.example.com/returns/customer/return/rt_3kq2",
//	    "changed_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// return.items_received — returns (E). The warehouse received items of a return (items[].received_at): its return parcel was delivered (items AWAITING_INSPECTION), or the merchant reported items. Subject: the return id.
//
//	{
//	  "type": "return.items_received",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "1042",
//	    "return_id": "1042",
//	    "order_external_id": "SO-10071",
//	    "status": "AWAITING_REFUND",
//	    "previous_status": "IN_TRANSIT",
//	    "currency": "SEK",
//	    "items": [
//	      {
//	        "line_item_id": "line-1",
//	        "sku": "TENT-2P",
//	        "quantity": 1,
//	        "status": "RETURNED",
//	        "received_at": "2025-03-14T07:30:00Z"
//	      }
//	    ],
//	    "status_url": "https://track.example.com/returns/customer/return/rt_3kq2",
//	    "changed_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// refund.changed — returns (E). A return's refund changed (refund.status, refund.amount). Subject: the return id.
//
//	{
//	  "type": "refund.changed",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "1042",
//	    "return_id": "1042",
//	    "order_external_id": "SO-10071",
//	    "status": "COMPLETED",
//	    "previous_status": "AWAITING_REFUND",
//	    "currency": "SEK",
//	    "items": [
//	      {
//	        "line_item_id": "line-1",
//	        "sku": "TENT-2P",
//	        "quantity": 1,
//	        "status": "RETURNED",
//	        "received_at": "2025-03-14T07:30:00Z"
//	      }
//	    ],
//	    "refund": {
//	      "status": "REFUNDED",
//	      "amount": 189900,
//	      "id": "7",
//	      "transaction_status": "SUCCESS",
//	      "foreign_id": "re_3f9a"
//	    },
//	    "status_url": "https://track.example.com/returns/customer/return/rt_3kq2",
//	    "changed_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// carrier.event_reported — carrier integrations (the built-in simulator). A carrier reported a step or an alert of a parcel, as its integration received it; tracking applies it, and a parcel.changed follows when the parcel changed. Subject: the tracking number.
//
//	{
//	  "type": "carrier.event_reported",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "CP000000014SE",
//	    "tracking_number": "CP000000014SE",
//	    "product_ref": "north-parcel-point",
//	    "step": "STEP_SUBMITTED_TO_CARRIER",
//	    "time": "2025-03-14T09:30:00Z",
//	    "estimate": {
//	      "earliest": "2025-03-15T09:30:00Z",
//	      "latest": "2025-03-17T09:30:00Z"
//	    },
//	    "source": "simulator"
//	  }
//	}
//
// return.shipment_requested — returns (E). A return needs its return parcel booked (the site's return policy names a return product); the shipments area books it, and a parcel.booked with direction RETURN follows. Subject: the return id.
//
//	{
//	  "type": "return.shipment_requested",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "1042",
//	    "return_id": "1042",
//	    "shipment_external_id": "return-1042",
//	    "order_external_id": "SO-10071",
//	    "product_ref": "north-parcel-point",
//	    "sender": {
//	      "name": "Alva Berg",
//	      "email": "alva@example.com",
//	      "phone": "+46701234567"
//	    },
//	    "sender_address": {
//	      "city": "Stockholm",
//	      "country": "SE",
//	      "postal_code": "11122",
//	      "street": "Storgatan",
//	      "street_number": "12"
//	    },
//	    "requested_at": "2025-03-14T09:30:00Z"
//	  }
//	}
//
// return.complaint_decided — returns (E). The merchant approved or rejected a customer's complaint about a returned line (items[].complaint_status). Subject: the return id.
//
//	{
//	  "type": "return.complaint_decided",
//	  "timestamp": "2025-03-14T09:30:00Z",
//	  "data": {
//	    "site": "demo-site",
//	    "subject": "1042",
//	    "return_id": "1042",
//	    "order_external_id": "SO-10071",
//	    "status": "AWAITING_REFUND",
//	    "previous_status": "AWAITING_REFUND",
//	    "currency": "SEK",
//	    "items": [
//	      {
//	        "line_item_id": "line-1",
//	        "sku": "TENT-2P",
//	        "quantity": 1,
//	        "status": "RETURNED",
//	        "received_at": "2025-03-14T07:30:00Z",
//	        "complaint_status": "APPROVED"
//	      }
//	    ],
//	    "status_url": "https://track.example.com/returns/customer/return/rt_3kq2",
//	    "changed_at": "2025-03-14T09:30:00Z"
//	  }
//	}
package webhook
