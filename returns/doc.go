// Package returns is the returns area (E) of deliverykit: merchants'
// orders, customers' returns, the merchant's inspection of returned items
// and the refund transactions that follow, with the Spring Data page
// envelope the returns API's clients expect.
//
// A Service keeps every site's data in one storage.Store; every method takes
// the caller's site, and records of another site are not found.
//
//	svc := returns.New(memory.New(), returns.Options{PublicURL: "https://shop.example"})
//	order, _ := svc.ImportOrder(ctx, "demo-site", returns.OrderInput{…})
//	ret, _ := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", …})
//	res, _ := svc.ReportReturnedItems(ctx, "demo-site", returns.ReturnedItemsInput{ReturnID: ret.ID, …})
//	entry, _ := svc.MarkRefunded(ctx, "demo-site", res.RefundTransactions[0].RefundID)
//
// # Return lifecycle
//
// Every transition below is enforced; any other call on a return in the
// wrong state is a FailedPrecondition naming the state.
//
//	| state             | trigger                               | condition                           | next state        | other effects                                   |
//	|-------------------|---------------------------------------|-------------------------------------|-------------------|-------------------------------------------------|
//	| (none)            | CreateReturn                          | e-mail matches, quantities left,    | AWAITING_RETURN   | returnCosts, calculatedRefund, statusUrl;       |
//	|                   |                                       | within the policy's window          |                   | return parcel asked for (policy's ReturnProduct)|
//	| AWAITING_RETURN   | HandleParcelBooked (its parcel booked)|                                     | same              | label; shipment C2B recorded                    |
//	| AWAITING_RETURN   | MarkInTransit (parcel at the carrier) | tracking reference unused           | IN_TRANSIT        | shipment C2B recorded                           |
//	| AWAITING_RETURN   | HandleParcelChanged: the carrier has  | the parcel is the return's          | IN_TRANSIT        |                                                 |
//	|                   | the parcel (submitted, on route)      |                                     |                   |                                                 |
//	| AWAITING_RETURN,  | HandleParcelChanged: delivered to the | the parcel is the return's          | IN_TRANSIT        | unreported items AWAITING_INSPECTION            |
//	| IN_TRANSIT        | merchant                              |                                     |                   |                                                 |
//	| AWAITING_RETURN,  | ReportReturnedItems                   | units of the return still unreported| same              | lines updated                                   |
//	| IN_TRANSIT        |                                       |                                     |                   |                                                 |
//	| AWAITING_RETURN,  | ReportReturnedItems                   | all reported, some approved, refund | AWAITING_REFUND   | refund transaction (table below)                |
//	| IN_TRANSIT        |                                       | all reported, some approved,        | AWAITING_EXCHANGE | exchange cost charged, no refund                |
//	|                   |                                       | exchange                            |                   |                                                 |
//	|                   |                                       | all reported, all declined          | COMPLETED         | no refund; declined units may be returned again |
//	| AWAITING_REFUND   | its transaction is paid: MarkRefunded,| see the refund transaction table    | COMPLETED         | transaction REFUNDED or SUCCESS, lines REFUNDED |
//	|                   | ReportRefundSucceeded, the executor   |                                     |                   |                                                 |
//	| AWAITING_EXCHANGE | CompleteExchange(With)                |                                     | COMPLETED         | exchange COMPLETED on the return and order      |
//
// # Refund transactions
//
// A refund is paid out by the merchant, or by a RefundExecutor
// (Options.RefundExecutor) driven through the outbox: HandleRefundChanged,
// the consumer of refund.changed, executes every PENDING transaction of
// the return once the change that made it has committed, so a crash never
// loses a refund. Every other call on a transaction in the wrong state is a
// FailedPrecondition naming its state, and changes nothing:
//
//	| state                    | trigger                                   | next state               | other effects                              |
//	|--------------------------|-------------------------------------------|--------------------------|--------------------------------------------|
//	| (none)                   | a report approves units, no executor      | AWAITING_EXTERNAL_REFUND | return AWAITING_REFUND                     |
//	| (none)                   | a report approves units, with an executor | PENDING                  | return AWAITING_REFUND; executed (outbox)  |
//	| AWAITING_EXTERNAL_REFUND | MarkRefunded                              | REFUNDED                 | lines REFUNDED, return COMPLETED           |
//	| AWAITING_EXTERNAL_REFUND,| ReportRefundSucceeded (foreignId), the    | SUCCESS                  | lines REFUNDED, return COMPLETED           |
//	| PENDING                  | executor's success                        |                          |                                            |
//	| AWAITING_EXTERNAL_REFUND,| ReportRefundFailed (foreignId, reason),   | FAILED                   | return stays AWAITING_REFUND               |
//	| PENDING                  | the executor's failure                    |                          |                                            |
//	| PENDING                  | the executor accepts it for later         | PENDING                  | the executor's foreignId kept, no event    |
//	| FAILED                   | RetryRefund                               | PENDING (executor) or    | attempt + 1; executed again (outbox)       |
//	|                          |                                           | AWAITING_EXTERNAL_REFUND |                                            |
//
// REFUNDED and SUCCESS are final. Marking a transaction refunded again
// says it is already REFUNDED.
//
// # Events
//
// Every change of a return is reported to the other areas and the
// merchant's webhooks by an event written in the transaction that stores
// the change, so a change is never stored without its report, nor
// reported without being stored; a refused call writes none:
//
//	| cause                                 | events, in this order                                          |
//	|---------------------------------------|----------------------------------------------------------------|
//	| CreateReturn                          | return.created; return.shipment_requested when the policy      |
//	|                                       | names a return product and the order a delivery address        |
//	| MarkInTransit, CompleteExchange       | return.status_changed                                          |
//	| HandleParcelChanged                   | return.status_changed (to IN_TRANSIT); return.items_received   |
//	|                                       | when the parcel reached the merchant                           |
//	| ReportReturnedItems, for each return  | return.items_received; return.status_changed once every unit   |
//	| it reports units of                   | is reported; refund.changed when that makes a refund           |
//	| MarkRefunded, ReportRefundSucceeded,  | refund.changed; return.status_changed (AWAITING_REFUND →       |
//	| the executor's success                | COMPLETED)                                                     |
//	| ReportRefundFailed, RetryRefund, the  | refund.changed                                                 |
//	| executor's failure                    |                                                                |
//
// Each carries the return as it is after the whole change
// (event.ReturnChanged: amounts in minor units, the latest refund, the
// status page link while it works) and previous_status, its status
// before; a new return has none. The subject is the return id, so a
// merchant's webhooks get one return's events in order.
//
// # Customers
//
// CreateReturn is the one call a customer makes without a key: the order's
// foreign id and e-mail address are the credential. An unknown site, an
// unknown order and a wrong e-mail address get the same NotFound, and cost
// the same: the decision reads one index record (a decoy of the same size
// when there is none) and compares SHA-256 digests of the addresses in
// constant time; only a match reads the order.
//
// # Status page links
//
// A return's statusUrl carries a token of 128 random bits; it works for
// Options.StatusLinkLifetime (DefaultStatusLinkLifetime, 180 days) after
// the return was created or the link renewed. ReturnByToken answers an
// expired or replaced token with NotFound whose cause is
// ErrStatusLinkExpired; the status page then answers 410 Gone with a page
// telling the customer to ask the shop for a new link, never the return.
// RenewStatusLink (POST /merchant/return/{returnId}/status-link) gives the
// return a new link and ends the old one at once.
//
// # Sending the parcel back
//
// StatusPage is what the customer's status page shows. Its language is
// the customer's: the locale of the return request, else the order's
// (OrderInput.Locale, which the caller's checkout wiring fills in); the
// page falls back to the link's ?locale= and the browser's.
//
// When the site's Policy names a ReturnProduct (a carrier product ref)
// and the order has a DeliveryAddress, the page says how to send the
// parcel back while the return is AWAITING_RETURN:
//
//   - a return label. CreateReturn asks for the return parcel with an
//     event (event.ReturnShipmentRequested) in its own transaction; the
//     shipments area books it as a RETURN shipment with the external id
//     ShipmentExternalID(return id), and its parcel.booked, delivered to
//     HandleParcelBooked, makes it the return's label and one of its
//     shipments. A booking that fails does not fail the return: the
//     outbox retries it, and until then the page says the label is being
//     prepared (LabelPending). The label is served under the page's own
//     token (StatusPagePath + token + StatusLabelPath,
//     ReturnLabelByToken, through Options.LabelPDFs): no key, and it ends
//     with the link. The page also shows the tracking number as a QR
//     code, for drop-off points that print labels;
//   - the drop-off points of the product's carrier nearest to the
//     delivery address, from Options.DropOffs (DropOffPointsShown of
//     them; CatalogDropOffs finds them in the delivery catalog).
//
// # The return parcel
//
// A return's parcels are its shipments (type C2B: foreignId the shipment
// in the shipments area, the carrier's name, the tracking number as
// trackingReference). POST /merchant/items/returned finds the return by a
// trackingReference: the index is written with the shipment, in one
// transaction. HandleParcelChanged follows the parcel's carrier steps:
// once the carrier has it (submitted, on route) the return is IN_TRANSIT;
// once it is delivered to the merchant, the items the merchant has not
// reported yet are AWAITING_INSPECTION (ItemAwaitingInspection, with
// returnedToWarehouseAt the delivery's time) until the merchant's report
// makes them RETURNED or DECLINED. The return itself stays IN_TRANSIT
// until that report: its status says what the merchant still has to do.
//
// # Money
//
// Amounts are decimal numbers in major units on the wire (12.50). Inside,
// they are exact int64 minor units with the currency's number of decimals
// from golang.org/x/text/currency, so no sum is ever computed in floating
// point. An input with more decimals than its currency has is refused,
// never rounded. The refund of a return is its approved units at their
// purchase price (tax included), plus the order's shipping when the policy
// refunds shipping and every unit of the order is approved, plus the
// policy's gift card addition when the customer takes the refund as a gift
// card, minus the return costs (label, handling, and the failed delivery
// cost when the merchant reports the parcel came back undelivered), and
// never below zero.
//
// # Exchanges
//
// An order line may list the SKUs it can be exchanged for
// (OrderItemInput.ExchangeSKUs, e.g. the product's other sizes); every
// line can also be exchanged for its own SKU. A customer item naming an
// exchangeSku makes the return an exchange: the policy's exchange cost, no
// refund, and Return.Exchanges lists it REQUESTED until the merchant
// completes it (CompleteExchangeWith).
//
// # Pages
//
// List calls take a PageRequest (ParsePageQuery reads it from a query
// string) and answer with Page, Spring Data's envelope. Each site also
// keeps a gap-free rank per record in
// id order, so the default id order (ascending or descending, with or
// without afterId) reads one rank record, log2(n) more for afterId, and
// one page of an ordered scan, whatever the page number. Any other sort,
// afterDate and the refund status filter read all of the site's rows of
// that kind, then sort (ties by id) and slice.
//
// # Reasons, product variants and complaints
//
// A line of a return carries the customer's reasons (returnReasons): a
// reason of the site's catalog, picked by ReasonID with an optional
// SubReasonID, whose texts in the catalog's first locale are stored with
// the return, and the customer's own words (Reason, accepted alone as
// before). An id the catalog does not list is an InvalidArgument naming
// the field. Options.Reasons gives the catalogs; CatalogPolicies is one.
//
// productVariant is the order line as imported: id (the line's id), sku,
// productTitle, variantTitle, foreignProductId, foreignVariantId and
// properties come from OrderInput's items of the same names. For orders
// from completed checkouts (HandleOrderCompleted) sku is the cart line's
// SKU, which is also foreignVariantId, and productTitle its name; the
// checkout knows no product ids or properties, so those stay empty.
//
// A line may carry a complaint (CustomerReturnItemInput.Complaint, or the
// first upload of AddComplaintPhotos): a catalog complaint reason, a text
// of at most MaxComplaintTextRunes characters and up to MaxComplaintImages
// photos of at most MaxComplaintImageBytes each (MaxReturnImages over all
// lines of a return), which must sniff as JPEG,
// PNG, GIF or WebP whatever the client declared. The customer uploads them
// under the status page token (StatusPagePath + token + "/items/" + item
// id + ComplaintPathSuffix); StartComplaintUpload checks the token and
// the line before any photo is read, and its PhotoUpload takes the photos
// one at a time from readers, sniffing each from its first 512 bytes and
// streaming it into a BlobStreamer. Photos are kept in Options.Blobs under a UUID
// the service makes (never a client's file name): MemoryBlobs, FileBlobs
// (a directory; files written, synced and renamed into place) or
// StoreBlobs (records of a storage.Store). The complaint is PENDING until
// the merchant approves or rejects it with DecideComplaint, once; a
// decided complaint and a completed return take no more photos.
//
// A photo's downloadUrl is ComplaintImagePath + uuid with expires (Unix
// seconds) and signature, an HMAC-SHA256 of the path and the expiry under
// Options.ImageURLSecret, checked in constant time by ComplaintPhoto. Each
// view signs new URLs valid for Options.ImageURLLifetime (an hour by
// default); an altered path, expiry or signature and an expired URL are
// all PermissionDenied (403).
//
// # Ids
//
// Ids of orders, returns and refund transactions are integers numbered per
// site and kind: a site's first order is 1, its next 2, and so on. An id
// is unique within its site and reveals only how many records of its kind
// that site has created, never anything about other sites. A new id is
// one more than the site's highest id of that kind, so ids never repeat
// within a site, even after returns were deleted.
//
// # Retention
//
// Sweep (run by retention.Sweeper; wiring adds it) deletes a return
// Options.Retention (730 days by default) after its last change, whatever
// its state, with its refund transactions, complaint photos and status
// links; its order stays. A site's returns go in the order they were
// made, so a return changed late keeps the site's later ones until it
// goes; none goes earlier. Pages and totals count the live returns and
// refunds only, and cost what they did before. A deleted return answers
// NotFound, and its status link the not-found page.
package returns
