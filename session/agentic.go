package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/options"
)

// ACPVersion is the Agentic Commerce Protocol version whose fulfillment
// option shape Convert emits: type "shipping" with id, title, subtitle,
// carrier, earliest_delivery_time, latest_delivery_time, subtotal, tax and
// total. Later versions replace subtitle with description and the amounts
// with totals[]; they would be a new Format value, not a change of this one.
const ACPVersion = "2025-09-29"

// ParseFormat reads the format query parameter of :convert: empty means
// FORMAT_UNSPECIFIED; an unknown value is InvalidArgument naming "format".
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case "", FormatUnspecified:
		return FormatUnspecified, nil
	case FormatAgenticCheckout:
		return FormatAgenticCheckout, nil
	}
	return "", deliverykit.InvalidField("format", "oneof", fmt.Sprintf("%q is not one of FORMAT_UNSPECIFIED AGENTIC_CHECKOUT", s))
}

// Convert returns the session in the requested representations: always
// native (the session itself), and for FormatAgenticCheckout the agentic
// checkout session. It only reads: the session, its etag and its update
// time stay as they are.
func (s *Service) Convert(ctx context.Context, site, name string, format Format) (*ConvertResponse, error) {
	return s.ConvertTo(ctx, site, name, ConvertRequest{Format: format})
}

// ConvertRequest is what :convert is asked for: the format, and for
// FormatAgenticCheckout the protocol version (empty: ACPVersion).
type ConvertRequest struct {
	Format     Format
	ACPVersion string
}

// ConvertTo is Convert with a protocol version: for FormatAgenticCheckout
// and ACPVersionCurrent the agentic checkout is ToACPCheckoutSession's.
// An unknown version is InvalidArgument naming "acp_version".
func (s *Service) ConvertTo(ctx context.Context, site, name string, req ConvertRequest) (*ConvertResponse, error) {
	f, err := ParseFormat(string(req.Format))
	if err != nil {
		return nil, err
	}
	version, err := ParseACPVersion(req.ACPVersion)
	if err != nil {
		return nil, err
	}
	sess, err := s.Get(ctx, site, name)
	if err != nil {
		return nil, err
	}
	out := &ConvertResponse{Native: sess}
	switch {
	case f != FormatAgenticCheckout:
	case version == ACPVersionCurrent:
		out.ACPCheckout = ToACPCheckoutSession(sess)
	default:
		out.AgenticCheckout = ToAgenticCheckout(sess)
	}
	return out, nil
}

// ToAgenticCheckout maps a session to the agentic checkout shape of
// ACPVersion:
//   - fulfillment_address is the recipient's address: name is the
//     recipient contact's name, line_one the first address line, line_two
//     the others joined with ", ", state the region code;
//   - one fulfillment option per delivery option, in display order: title
//     is the category's display name, subtitle the pickup location's title
//     or else the carrier product's name, carrier the carrier's name, the
//     delivery times the absolute ETD;
//   - total is what the customer pays for the option: its price plus, for
//     the chosen option, the category's chosen addons (checkout's
//     shipping_price); tax is the VAT those prices include, per price at
//     the option's rate and rounded as checkout rounds it
//     (options.IncludedVAT); subtotal is total − tax;
//   - fulfillment_option_id is the chosen option, else the preselected one.
func ToAgenticCheckout(sess *Session) *AgenticCheckoutSession {
	out := &AgenticCheckoutSession{Name: sess.Name, Deliveries: make([]AgenticDelivery, 0, len(sess.Deliveries))}
	for _, d := range sess.Deliveries {
		ad := AgenticDelivery{ID: d.ID, FulfillmentAddress: fulfillmentAddress(d.RecipientContact), FulfillmentOptions: []AgenticFulfillmentOption{}}
		var chosen, preselected string
		for _, c := range d.DeliveryCategories {
			for _, o := range c.DeliveryOptions {
				total, tax := optionAmounts(c, o)
				fo := AgenticFulfillmentOption{
					Type:     FulfillmentTypeShipping,
					ID:       o.ID,
					Title:    c.DisplayName,
					Subtitle: o.Carrier.ProductName,
					Carrier:  o.Carrier.Name,
					Subtotal: Int64(total - tax),
					Tax:      Int64(tax),
					Total:    Int64(total),
				}
				if o.PickupLocation != nil {
					fo.Subtitle = o.PickupLocation.Title
				}
				if a := o.ETD.Absolute; a != nil {
					fo.EarliestDeliveryTime, fo.LatestDeliveryTime = a.EarliestTime, a.LatestTime
				}
				ad.FulfillmentOptions = append(ad.FulfillmentOptions, fo)
				if o.Chosen {
					chosen = o.ID
				}
				if o.Preselected && preselected == "" {
					preselected = o.ID
				}
			}
		}
		ad.FulfillmentOptionID = preselected
		if chosen != "" {
			ad.FulfillmentOptionID = chosen
		}
		out.Deliveries = append(out.Deliveries, ad)
	}
	return out
}

// fulfillmentAddress is the recipient in agentic form, nil without an
// address.
func fulfillmentAddress(c *Contact) *FulfillmentAddress {
	if c == nil || c.Address == nil {
		return nil
	}
	a := c.Address
	fa := &FulfillmentAddress{Name: c.Name, Country: a.CountryCode, City: a.City, State: a.RegionCode, PostalCode: a.PostalCode}
	if len(a.AddressLines) > 0 {
		fa.LineOne = a.AddressLines[0]
		fa.LineTwo = strings.Join(a.AddressLines[1:], ", ")
	}
	return fa
}

// optionAmounts is what the customer pays for option o of category c and
// the VAT it includes: the option's price, plus the category's chosen
// addons when o is the chosen option (addons are bought with the option
// chosen, so only that option's price includes them). Each price's VAT is
// rounded on its own, as checkout's price components are.
func optionAmounts(c DeliveryCategory, o DeliveryOption) (total, tax int64) {
	total, tax = int64(o.Price), options.IncludedVAT(int64(o.Price), o.VATRate)
	if !o.Chosen {
		return total, tax
	}
	for _, a := range c.Addons {
		if a.Chosen {
			total += int64(a.Price)
			tax += options.IncludedVAT(int64(a.Price), o.VATRate)
		}
	}
	return total, tax
}
