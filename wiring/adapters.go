package wiring

import (
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/tracking"
)

// CatalogProducts are the sites' catalogs as tracking.Products.
//
// Deprecated: use tracking.CatalogProducts.
type CatalogProducts = tracking.CatalogProducts

// CatalogPolicies are the sites' catalog return policies as
// returns.Policies.
//
// Deprecated: use returns.CatalogPolicies.
type CatalogPolicies = returns.CatalogPolicies

// CatalogShipmentProducts are the sites' catalogs as shipment.Products.
//
// Deprecated: use shipment.CatalogProducts.
type CatalogShipmentProducts = shipment.CatalogProducts

// Timetables are the sites' options engines as carrier.Timetables.
//
// Deprecated: use carrier.EngineTimetables.
type Timetables = carrier.EngineTimetables
