// Package deliverykit is an embeddable delivery-logistics service for Go
// merchant platforms: delivery tracking, customer notifications, the checkout
// shipping session and its widget, the resource-style delivery session, the
// merchant returns API and shipment order management, all in-process.
//
// The module is a set of small packages, one per area, on one storage
// contract. By layer, from the top: a package imports from its own layer
// and those below it only, an area imports no other area, and a package
// in another's folder is in that package's layer (a test checks all
// three; docs/ARCHITECTURE.md draws the layers).
//
// Programs, test kits and evidence:
//
//	examples/server            every area over HTTP, on a bbolt file, memory or PostgreSQL
//	examples/checkoutmerchant  a merchant's checkout backend in miniature
//	examples/webhookreceiver   a merchant's webhook endpoint in a few lines
//	deliverykittest            the whole of deliverykit inside a test, with parcels that travel
//	reliability                the areas together under faults, load, bad input and hostile tenants
//	bench/http                 HTTP serving measured against a net/http baseline
//	bench/commit               the bolt store's group commit measured against raw bbolt
//	retentiontest              the areas' retention sweeps checked on a storage backend
//
// Assembly, from the configuration file:
//
//	wiring                     builds every area on one store and connects them through events
//	config                     the configuration file: sites, key digests, catalogs, endpoints, retention
//
// Adapters (they serve the areas and never read the configuration file):
//
//	httpapi                    the optional net/http adapter serving the documented endpoints
//	metrics                    a deployment's figures as Prometheus collectors
//	console                    the merchant console: staff pages for orders, returns, webhooks and figures
//
// Areas (they never import each other; effects between them are events):
//
//	tracking                   A: tracking orders, parcels, progress, alerts, tracking links
//	tracking/page              A: the customer's tracking page
//	notify                     B: notifications to end customers
//	checkout                   C: the checkout shipping session and its widget
//	session                    D: the resource-style delivery session (etags, complete, convert)
//	returns                    E: the merchant returns API (orders, returns, refunds, pages)
//	returns/page               E: the customer's return status page
//	shipment                   F: shipments, parcels, deliveries, booking, pickups
//	shipment/carrier           F: the built-in carriers (static and the simulator)
//	shipment/customs           F: customs territories and which customs document a parcel needs
//	shipment/label             F: A6 PDF and ZPL shipping labels, CN22, CN23 and commercial invoices
//	shipment/label/labeltest   F: reads rendered labels as a scanner and a PDF reader would
//
// Services the areas share:
//
//	options                    the delivery-options engine the areas compute with
//	promise                    delivery promises learned from delivered parcels, and their accuracy
//	outbox                     cross-area events, written in the cause's transaction
//	outbox/outboxtest          the outbox's suite for a storage backend
//	webhook                    signed POSTs of events to each site's endpoints
//	webhook/webhooktest        the webhook service's suite for a storage backend
//	retention                  deletes records once they are no longer needed
//	idempotency                Idempotency-Key: a repeated call gets the first one's answer, not a second effect
//	idempotency/idempotencytest  the idempotency keeper's suite for a storage backend
//	testmode                   test sites with clocks of their own, for merchants' test suites
//	internal/daycount          per-site counts by day, added to in the counted write's transaction
//
// Vocabulary and helpers:
//
//	auth                       API keys to sites and staff passwords, compared in constant time
//	catalog                    a site's delivery offering and return policy
//	catalog/packing            packs items into the catalog's boxes, first fit decreasing with rotation
//	event                      the events' vocabulary and payloads
//	internal/i18n              the one catalog of texts, money and date formats shown to shoppers
//	internal/validation        struct tags to field violations
//	internal/jsonshape         values of the wrong JSON type, named by their full path
//	internal/jsonwrite         strings and numbers appended as encoding/json writes them
//	internal/browsertest       headless Chromium for the browser tests
//	internal/httpbench         one request served over and over in a benchmark, without a connection
//	internal/checked           integer arithmetic that reports overflow
//	internal/retry             the waits between attempts of retrying loops
//	internal/queue             the one work queue: due index, leases, retries, order per subject
//	internal/queue/queuetest   the queue's suite for a storage backend
//	internal/stored            stored records of an area's own private types
//	internal/recordtest        golden snapshots of stored records, for tests
//	internal/versioncache      values made from stored records, kept by key and version within a byte budget
//	internal/pieces            pieces of reused slices, handed back all at once
//	internal/racedetector      whether tests run under the race detector
//
// Storage:
//
//	storage                    the transactional document store contract
//	storage/memory             in process, for tests and embedding without durability
//	storage/bolt               one bbolt file: the example server's default
//	storage/postgres           PostgreSQL, shared by several servers
//	storage/storagetest        the Store conformance suite
//	storage/internal/backend   the rules every shipped store applies alike
//	internal/pgtest            a schema per test on the environment's PostgreSQL
//	internal/teststore         the stores tests and benchmarks run on: memory and bolt pairs, a flag's choice
//
// This root package holds what they share: the error vocabulary (Kind, Error,
// FieldViolation and the Err* sentinels for errors.Is), Clock and IDSource.
//
// # Errors
//
// Every package returns *Error values, or errors wrapping them. Read the kind
// with KindOf or errors.Is; read field problems with ViolationsOf:
//
//	if errors.Is(err, deliverykit.ErrConflict) {
//		// a concurrent change won: reload and retry
//	}
//	for _, v := range deliverykit.ViolationsOf(err) {
//		fmt.Println(v.Field, v.Rule, v.Message) // "cart.items[0].sku required is required"
//	}
//
// # Determinism
//
// Services take a Clock and an IDSource. Tests pass NewManualClock and
// SequentialIDs and get the same output on every run; production uses
// SystemClock and RandomIDs, whose identifiers cannot be guessed.
package deliverykit
