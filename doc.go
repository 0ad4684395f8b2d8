// Package deliverykit is an embeddable delivery-logistics service for Go
// merchant platforms: delivery tracking, customer notifications, the checkout
// shipping session and its widget, the resource-style delivery session, the
// merchant returns API and shipment order management, all in-process.
//
// The module is a set of small packages, one per area, on one storage
// contract:
//
//	tracking   tracking orders, parcels, progress, alerts, tracking links
//	notify     notifications to end customers
//	checkout   the checkout shipping session, the delivery-options engine, the widget
//	session    the resource-style delivery session (etags, complete, convert)
//	returns    the merchant returns API (orders, returns, refunds, pages)
//	shipment   shipments, parcels, deliveries, booking, labels, pickups
//	storage    the Store contract; storage/memory, storage/bolt; storage/storagetest
//	httpapi    the optional net/http adapter serving the documented endpoints
//	config     sites, API key digests and the delivery catalog
//	auth       API keys to sites, compared in constant time
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
