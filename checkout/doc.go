// Package checkout is the checkout shipping session (area C, served under
// /v1/siw by package httpapi): a session holds the cart, the customer, the
// search address and the selected delivery option, and renders an
// embeddable widget (html_snippet) in which the customer chooses.
//
// Delivery options come from the options engine (package options) over
// the site's catalog; this package keeps the session, its states and its
// widget.
//
//	engines, _ := checkout.NewEngines(cfg.Catalogs(), options.Options{})
//	svc, _ := checkout.New(store, checkout.Options{Engines: engines})
//	v, _ := svc.Create(ctx, site, checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK",
//		Locales: []string{"sv-SE"}, Cart: &cart, SearchAddress: &checkout.SearchAddress{PostalCode: "111 57"}})
//	// the merchant's page embeds v.HTMLSnippet; the customer chooses in the widget
//	c, _ := svc.Complete(ctx, site, checkout.CompleteRequest{ID: v.Session.ID, Customer: &customer})
//	// c.TosID names the order, c.Session.Result what was sold; the outbox has its event.OrderCompleted
//
// # States
//
//	| state    | call     | condition                         | next     | effects                                              |
//	|----------|----------|-----------------------------------|----------|------------------------------------------------------|
//	| (none)   | Create   | purchase country, currency,       | ACTIVE   | id, widget token and html_snippet returned;          |
//	|          |          | locale(s) and cart given          |          | options computed, one preselected                    |
//	| ACTIVE   | Update   | cart, customer, search address,   | ACTIVE   | options recomputed when the cart, the address they   |
//	|          |          | external_id and/or meta given     |          | are for, or their expiry changed; choice kept if     |
//	|          |          |                                   |          | still offered; expires_at extended                   |
//	| ACTIVE   | Select   | widget token; option of the       | ACTIVE   | selection USER_CHOICE; shipping_price updated        |
//	|          | (widget) | session, addons of its category   |          |                                                      |
//	| ACTIVE   | Complete | customer with address; not        | COMPLETE | without a choice the preselected option for the      |
//	|          |          | expired; an option exists for     |          | customer's address is taken; tos_id set; frozen;     |
//	|          |          | the address; external_id free     |          | event.OrderCompleted written with the completion     |
//	| COMPLETE | any      |                                   | COMPLETE | refused: PermissionDenied (HTTP 403) "the session is |
//	|          | change   |                                   |          | completed", never a silent no-op                     |
//
// An expired session (expires_at passed) can still be read but neither
// changed nor completed (FailedPrecondition).
//
// # Concurrency
//
// Every change reads the session, computes (options are computed outside
// the write transaction, they take the longest) and writes with a
// compare-and-set on the version it read. When another call wrote in
// between, the change is refused with Conflict (HTTP 409, "repeat the
// call"): an acknowledged change is never lost.
//
// # Options for which address
//
// Options are computed for the customer's address once the merchant gives
// it, else for the search address, else for the purchase country. A
// customer address that differs from the search address therefore
// regenerates the options. Coordinates the merchant sends with either
// address are used as given; otherwise the engine's geocoder places the
// postal code and the search address reports where.
//
// # What a result says
//
// A carrier product has two identities on the wire, and only these:
// shipping_method (in result.shipping and selected_shipping_option) is the
// carrier product's reference from the catalog ("north-parcel-point"), the
// same value a tracking order's carrier_product_ref, a shipment's
// shipping_method and a delivery session's carrier.product_id carry; and
// external_method_id is the merchant's own id for the product (the
// catalog's external_id, empty when it has none). delivery_time.id (and
// time_slot.id) identifies the chosen option itself: category, product and
// pickup location; delivery_time.expires is when that offer lapses.
// delivery_type is lower case (delivery, pickup, mailbox, instore).
//
// Prices are minor units and include VAT. Every price component carries
// its value, the VAT part of it and the rate in basis points (2500 is
// 25 %): the product's vat_rate, else the catalog's. A catalog that sets no
// rate carries no VAT: vat and vat_rate are then 0 and net_price equals
// price. Voucher codes (cart.vouchers, or the older single cart.voucher)
// are lower-cased, echoed in cart.vouchers and match the catalog's voucher
// price rules without regard to case.
//
// When no category serves an address, the catalog's fallback (if it has
// one) is offered, preselected, and the result's selection is
// FALLBACK_FROM_PRESELECTED_CHOICE, or FALLBACK_FROM_USER_CHOICE when the
// customer's earlier choice is no longer offered. Without a fallback such
// a session is created and readable, with no selected_shipping_option and
// no result, and completing it is FailedPrecondition naming
// customer.address.
//
// # Order numbers
//
// external_id (on create, update or complete) is the merchant's order
// number; the completed session's tracking order gets it as its
// external_id, or the cart id when none was given, or the tos_id. Complete
// refuses, before anything is frozen, a number that is already another
// completed session's or (with Options.Orders) a tracking order's: Conflict
// (HTTP 409) naming external_id. CreateFromOrder opens a new session from a
// completed one (its cart, customer and search address); give it an
// external_id of its own, since the original's is taken. Summaries lists a
// completed session and the sessions created from it.
//
// # Options are computed again when read
//
// A session keeps what its options were computed from (the cart's values
// and vouchers, the locales, the address and where it was placed, and the
// time of the computation), not the options. Reading it computes them
// again with options.Engine.ComputeAt: the same options, estimates and
// expiry as when they were computed, without geocoding again, as long as
// the site's catalog is unchanged. After a configuration change a session,
// open or completed, shows options computed with the new catalog; keep
// what the completion answered (or the tracking order) as the record of
// what was sold.
//
// Sessions read recently are cached by record version, so reading one
// again computes nothing; Options.CacheBytes bounds the cache in bytes
// (DefaultCacheBytes when zero, off when negative). Writes do not fill it.
//
// An adapter that answers reads with bytes (an HTTP body) can have those
// kept too: GetRendered answers with what a Renderer made of the session's
// View, rendered once per stored version while the session stays in the
// cache. The stored version is read each time, so an answer is never
// older than the session.
//
// # The newer API generation
//
// The same sessions are served in the checkout API's newer generation
// (under /v1/delivery_checkout): CreateCheckout, GetCheckout, PullCheckout
// (options computed afresh), UpdateCheckout, CompleteCheckout and
// CheckoutSummaries answer a CheckoutSession whose one DeliveryGroup holds
// what /v1/siw calls the result (carrier_product_id is the merchant's
// external id of the product, else its reference); CheckoutSummaries
// answers one summary of the order, not a list. This generation leaves
// out empty values (proto3 JSON) except pricing.price and net_price, which
// are 0 for free shipping; its cart echoes the merchant's cart attributes
// and items' image_url. /v1/siw answers every amount, count and flag,
// zero included. A session created in
// one generation is read, changed and completed in the other. Sessions of
// this generation (and /v1/siw sessions created with address_form) have
// the widget collect the shopper's delivery and billing addresses
// (SaveAddresses): each is checked for its country (the postal code's
// format from catalog.PostalFormatOf, a region where the country needs
// one); the search address follows the delivery address, so options are
// computed for it; CompleteCheckout (and Complete, once the shopper
// saved an address) needs no customer, and the order's
// receiver (event.OrderCompleted's customer) is the shopper's delivery
// address when the merchant gave no customer address.
//
// # Widget
//
// html_snippet is a container bound to the session's widget token holding a
// script tag that loads WidgetJS from Options.WidgetBaseURL. A session's
// SnippetConfiguration names the container and the page's global function
// (DefaultContainerID and DefaultObjectID otherwise). The token is
// unguessable (RandomIDs), separate from API keys, and reaches only its own
// session: WidgetState, Select and SaveAddresses. The script fires the DOM event
// "deliverykit:shipping-option-change" on every choice and offers
// window.deliverykitCheckout.suspend() and resume() for the cart-change
// flow (suspend, session.update from the merchant backend, resume).
package checkout
