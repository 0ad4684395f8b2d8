// Package tracking is area A of deliverykit: tracking orders, their
// parcels, the parcels' progress steps and alerts, and the customer tracking
// links (served under /v1/delivery_tracking by package httpapi).
//
// A merchant (or checkout, a delivery session or shipment booking, through
// their own recorder interfaces) registers an order with CreateOrder and its
// parcels with CreateParcel; carriers report events with RecordEvent; the
// merchant reads with Orders and Parcels and hands customers the link
// GenerateLink makes. The link opens the customer page, which reads the
// order with OrderByToken.
//
//	svc, _ := tracking.New(store, tracking.Options{Products: products, PortalURL: "https://track.example"})
//	tos, _ := svc.CreateOrder(ctx, site, tracking.CreateTrackingOrderRequest{ExternalID: "ORD-1001", …})
//	_ = svc.CreateParcel(ctx, site, tracking.CreateParcelRequest{TosID: tos, TrackingNumber: "FP123", …})
//	_ = svc.RecordEvent(ctx, site, tracking.Event{TrackingNumber: "FP123", Time: "2026-11-21T07:30:00Z", Step: tracking.StepOnRoute})
//	res, _ := svc.Parcels(ctx, site, tracking.ParcelsQuery{TrackingNumber: "FP123"})
//
// # Identity and idempotency
//
// An order's id (tos_id) is made when it is registered. external_id is
// unique per site: registering it again with an identical request returns
// the first id, with different content it is a Conflict. A tracking number
// is unique per site and carrier (the carrier of carrier_product_ref); an
// identical repeat is accepted, a different one is a Conflict.
//
// Every order gets a token of 128 random bits when it is registered; the
// portal link is PortalURL + PagePath + token (+ "?locale=…"). The token
// reaches one order of one site and nothing else; GET /parcels?token= with
// another site's key is not found.
//
// # Locale and time zone
//
// An order may carry the customer's locale (an extension of POST /order;
// checkouts and delivery sessions set it): observers get it with every
// Change, so notifications speak it, and the customer page uses it when
// its link names no locale. PrivateOrder.TimeZone is the delivery's time
// zone for showing times: the destination's country's (single-zone
// countries the catalogs serve), else Site.TimeZone, else the sender's
// country's.
//
// # Link lifetime and rotation
//
// A token works for Options.LinkLifetime (DefaultLinkLifetime, 90 days)
// after it was last handed out: at registration, by GenerateLink (whose
// answer carries expires_at) and with every step or alert written to the
// outbox, whose notifications carry the link. An expired token is
// NotFound with ErrLinkExpired as its cause; the customer page answers it
// with 410 Gone and a page that tells the customer to ask the shop for a
// new link, never with the order. GenerateLink replaces an expired token
// with a new one, and with rotate: true (an extension of the request)
// replaces a live one, for example after a link went to the wrong person:
// links handed out before then show the expired page.
//
// # Carts
//
// Cart amounts are int32 minor units on the wire, and so are the sums the
// customer page shows (items_price, items_discount, price). Registration
// refuses, naming the field with rule "overflow", a cart whose
// price × quantity or discount × quantity of an item (cart.items[1].quantity,
// cart.items[1].discount), whose sums over the items (cart.items) or whose
// total + shipping_price (cart.shipping_price) exceed 2147483647: a
// wrapped sum would show a negative price.
//
// # Items
//
// The cart's items (PrivateOrder.cart.items) take their details from the
// parcels: the properties of the first parcel line item with the item's
// SKU are its attributes; "color" (or "colour") and "size" its variant;
// and each property one display attribute, sorted by key, labelled in the
// order's language for the keys the message catalog knows (color, size,
// material) and with the key itself for others. POST
// /order.lines_cancelled (an extension; CancelOrderLines) records how
// many items of each SKU the merchant cancelled so far: cancelled_quantity
// and cancelled_total_price show them, quantity and total_price what is
// still coming. The cart's totals stay those registered.
//
// # Progress steps
//
// A step event appends a ProgressItem placed by its time: carriers deliver
// events late and out of order. An event already recorded (same step, same
// instant) is ignored and not passed to the observer. GET /parcels lists
// progress_history newest first, as tracking clients read it, and
// current_progress is its first element, the latest step by time;
// PrivateParcel.progress (GET /orders) keeps time order, oldest first. "Out for delivery" and "delivery attempt failed"
// are alerts, not steps.
//
// Any step may follow any other (parcels go back on route after a failed
// pickup-point delivery, are re-submitted, and so on) except:
//
//	| rule                                   | steps                                                             | outcome                  |
//	|----------------------------------------|-------------------------------------------------------------------|--------------------------|
//	| return steps on an OUTBOUND parcel     | RETURN_REQUESTED, RETURN_APPROVED, RETURN_DECLINED,               | FailedPrecondition (400) |
//	|                                        | RETURN_COMPLETED, REPLACEMENT_SENT, RETURN_CANCELLED              |                          |
//	| merchant/delivery steps on a RETURN    | CONFIRMED_BY_MERCHANT, PREPARED_BY_MERCHANT, AWAITING_SUPPLIER,   | FailedPrecondition (400) |
//	| parcel                                 | LINEHAUL_TO_CARRIER, DELIVERED_TO_PICKUP_POINT,                   |                          |
//	|                                        | DELIVERED_TO_CONSUMER                                             |                          |
//	| nothing after a final step (by time)   | final: DELIVERED_TO_CONSUMER, TERMINATED, RETURN_DECLINED,        | FailedPrecondition (400) |
//	|                                        | RETURN_CANCELLED, REPLACEMENT_SENT, and DELIVERED_TO_MERCHANT     |                          |
//	|                                        | on OUTBOUND parcels (a RETURN parcel may still be completed)      |                          |
//	| a final step dated before a recorded   | as above                                                          | FailedPrecondition (400) |
//	| step                                   |                                                                   |                          |
//	| STEP_UNKNOWN or a value not a Step     |                                                                   | InvalidArgument (400)    |
//
// Parcels of direction UNKNOWN_DIRECTION_TYPE or UNSPECIFIED accept both
// outbound and return steps. A refused event changes nothing.
//
// # Alerts
//
// Alerts carry created_at and the payload object named after their type.
//
//   - Reported by the carrier as {"alert": …}: ALERT_OUT_FOR_DELIVERY,
//     ALERT_DELIVERY_ATTEMPT_FAILED, ALERT_DELIVERY_DELAYED_FROM_CARRIER,
//     ALERT_AWAITING_SUPPLIER and ALERT_LINEHAUL_TO_CARRIER (these two with
//     the event's estimated_time as payload), created_at = event time.
//   - ALERT_ESTIMATED_DELIVERY_TIME_UPDATED: an event's estimated_time
//     differs from the current estimate (the carrier's last, else the
//     merchant's promise). The estimated_time of an awaiting-supplier or
//     linehaul alert is that alert's payload only: it changes neither the
//     parcel's estimated_delivery_time nor raises this alert.
//   - ALERT_DELIVERY_DELAYED and ALERT_SUBMISSION_DELAYED: derived when read
//     from the promises and the clock (see deriveAlerts); created_at is the
//     end of the broken promise, so the alert is stable.
//
// An adapter answering GET /parcels with bytes can have them kept:
// ParcelsRendered answers a lookup by tracking number with what a
// ParcelsRenderer made of the answer, kept while the parcels and the
// order keep their stored versions and the clock stays on the same side
// of every instant a derived alert (or carrier_fallback_enabled) turns
// at. The versions and the clock are read on every call, so the bytes
// are never older than either.
//
// # Exceptions
//
// PrivateParcel.exceptions lists what went wrong on the way, each with
// created_at (the carrier's time) and a status from one list,
// ExceptionStatuses. A carrier names an exception with an event's
// exception (an extension of POST /parcel.event and of
// event.CarrierEventReported), alone or with a step or alert; two are
// implied by a step or alert on their own:
//
//	| status                  | meaning                                          | implied by                    |
//	|-------------------------|--------------------------------------------------|-------------------------------|
//	| DELIVERY_ATTEMPT_FAILED | the courier could not hand the parcel over       | ALERT_DELIVERY_ATTEMPT_FAILED |
//	| ADDRESS_PROBLEM         | the address is wrong or incomplete               |                               |
//	| DAMAGED                 | the parcel was damaged in transit                |                               |
//	| LOST                    | the carrier cannot find the parcel               |                               |
//	| REFUSED_BY_RECEIVER     | the receiver refused to accept it                |                               |
//	| HELD_AT_CUSTOMS         | customs hold it (duties, papers)                 |                               |
//	| NOT_COLLECTED           | it was not collected from the pickup point       |                               |
//	| RETURNED_TO_SENDER      | it is on its way back to the merchant            | STEP_SENT_BACK                |
//
// The same status at the same instant is recorded once; a parcel keeps at
// most MaxExceptions. A value outside the list is InvalidArgument naming
// exception.
//
// # Preselected parcel
//
// A customer link may point at one parcel of its order: the link a booked
// shipment parcel hands out (its own token), and a link GenerateLink makes
// for a tracking number (the portal link with tracking_number=… added).
// The customer page and GET /orders?token=…[&tracking_number=…] (an
// extension) give that parcel's index as preselected_parcel_index; it is
// 0, the first parcel, for the order's own link.
//
// # Events
//
// New steps and alerts are written as event.ParcelChanged to the outbox in
// the transaction that stores them (package outbox), so none is lost and
// none is reported without being stored; notify schedules customer
// notifications from them. Tracking consumes event.OrderCompleted
// (HandleOrderCompleted: a tracking order under the session's tos_id) and
// event.ParcelBooked (HandleParcelBooked: a parcel, and the link token the
// shipment handed out), both idempotent.
//
// # Storage
//
// Collections: tracking.orders (site, tos_id), tracking.orders_by_external_id
// (site, external_id), tracking.orders_by_email (site, e-mail, tos_id),
// tracking.parcels (site, tracking number, carrier) and tracking.tokens
// (token). Parcel lookup by tracking number is a key-range read and token
// lookup a key read: both are logarithmic in the number of records.
package tracking
