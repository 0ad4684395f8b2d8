// Package catalog describes a site's delivery offering: warehouses, carriers
// and their products, delivery categories with price and filter rules and
// addons, pickup locations, the postal areas the default geocoder knows, and
// the return policy.
//
// It is plain data with validation and lookups and no behaviour beyond
// that, so that the configuration (package config) can embed it, the
// options engine (package options) can compute with it, and tracking can
// check carrier product refs (Catalog.Product) without importing the engine
// or any session code.
//
//	var c catalog.Catalog
//	if err := json.Unmarshal(data, &c); err != nil { … }
//	if err := c.Validate(); err != nil {
//		for _, v := range deliverykit.ViolationsOf(err) {
//			fmt.Println(v.Field, v.Message) // "categories[0].products[1] \"x\" is not the ref of a carrier product"
//		}
//	}
//	p, ok := c.Product("north-parcel-home") // the carrier, names and delivery type of a product ref
//
// Validate lists every problem at once, each with the JSON path of its
// field, so that a configuration loader (package config) can prefix the
// paths and refuse the file at start.
//
// Amounts are integers in minor units, as everywhere in areas A, C and D.
// Times of day ("15:00") and business days are in the warehouse's time
// zone; weekends and Catalog.Holidays are never business days.
package catalog
