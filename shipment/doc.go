// Package shipment is the shipment order management area (F) of
// deliverykit: shipments with their parcels and deliveries, booking them at
// carriers (tracking numbers, labels, tracking links), carrier pickups and
// cancellations.
//
// A Shipment goes from one sender to one receiver and has parcels; a Parcel
// is one physical package and has deliveries; a Delivery is one carrier leg
// of a parcel (a warehouse leg of type INWAREHOUSE, then the last mile), the
// unit that is booked, gets a tracking number and a label, is picked up and
// can be cancelled. The whole shipment is one stored record, so every
// operation changes it with a single compare-and-set.
//
//	svc, _ := shipment.New(store, shipment.Options{Products: products, DefaultCarrier: demo})
//	sh, _ := svc.Create(ctx, "demo-site", shipment.CreateShipmentRequest{…})
//	sh, _ = svc.BookParcels(ctx, "demo-site", shipment.ShipmentRef{ShipmentID: sh.ID})
//	sh, _ = svc.BookPickup(ctx, "demo-site", shipment.BookPickupRequest{ShipmentID: sh.ID, PickupWindow: …})
//
// The calls come in this order: create, then book parcels, then book the
// pickup (a delivery is booked before its pickup is); CreateAndBook does
// the three at once.
//
// # Delivery states
//
// Every transition below is enforced; an operation on a delivery in any
// other state is a FailedPrecondition naming the state.
//
//	| state         | trigger                        | next state    | other effects                                 |
//	|---------------|--------------------------------|---------------|-----------------------------------------------|
//	| (none)        | Create, CreateAndBook,         | CREATED       | ids assigned                                  |
//	|               | AddParcel                      |               |                                               |
//	| CREATED       | BookParcels (or the booking of | BOOKED        | carrier Book: tracking number, label, link;   |
//	|               | CreateAndBook, AddParcel)      |               | event.ParcelBooked written with the booking   |
//	| CREATED       | CancelDelivery, CancelShipment | CANCELLED     | carrier Cancel by key (clears reservations)   |
//	| BOOKED        | BookPickup                     | PICKUP_BOOKED | carrier BookPickup with the window            |
//	| PICKUP_BOOKED | BookPickup                     | PICKUP_BOOKED | same window: nothing; another: carrier told   |
//	| BOOKED,       | CancelDelivery, CancelShipment | CANCELLED     | carrier Cancel; label no longer served;       |
//	| PICKUP_BOOKED |                                |               | refused (Conflict) once in a manifest         |
//	| BOOKED,       | CreateManifest                 | (unchanged)   | manifest_id set: handed over, no cancelling   |
//	| PICKUP_BOOKED |                                |               |                                               |
//	| BOOKED,       | ConfirmPickup (carrier scan)   | PICKED_UP     | picked_up_at; can no longer be cancelled;     |
//	| PICKUP_BOOKED |                                |               | event.DeliveryPickedUp written with it        |
//	| PICKED_UP     | ConfirmPickup                  | PICKED_UP     | nothing (a repeated scan)                     |
//	| CANCELLED     | (nothing)                      |               |                                               |
//
// # Shipment states
//
// A shipment's state follows its deliveries: after every operation it is
// the state of its least advanced live (not cancelled) delivery, and
// CANCELLED when none is live. The operations addressed to a whole shipment
// are allowed in these states only (otherwise FailedPrecondition naming
// the state):
//
//	| operation      | allowed in                         | effect                                                  |
//	|----------------|------------------------------------|---------------------------------------------------------|
//	| BookParcels    | CREATED                            | every CREATED delivery booked → BOOKED                  |
//	|                | BOOKED, PICKUP_BOOKED, PICKED_UP   | nothing booked again; pending tracking registrations    |
//	|                |                                    | are retried (a repeated call is safe)                   |
//	| BookPickup     | BOOKED, PICKUP_BOOKED              | every BOOKED or PICKUP_BOOKED delivery gets the window  |
//	| (shipment_id)  |                                    | → PICKUP_BOOKED                                         |
//	| AddParcel      | CREATED, BOOKED                    | parcel added (and booked when BOOKED); also added to a  |
//	|                |                                    | connected return shipment that is not cancelled;        |
//	|                |                                    | without a parcel, a duplicate of the first one          |
//	| Update         | CREATED: sender, receiver,         | state unchanged                                         |
//	|                | reference, attributes;             |                                                         |
//	|                | BOOKED, PICKUP_BOOKED, PICKED_UP:  | (labels are printed and tracking knows the parties)     |
//	|                | attributes only                    |                                                         |
//	| CancelShipment | CREATED, BOOKED, PICKUP_BOOKED,    | every live delivery cancelled → CANCELLED               |
//	|                | and no delivery PICKED_UP          |                                                         |
//
// So CREATED → BOOKED → PICKUP_BOOKED → PICKED_UP, and CANCELLED from any
// state before a pickup. Cancelling single deliveries, or confirming the
// pickup of some, moves the shipment only when its least advanced live
// delivery moves.
//
// # Carriers and atomic booking
//
// Carriers are pluggable (Carrier); package shipment/carrier has the demo
// carrier, which issues UPU S10 tracking numbers. Carrier calls are outside
// effects: they never run inside a storage transaction, and each carries a
// key, site + "/" + delivery id, on which the carrier is idempotent.
// Delivery ids derive from the shipment id and the positions of parcel and
// delivery (shp_…-P1-D1), so:
//
//   - BookParcels calls the carriers first, then commits every booking in
//     one compare-and-set. If a carrier or the commit fails, nothing is
//     stored; the repeated call sends the same keys and gets the same
//     tracking numbers back: a retry never assigns a second number.
//   - CreateAndBook calls the carriers for a shipment that exists nowhere
//     yet (its id is fresh), then stores it, booked, in one transaction. If
//     anything fails, it cancels this attempt's bookings at the carriers and
//     stores nothing. A repeated call with the same external_id continues
//     with the stored shipment.
//   - Every booked delivery is reported as an event.ParcelBooked, written
//     to the outbox in the transaction that stores the booking, so a
//     booking is never stored without its report, nor reported without
//     being stored; tracking consumes it (its parcel and link). A
//     delivery's first confirmed pickup is reported the same way, as an
//     event.DeliveryPickedUp. Both have the tracking number as their
//     subject, as tracking's parcel.changed has, so a merchant's webhooks
//     get a parcel's events in the order they happened.
//
// # Shipments for an order
//
// A create request with a tos_id names the order it ships (Options.Orders
// answers it; wiring reads tracking's orders). What the request leaves out
// comes from the order: the receiver, the sender, the shipping method, the
// reference (the order number), the pickup point of the deliveries carried
// by the order's product, and the line items of a shipment of one parcel;
// what the request says wins. The shipment shows the tos_id, and its
// booked parcels are tracked with that order.
//
// # Idempotency
//
// Create with an external_id already used by the site returns that
// shipment when the request is the same, and is a Conflict naming
// external_id otherwise. BookPickup with the window a delivery already has
// changes nothing; CancelDelivery and CancelShipment refuse a second call
// with FailedPrecondition naming CANCELLED.
//
// # Wire shapes
//
// The request and response shapes follow the other areas and are
// documented in the OpenAPI document served at GET /v1/som/openapi.json.
// Every operation answers with the Shipment (GET /deliveries.get with the
// Delivery). JSON names are snake_case, times RFC 3339, weights grams,
// dimensions millimetres (weight and each dimension greater than 0), money
// minor units; addresses and contacts have tracking's shapes. Tracking numbers given as input are checked by the
// configured carriers (S10 for the demo carrier) before any lookup.
//
// # Labels
//
// Label renders a booked delivery's label on request: an A6 PDF with the
// tracking number as a Code 128 barcode, or ZPL for thermal printers (see
// package shipment/label). Labels are not stored; the same delivery always
// renders the same bytes. LabelPDF is the PDF alone, as the returns area
// reads a return parcel's label for the customer's status page.
//
// # Customs
//
// A shipment whose sender and receiver are in different customs
// territories (package shipment/customs: the EU, CH with LI, GB, NO, …,
// and special territories such as Åland and the Canary Islands, by postal
// code) needs a CustomsDeclaration; one left out defaults from the
// parcels' line items, and what customs need and nothing supplies is an
// InvalidArgument naming each field (customs.items[0].hs_code). The
// declaration is stored with the shipment. Booking decides the shipment's
// Documents: a parcel whose last leg is MAILBOX or PICKUP is a postal item
// (CN22 up to 300 SDR and 2 kg, CN23 above), any other a courier parcel
// (commercial invoice, which a sale on a CN23 gets too). Document renders
// them on request from the stored declaration, as Label renders labels.
// The documents are decided once, at the first booking: a parcel added
// later does not change them. Update cannot add a declaration, so it
// refuses a sender or receiver that would take a shipment without one
// across a border. A return requested by the returns area across a border
// declares, as returned goods, the goods of the outbound shipment whose
// external id is the order's.
//
// # Packing items into boxes
//
// A create request with items and no parcels is packed into the boxes of
// the site's catalog (Options.Boxes) usable with its shipping_method, by
// package catalog/packing: one parcel per box, weighing its items and
// the box's tare, with the box's outer measures and its items as line
// items. An item that fits no box is an InvalidArgument naming it
// (items[3]). Parcels in the request win: their items are not packed.
//
// # End-of-day manifests
//
// CreateManifest closes the day for a carrier (a Product.CarrierID): every
// booked delivery of that carrier that is neither collected, cancelled nor
// in a manifest yet goes into one new Manifest (at most
// MaxManifestParcels; the rest wait for the next close), and each names it
// in manifest_id. The manifest and the marked shipments are written in one
// transaction, every shipment with a compare-and-set, so two concurrent
// closes never share a parcel. A manifested delivery is handed over: it
// can no longer be cancelled (a Conflict naming tracking_number). A close
// that finds nothing is a Conflict naming carrier rather than an empty
// manifest. ManifestPDF renders the A4 list the driver signs, a Code 128
// barcode per parcel, on request like labels.
//
// A close reads only the parcels waiting for it: an index of the booked,
// not yet manifested deliveries per site and carrier, written in the
// transactions that book, cancel, collect and manifest them, so a close
// costs what the day booked, whatever the site's history.
//
// A pickup booked with manifest (BookPickupRequest.Manifest) collects the
// day's manifest: the waiting parcels of its carriers are manifested for
// the window's day first. A carrier that takes hand-overs
// (HandOverCarrier; the simulator does) is told them and the window
// before the manifest is written, and submits them within the window.
//
// # Return parcels
//
// HandleReturnRequested books the return parcel a return asks for
// (event.ReturnShipmentRequested): a RETURN shipment from the customer to
// the site's return receiver (Options.ReturnAddresses; CatalogProducts
// gives the catalog's first warehouse), one parcel of ReturnParcelGrams
// with the requested product, under the requested external id, so a
// request delivered again finds the first shipment. Its attribute
// order_external_id (AttributeOrderExternalID) names the outbound order:
// the parcel.booked of a RETURN shipment with it names that order, so
// tracking tracks the return parcel under the order the goods came with,
// and carries the shipment's external id, so the returns area knows its
// parcel. A carrier failure is returned for the outbox to retry; a request
// that can never be booked (no receiver, an unknown product) is an
// InvalidArgument.
package shipment
