// Package session is the delivery session (area D, served under /delivery
// by package httpapi): a resource-style session (v1alphaSession) holding a
// purchase and its deliveries, each with delivery categories, options and
// addons computed by the shared options engine (package options).
// A session is created, read, patched, completed and converted to an
// agentic checkout representation.
//
//	svc, _ := session.New(store, session.Options{Engines: engines})
//	s, _ := svc.Create(ctx, site, session.Session{Purchase: &p, Deliveries: ds})
//	s, _ = svc.Patch(ctx, site, session.Session{Name: s.Name, Etag: s.Etag, Purchase: &p, Deliveries: ds})
//	done, _ := svc.Complete(ctx, site, s.Name, session.CompleteRequest{DeliveryChoices: choices})
//	conv, _ := svc.Convert(ctx, site, s.Name, session.FormatAgenticCheckout)
//
// # States
//
//	| state     | call     | condition                              | next      | effects                                       |
//	|-----------|----------|----------------------------------------|-----------|-----------------------------------------------|
//	| (none)    | Create   | purchase and deliveries valid          | ACTIVE    | options computed, first one preselected;      |
//	|           |          |                                        |           | returns_promise set; name and etag returned   |
//	| ACTIVE    | Patch    | etag absent or equal to current        | ACTIVE    | purchase and deliveries replaced; options and |
//	|           |          |                                        |           | returns_promise recomputed; new etag          |
//	| ACTIVE    | Complete | etag absent or equal to current; every | COMPLETED | chosen flags saved; tos_id and external_id    |
//	|           |          | delivery chosen once; options valid    |           | set per delivery; event.OrderCompleted per    |
//	|           |          | and not expired; external ids free     |           | delivery in the same write; new etag          |
//	| any       | Get,     |                                        | unchanged | nothing is written; the etag stays            |
//	|           | Convert  |                                        |           |                                               |
//	| COMPLETED | Patch,   |                                        | COMPLETED | refused: FailedPrecondition naming the state  |
//	|           | Complete |                                        |           |                                               |
//
// STATE_UNSPECIFIED is the enumeration's unused default.
//
// # Etags and concurrency
//
// The etag is the stored record's version, written as an opaque quoted
// string. Every successful write changes it; reads and Convert never do.
// Patch and Complete with an etag that is not the current one are refused
// with Conflict, which the HTTP adapter answers as RPC code 10 ABORTED
// (HTTP 409): the client reads the session again and decides. A choice
// whose external_id is already an order of the site is AlreadyExists, RPC
// code 6 ALREADY_EXISTS (also HTTP 409) naming the choice's external_id:
// reading again cannot help, so it is never ABORTED. Without an
// etag there is no check: the read of the current state and the
// compare-and-set write happen in one storage transaction, so the call
// applies to the latest state and is never refused for a concurrent change.
// Delivery options are computed before that transaction, which only checks
// and writes; Complete computes the stored session's options again inside
// it (from the stored inputs, without geocoding) to check the choices
// against them.
//
// # Options are computed again when read
//
// An ACTIVE session keeps, per delivery, what its delivery categories were
// computed from besides its own fields (the time of the computation and
// where the recipient's address was placed), not the categories. Reading
// it computes them again with options.Engine.ComputeAt: the categories of
// the write, with the same estimates and expire_time however late the
// read, as long as the site's catalog is unchanged. After a configuration
// change an ACTIVE session shows categories computed with the new catalog.
// A COMPLETED session keeps its categories as chosen: what was sold does
// not follow later catalog changes.
//
// # Requests
//
// Read-only fields in a Create or Patch body (state, create_time,
// update_time, returns_promise, and in deliveries delivery_categories,
// tos_id and external_id) are ignored, not rejected: resource-style clients
// send back the session they read. Decoding is lenient (unknown fields are
// ignored); int64 amounts are strings on output and strings or numbers on
// input; timestamps are RFC 3339, written in UTC. Weight and dimensions keep
// their presence: absent is allowed, 0 or negative is InvalidArgument
// naming the field (deliveries[0].line_items[1].weight). Amounts must not
// be negative, coordinates must be in range, country and currency codes
// are ISO 3166-1 alpha-2 and ISO 4217, region codes ISO 3166-2 without the
// country prefix, and locales have the lc-CC form. A delivery's total
// weight (quantity × weight summed over its line items) must fit in a
// 64-bit integer: the line item that takes it over is InvalidArgument with
// rule "overflow" (deliveries[0].line_items[3].weight), so an absurd cart
// is refused rather than wrapped into a light one.
//
// # How options are computed
//
// Each delivery is one run of the engine: its line items (quantity, weight,
// dimensions) and attributes (the delivery's and its items'), the
// purchase's currency, total value, vouchers and locales, and the
// recipient's address. Goods are ready at the latest readiness earliest_time
// of the fulfillments, or later when an ORIGIN node's handoff earliest_time
// is later. A fulfillment's category_tags name the catalog categories that
// may carry it; a delivery is offered the categories every fulfillment
// allows. Options carry absolute ETDs, the carrier product ref in
// carrier.meta["product_ref"], and an expire_time after which Complete
// refuses them (FailedPrecondition): patching the session refreshes them.
//
// # Agentic checkout
//
// Convert with FormatAgenticCheckout also returns the session in the shape
// of the Agentic Commerce Protocol version 2025-09-29 (ACPVersion); see
// ToAgenticCheckout for the mapping. ConvertTo with ACPVersionCurrent
// (2026-04-17) returns it as that version's CheckoutSession instead, with
// pickup and time-slot options (ToACPCheckoutSession). Neither changes the
// session.
//
// Order returns a completed session's order in the 2026-04-17 form: its
// parcels' journeys and its returns and refunds, which the package reads
// from an OrderSource (Options.OrderSource; wiring provides one).
package session
