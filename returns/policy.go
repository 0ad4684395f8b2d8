package returns

import "github.com/deliverykit/deliverykit"

// Policy is a merchant's return policy as this package needs it. The
// merchant catalog owns policies; the caller adapts it to Policies.
type Policy struct {
	// Disabled means the merchant takes no returns: CreateReturn is a
	// FailedPrecondition.
	Disabled bool
	// WindowDays is how many days after the order was created a customer
	// may start a return; 0 means no limit.
	WindowDays int
	// RefundShipping refunds what the customer paid for shipping once
	// every unit of the order has been returned and approved.
	RefundShipping bool
	// ReturnProduct is the carrier product ref return parcels are booked
	// with (Options.Labels). With it, the status page offers a return
	// label and shows the product's carrier's drop-off points
	// (Options.DropOffs) near the customer's address. Empty: the customer
	// sends the parcel back their own way.
	ReturnProduct string
	// Costs are charged per return, by ISO 4217 currency code. A nil map
	// charges nothing; a non-nil map without the order's currency refuses
	// the return (FailedPrecondition), so that a merchant selling in a new
	// currency does not offer free returns by accident.
	Costs map[string]Costs
	// NoExchanges refuses exchange returns (FailedPrecondition); the
	// customer may still return for a refund.
	NoExchanges bool
	// TimeZone is the site's IANA time zone ("Europe/Stockholm"): the
	// status page writes its dates in it. Empty or unknown: UTC.
	TimeZone string
}

// Costs are the charges of one return in minor units of their currency.
type Costs struct {
	ReturnShipment int64 // the return label
	ReturnHandling int64 // inspection and restocking
	Exchange       int64 // charged only when the customer asks for an exchange
	// FailedDelivery is charged when the merchant reports that the parcel
	// came back because its delivery failed (refused, not collected).
	FailedDelivery int64
	// GiftCardAddition is added to the refund when the customer takes it
	// as a gift card (refundMethod GIFT_CARD), as an incentive to keep the
	// money in the shop.
	GiftCardAddition int64
}

// Policies gives the return policy of a site. A site without one gets the
// zero Policy: free returns without a time limit.
type Policies interface {
	Policy(site string) (Policy, bool)
}

// StaticPolicies is a fixed map of site → Policy.
type StaticPolicies map[string]Policy

// Policy implements Policies.
func (p StaticPolicies) Policy(site string) (Policy, bool) {
	pol, ok := p[site]
	return pol, ok
}

// policyCosts returns the costs of a return in currency under pol. A
// policy is configuration, not a client, but its costs are still checked
// like any amount (0…10^12 minor units each), so that the sums of a
// return always fit.
func policyCosts(pol Policy, currency string, exchange bool) (costsRecord, error) {
	if pol.Costs == nil {
		return costsRecord{}, nil
	}
	c, ok := pol.Costs[currency]
	if !ok {
		return costsRecord{}, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the merchant's return policy has no costs in %s", currency)
	}
	for _, v := range []int64{c.ReturnShipment, c.ReturnHandling, c.Exchange, c.FailedDelivery, c.GiftCardAddition} {
		if v < 0 || v > maxMinor {
			return costsRecord{}, deliverykit.Errorf(deliverykit.KindInternal, "returns: the return policy's costs in %s are outside 0…%d minor units", currency, int64(maxMinor))
		}
	}
	costs := costsRecord{Shipment: c.ReturnShipment, Handling: c.ReturnHandling}
	if exchange {
		costs.Exchange = c.Exchange
	}
	return costs, nil
}
