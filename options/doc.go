// Package options is the delivery-options engine: given a site's catalog,
// a cart or purchase and an address, it answers the delivery categories
// with their options, filtered, priced and estimated. The checkout session
// (area C) and the delivery session (area D) compute with it, returns finds
// drop-off points with its index and the carrier simulator's timetables are
// its engines, which is why it lives below the areas rather than in one.
//
//	engine, _ := options.New(cat, options.Options{})
//	res, _ := engine.Compute(ctx, options.Request{Currency: "SEK", Locales: []string{"sv-SE"},
//		CartValue: 45000, Items: []options.Item{{Quantity: 1, Weight: 800}},
//		Address: catalog.Address{Country: "SE", PostalCode: "118 26"}})
//	for _, c := range res.Categories { … c.Options … } // res.Preselected names the preselected option
//
// # What an answer holds
//
//   - Categories pass their filter (country, postal-code ranges, required
//     and excluded attributes, total weight, item dimensions) and have a
//     price: the first price rule matching the currency, vouchers, weight
//     band and attributes, made 0 above its free-shipping threshold. A
//     category with no matching rule is left out; a price is never guessed.
//   - Every option has an estimated delivery time: goods ready at the
//     request's readiness (or now) are handled for the product's lead time
//     in business days, starting the next day when they are ready after the
//     cut-off, handed over on the next day the carrier collects, and
//     delivered after the transit days. Business days skip weekends and the
//     catalog's holidays, in the warehouse's time zone. At a pickup location
//     the window moves to days the location is open (its weekday hours and
//     closed dates): goods can only be collected then.
//   - A product whose promise is learned or blend (catalog.PromiseMode)
//     is estimated from the lead times its delivered parcels took, with
//     Options.LeadTimes (package promise learns them): handed over as
//     above, delivered on the business days the learned low and high
//     lead times end on (blend: the window spanning that and the
//     configured one). Option.PromiseSource and PromiseSamples say where
//     the estimate came from; too few parcels leave it configured.
//   - PICKUP and INSTORE categories offer one option per nearby location of
//     each product's carrier, nearest first across products, from a spatial
//     index (a k-d tree
//     over points on the unit sphere, exact for great-circle distance), with
//     walking and driving estimates. The search address is placed by a
//     Geocoder; the default resolves postal codes from catalog data and,
//     when it cannot, the answer lists locations without distances instead
//     of inventing them.
//   - Names are in the best catalog locale for the request: the first of
//     the customer's locales the catalog supports (golang.org/x/text/language
//     matching, so en-GB finds en-US), else the catalog's default.
//   - A product priced per parcel (catalog.Product.PricePerParcel) costs
//     the category's price times the parcels the items pack into, in the
//     boxes usable with it (package catalog/packing, as a shipment created
//     with those items is packed); when they cannot be packed the product
//     is not offered.
//   - The first option of the first category (by sort order) is preselected.
//
// Option ids are built from the category id, product ref and location id,
// so the same choice keeps its id when options are recomputed after a cart
// change.
package options
