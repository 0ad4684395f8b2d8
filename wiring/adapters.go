package wiring

import (
	"context"
	"slices"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// ShipmentOrders are tracking's orders as shipment.Orders: a shipment
// created with a tos_id takes what it lacks from the tracking order.
type ShipmentOrders struct{ Tracking *tracking.Service }

// Order implements shipment.Orders.
func (a ShipmentOrders) Order(ctx context.Context, site, tosID string) (shipment.Order, error) {
	req, err := a.Tracking.OrderRequest(ctx, site, tosID)
	if err != nil {
		return shipment.Order{}, err
	}
	return shipmentOrder(req), nil
}

// shipmentOrder is a tracking order as a shipment reads it. The receiver
// is at home: at the receiver's address, else at the destination unless
// that is a pickup point or a store (the receiver's home is then unknown
// and the request must give it).
func shipmentOrder(req *tracking.CreateTrackingOrderRequest) shipment.Order {
	o := shipment.Order{ExternalID: req.ExternalID, ShippingMethod: req.CarrierProductRef}
	if snd := req.Sender; snd != nil && snd.Address != nil {
		o.Sender = &shipment.Sender{Name: snd.Name, Address: copyAddress(snd.Address)}
	}
	atPoint := req.DeliveryType == tracking.OrderDeliveryPickup || req.DeliveryType == tracking.OrderDeliveryInstore
	if r := req.Receiver; r != nil {
		o.Receiver = &shipment.Receiver{Name: r.Name, Address: copyAddress(r.Address), Email: r.Email, PhoneNumber: r.PhoneNumber}
		if o.Receiver.Address == nil && !atPoint && req.Destination != nil {
			o.Receiver.Address = copyAddress(req.Destination.Address)
		}
	}
	if d := req.Destination; atPoint && d != nil && d.LocationExternalID != "" {
		o.Pickup = &shipment.Pickup{ID: d.LocationExternalID, Address: copyAddress(d.Address),
			LocationType: shipment.PickupLocationType(d.LocationType)}
	}
	// Line items need a currency; a cart without one gives none.
	if c := req.Cart; c != nil && c.Currency != "" {
		for _, it := range c.Items {
			o.LineItems = append(o.LineItems, shipment.LineItem{SKU: it.SKU, Name: it.Name, Quantity: it.Quantity,
				Price: it.Price, Currency: c.Currency, Discount: it.Discount})
		}
	}
	return o
}

func copyAddress(a *deliverykit.Address) *deliverykit.Address {
	if a == nil {
		return nil
	}
	c := *a
	c.AddressLines = slices.Clone(a.AddressLines)
	if a.Coordinates != nil {
		p := *a.Coordinates
		c.Coordinates = &p
	}
	return &c
}
