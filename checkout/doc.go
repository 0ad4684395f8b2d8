// Package checkout is the checkout shipping session (area C of the
// specification, base /v1/siw): a session holds the cart, the customer, the
// search address and the selected delivery option, and renders an
// embeddable widget (html_snippet) in which the customer chooses.
//
// Delivery options come from the options engine (package
// checkout/options) over the site's catalog; this package keeps the
// session, its states and its widget.
//
// # States
//
//	| state    | call     | condition                         | next     | effects                                              |
//	|----------|----------|-----------------------------------|----------|------------------------------------------------------|
//	| (none)   | Create   | purchase country, currency,       | ACTIVE   | id, widget token and html_snippet returned;          |
//	|          |          | locale(s) and cart given          |          | options computed, one preselected                    |
//	| ACTIVE   | Update   | cart and/or customer given        | ACTIVE   | options recomputed when the cart, the address they   |
//	|          |          |                                   |          | are for, or their expiry changed; choice kept if     |
//	|          |          |                                   |          | still offered; expires_at extended                   |
//	| ACTIVE   | Select   | widget token; option of the       | ACTIVE   | selection USER_CHOICE; shipping_price updated        |
//	|          | (widget) | session, addons of its category   |          |                                                      |
//	| ACTIVE   | Complete | customer with address; not        | COMPLETE | without a choice the preselected option for the      |
//	|          |          | expired; an option exists for     |          | customer's address is taken; tos_id set; frozen;     |
//	|          |          | the address                       |          | OrderRecorder told after the commit                  |
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
// regenerates the options. The search address gets its coordinates from
// the engine's geocoder.
//
// # What is stored
//
// The stored session keeps what its options were computed from (cart
// values, locales, address, its coordinates and the computation's "now"),
// not the options: those are mostly copies of the catalog (location
// addresses and opening hours) and made a record about 17 KB, where it is
// now about 1 KB (about 1.2 KB of heap per active session in the memory
// store, BenchmarkSessionHeap). Reading a session computes the options
// again with options.Engine.ComputeAt, which gives exactly the result of
// the original computation without geocoding again, as long as the site's
// catalog is the same. A small cache (recordCacheSize sessions, by record
// version) spares decoding and recomputing when a session is read again
// soon after it was read. Writes do not fill it: under heavy checkout
// traffic most sessions written are not read within the cache's reach,
// and the options it would hold for them are pointer-rich heap the
// garbage collector marks again and again (a create was 8 % slower with
// writes filling it). Records written before this kept their
// options in the record; they are served as stored until the next change.
//
// # Widget
//
// html_snippet is a container bound to the session's widget token plus a
// script tag loading WidgetJS from Options.WidgetBaseURL. The token is
// unguessable (RandomIDs), separate from API keys, and reaches only its own
// session: WidgetState and Select. The script fires the DOM event
// "deliverykit:shipping-option-change" on every choice and offers
// window.deliverykitCheckout.suspend() and resume() for the cart-change
// flow (suspend, session.update from the merchant backend, resume).
package checkout
