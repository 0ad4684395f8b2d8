package returns

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
	// Costs are charged per return, by ISO 4217 currency code. A nil map
	// charges nothing; a non-nil map without the order's currency refuses
	// the return (FailedPrecondition), so that a merchant selling in a new
	// currency does not offer free returns by accident.
	Costs map[string]Costs
}

// Costs are the charges of one return in minor units of their currency.
type Costs struct {
	ReturnShipment int64 // the return label
	ReturnHandling int64 // inspection and restocking
	Exchange       int64 // charged only when the customer asks for an exchange
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
