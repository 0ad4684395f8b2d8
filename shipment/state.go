package shipment

import "cmp"

// The state machines of the package doc, as data: the code asks these
// tables, so the doc, the tables and the tests describe one thing.

// deliveryOp is an operation that moves a delivery.
type deliveryOp string

const (
	opBook          deliveryOp = "booking"
	opBookPickup    deliveryOp = "booking a pickup"
	opCancel        deliveryOp = "cancelling"
	opConfirmPickup deliveryOp = "confirming the pickup"
)

// deliveryNext maps a delivery state and an operation to the next state.
// A missing entry is a FailedPrecondition naming the state.
var deliveryNext = map[DeliveryState]map[deliveryOp]DeliveryState{
	DeliveryCreated: {
		opBook:   DeliveryBooked,
		opCancel: DeliveryCancelled,
	},
	DeliveryBooked: {
		opBookPickup:    DeliveryPickupBooked,
		opCancel:        DeliveryCancelled,
		opConfirmPickup: DeliveryPickedUp,
	},
	DeliveryPickupBooked: {
		opBookPickup:    DeliveryPickupBooked, // a new window replaces the old one
		opCancel:        DeliveryCancelled,
		opConfirmPickup: DeliveryPickedUp,
	},
	DeliveryPickedUp: {
		opConfirmPickup: DeliveryPickedUp, // a repeated scan changes nothing
	},
	DeliveryCancelled: {},
}

// deliveryMove returns the state a delivery moves to under op, or a
// FailedPrecondition naming its state.
func deliveryMove(d *Delivery, op deliveryOp) (DeliveryState, error) {
	next, ok := deliveryNext[d.State][op]
	if !ok {
		return "", wrongState("delivery", cmp.Or(d.TrackingNumber, d.ID), d.State, string(op))
	}
	return next, nil
}

// shipmentOp is an operation addressed to a whole shipment.
type shipmentOp string

const (
	opShipBook       shipmentOp = "booking parcels"
	opShipBookPickup shipmentOp = "booking pickups"
	opShipCancel     shipmentOp = "cancelling"
	opShipUpdate     shipmentOp = "updating"
	opShipAddParcel  shipmentOp = "adding a parcel"
)

// shipmentAllows lists the states in which each shipment operation may
// run. Where a shipment moves afterwards follows from its deliveries
// (derivedState), except CREATED → BOOKED, which booking does explicitly.
var shipmentAllows = map[shipmentOp]map[ShipmentState]bool{
	opShipBook:       {ShipmentCreated: true, ShipmentBooked: true, ShipmentPickupBooked: true, ShipmentPickedUp: true},
	opShipBookPickup: {ShipmentBooked: true, ShipmentPickupBooked: true},
	opShipCancel:     {ShipmentCreated: true, ShipmentBooked: true, ShipmentPickupBooked: true},
	opShipUpdate:     {ShipmentCreated: true, ShipmentBooked: true, ShipmentPickupBooked: true, ShipmentPickedUp: true},
	opShipAddParcel:  {ShipmentCreated: true, ShipmentBooked: true},
}

func shipmentAllow(sh *Shipment, op shipmentOp) error {
	if !shipmentAllows[op][sh.State] {
		return wrongState("shipment", sh.ID, sh.State, string(op))
	}
	return nil
}

// deliveryRank orders the live delivery states by progress.
var deliveryRank = map[DeliveryState]int{
	DeliveryCreated: 0, DeliveryBooked: 1, DeliveryPickupBooked: 2, DeliveryPickedUp: 3,
}

// derivedState is the shipment state its deliveries imply: CANCELLED when
// every delivery is cancelled, otherwise the state of its least advanced
// live delivery. A CANCELLED shipment stays cancelled.
func derivedState(sh *Shipment) ShipmentState {
	if sh.State == ShipmentCancelled {
		return ShipmentCancelled
	}
	least, live := 4, 0
	for _, p := range sh.Parcels {
		for _, d := range p.Deliveries {
			if d.State == DeliveryCancelled {
				continue
			}
			live++
			if r := deliveryRank[d.State]; r < least {
				least = r
			}
		}
	}
	switch {
	case live == 0:
		return ShipmentCancelled
	case least == 0:
		return ShipmentCreated
	case least == 1:
		return ShipmentBooked
	case least == 2:
		return ShipmentPickupBooked
	}
	return ShipmentPickedUp
}
