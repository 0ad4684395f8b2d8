package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
)

// ACPVersionCurrent is the newer Agentic Commerce Protocol version
// :convert renders on request (acp_version=2026-04-17): the session as the
// protocol's CheckoutSession, with shipping, pickup and local_delivery
// fulfillment options, fulfillment groups and per-item selections.
const ACPVersionCurrent = "2026-04-17"

// ParseACPVersion reads the acp_version query parameter of :convert: empty
// or ACPVersion means the spec's shape, ACPVersionCurrent the newer one;
// anything else is InvalidArgument naming "acp_version".
func ParseACPVersion(s string) (string, error) {
	switch s {
	case "", ACPVersion:
		return ACPVersion, nil
	case ACPVersionCurrent:
		return ACPVersionCurrent, nil
	}
	return "", deliverykit.InvalidField("acp_version", "oneof", fmt.Sprintf("%q is not one of %s %s", s, ACPVersion, ACPVersionCurrent))
}

// ACPCheckoutSession is a delivery session as the Agentic Commerce
// Protocol's CheckoutSession of version ACPVersionCurrent: what a
// delivery session knows of one (no payment, no buyer). Amounts are
// integers in minor units; currency is lower case, as the protocol writes
// it.
type ACPCheckoutSession struct {
	// ID is the session's name.
	ID       string      `json:"id"`
	Protocol ACPProtocol `json:"protocol"`
	// Capabilities is empty: the delivery session takes no payment and
	// declares no extension.
	Capabilities struct{} `json:"capabilities"`
	// Status is "in_progress" for an ACTIVE session, "completed" for a
	// COMPLETED one.
	Status   string `json:"status"`
	Currency string `json:"currency"`
	// Locale is the purchase's first locale.
	Locale    string        `json:"locale,omitempty"`
	LineItems []ACPLineItem `json:"line_items"`
	// FulfillmentDetails is the recipient when the session has one
	// delivery; with several, each group carries its own.
	FulfillmentDetails         *ACPFulfillmentDetails         `json:"fulfillment_details,omitempty"`
	FulfillmentOptions         []ACPFulfillmentOption         `json:"fulfillment_options"`
	SelectedFulfillmentOptions []ACPSelectedFulfillmentOption `json:"selected_fulfillment_options"`
	FulfillmentGroups          []ACPFulfillmentGroup          `json:"fulfillment_groups"`
	Totals                     []ACPTotal                     `json:"totals"`
	// Messages is always empty: the service has nothing to tell the
	// agent beside the session itself.
	Messages  []json.RawMessage `json:"messages"`
	Links     []ACPLink         `json:"links"`
	CreatedAt Timestamp         `json:"created_at,omitzero"`
	UpdatedAt Timestamp         `json:"updated_at,omitzero"`
}

// ACPProtocol names the protocol version of a rendering.
type ACPProtocol struct {
	Version string `json:"version"`
}

// ACPLineItem is one line of a delivery. Its id is "<delivery id>:<n>",
// n counting the delivery's lines from 1.
type ACPLineItem struct {
	ID         string     `json:"id"`
	Item       ACPItem    `json:"item"`
	Quantity   int32      `json:"quantity"`
	Name       string     `json:"name"`
	SKU        string     `json:"sku"`
	Images     []string   `json:"images,omitempty"`
	UnitAmount int64      `json:"unit_amount"`
	Totals     []ACPTotal `json:"totals"`
}

// ACPItem is the product of a line: its SKU, title and unit price.
type ACPItem struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	UnitAmount int64  `json:"unit_amount"`
}

// ACPTotal is one amount of a breakdown, in minor units.
type ACPTotal struct {
	Type        string `json:"type"`
	DisplayText string `json:"display_text"`
	Amount      int64  `json:"amount"`
}

// ACPAddress is an address in the protocol's form; its members other than
// line_two are required by the protocol, so they are always written, empty
// when the session does not know them.
type ACPAddress struct {
	Name       string `json:"name"`
	LineOne    string `json:"line_one"`
	LineTwo    string `json:"line_two,omitempty"`
	City       string `json:"city"`
	State      string `json:"state"`
	Country    string `json:"country"`
	PostalCode string `json:"postal_code"`
}

// ACPFulfillmentDetails is the recipient of a delivery.
type ACPFulfillmentDetails struct {
	Name        string      `json:"name,omitempty"`
	PhoneNumber string      `json:"phone_number,omitempty"`
	Email       string      `json:"email,omitempty"`
	Address     *ACPAddress `json:"address,omitempty"`
}

// Fulfillment option types of ACPVersionCurrent.
const (
	FulfillmentTypePickup        = "pickup"
	FulfillmentTypeLocalDelivery = "local_delivery"
)

// ACPFulfillmentOption is one delivery option: a "shipping", "pickup" or
// "local_delivery" option of the protocol, each with only its own members
// set.
type ACPFulfillmentOption struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Title string `json:"title"`
	// Carrier and the delivery times: shipping.
	Carrier              string    `json:"carrier,omitempty"`
	EarliestDeliveryTime Timestamp `json:"earliest_delivery_time,omitzero"`
	LatestDeliveryTime   Timestamp `json:"latest_delivery_time,omitzero"`
	// Location, PickupType and ReadyBy: pickup.
	Location   *ACPPickupLocation `json:"location,omitempty"`
	PickupType string             `json:"pickup_type,omitempty"`
	ReadyBy    Timestamp          `json:"ready_by,omitzero"`
	// DeliveryWindow: local_delivery.
	DeliveryWindow *ACPWindow `json:"delivery_window,omitempty"`
	// Totals are subtotal, tax and total, as the spec's shape computes
	// them (ToAgenticCheckout).
	Totals []ACPTotal `json:"totals"`
}

// ACPPickupLocation is where a pickup option's parcel waits.
type ACPPickupLocation struct {
	Name    string     `json:"name"`
	Address ACPAddress `json:"address"`
	// Phone is "+<country code> <number>", with " ext. <extension>".
	Phone string `json:"phone,omitempty"`
}

// ACPWindow is a delivery time slot.
type ACPWindow struct {
	Start Timestamp `json:"start"`
	End   Timestamp `json:"end"`
}

// ACPSelectedFulfillmentOption is the option chosen (or, before
// completion, preselected) for a delivery's items.
type ACPSelectedFulfillmentOption struct {
	Type     string   `json:"type"`
	OptionID string   `json:"option_id"`
	ItemIDs  []string `json:"item_ids"`
}

// ACPFulfillmentGroup is one delivery: its items go together.
type ACPFulfillmentGroup struct {
	// ID is the delivery's id.
	ID                 string                 `json:"id"`
	ItemIDs            []string               `json:"item_ids"`
	DestinationType    string                 `json:"destination_type"`
	FulfillmentDetails *ACPFulfillmentDetails `json:"fulfillment_details,omitempty"`
	// LocationID is the pickup location of the selected option.
	LocationID string `json:"location_id,omitempty"`
}

// ACPLink is a policy page.
type ACPLink struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// MaxTimeSlot is the longest estimate a home delivery option may have to
// be a time slot (local_delivery with a delivery_window) rather than
// shipping: a window within one part of a day. The options engine
// estimates whole days, so only options whose estimate is narrower — a
// carrier's booked slot — render as local_delivery.
const MaxTimeSlot = 12 * time.Hour

// ToACPCheckoutSession maps a session to the CheckoutSession of
// ACPVersionCurrent:
//   - line_items are every delivery's lines (ids "<delivery id>:<n>"),
//     with the line's price as unit amount;
//   - fulfillment_options are every delivery option, in display order:
//     PICKUP and INSTORE options are "pickup" (pickup_type "locker" for a
//     LOCKER location, else "in_store"; ready_by the latest estimate),
//     DELIVERY options estimated within MaxTimeSlot are "local_delivery"
//     with that window, the others (home, mailbox, fallback) "shipping";
//     totals as ToAgenticCheckout computes them. With several deliveries
//     an option id is "<delivery id>:<option id>", since deliveries offer
//     the same options;
//   - fulfillment_groups are the deliveries, selected_fulfillment_options
//     the chosen (else preselected) option of each, for its items;
//   - totals: subtotal is the purchase's total_value, fulfillment the
//     selected options' totals, total their sum (a delivery session does
//     not know the items' tax, so there is no tax line);
//   - links: the return policy's page when the returns promise has one.
func ToACPCheckoutSession(sess *Session) *ACPCheckoutSession {
	out := &ACPCheckoutSession{
		ID: sess.Name, Protocol: ACPProtocol{Version: ACPVersionCurrent}, Status: "in_progress",
		LineItems: []ACPLineItem{}, FulfillmentOptions: []ACPFulfillmentOption{},
		SelectedFulfillmentOptions: []ACPSelectedFulfillmentOption{}, FulfillmentGroups: []ACPFulfillmentGroup{},
		Messages: []json.RawMessage{}, Links: []ACPLink{},
		CreatedAt: sess.CreateTime, UpdatedAt: sess.UpdateTime,
	}
	if sess.State == StateCompleted {
		out.Status = "completed"
	}
	var subtotal, fulfillment int64
	if p := sess.Purchase; p != nil {
		out.Currency = strings.ToLower(p.CurrencyCode)
		if len(p.Locales) > 0 {
			out.Locale = p.Locales[0]
		}
		subtotal = int64(p.TotalValue)
	}
	qualify := len(sess.Deliveries) > 1
	for _, d := range sess.Deliveries {
		items := make([]string, 0, len(d.LineItems))
		for i, li := range d.LineItems {
			id := fmt.Sprintf("%s:%d", d.ID, i+1)
			items = append(items, id)
			line := int64(li.Price) * int64(li.Quantity)
			item := ACPLineItem{
				ID: id, Item: ACPItem{ID: li.SKU, Name: li.Title, UnitAmount: int64(li.Price)},
				Quantity: li.Quantity, Name: li.Title, SKU: li.SKU, UnitAmount: int64(li.Price),
				Totals: []ACPTotal{{Type: "subtotal", DisplayText: "Subtotal", Amount: line}, {Type: "total", DisplayText: "Total", Amount: line}},
			}
			if li.ImageURI != "" {
				item.Images = []string{li.ImageURI}
			}
			out.LineItems = append(out.LineItems, item)
		}
		details := fulfillmentDetails(d.RecipientContact)
		group := ACPFulfillmentGroup{ID: d.ID, ItemIDs: items, FulfillmentDetails: details}
		var selected, preselected *ACPFulfillmentOption
		var selectedLoc, preselectedLoc string
		var selectedTotal, preselectedTotal int64
		for _, c := range d.DeliveryCategories {
			for _, o := range c.DeliveryOptions {
				fo := acpOption(c, o)
				if qualify {
					fo.ID = d.ID + ":" + fo.ID
				}
				out.FulfillmentOptions = append(out.FulfillmentOptions, fo)
				total, _ := optionAmounts(c, o)
				loc := ""
				if o.PickupLocation != nil && fo.Type == FulfillmentTypePickup {
					loc = o.PickupLocation.ID
				}
				if o.Chosen {
					selected, selectedLoc, selectedTotal = &fo, loc, total
				}
				if o.Preselected && preselected == nil {
					preselected, preselectedLoc, preselectedTotal = &fo, loc, total
				}
			}
		}
		if selected == nil {
			selected, selectedLoc, selectedTotal = preselected, preselectedLoc, preselectedTotal
		}
		if selected != nil {
			out.SelectedFulfillmentOptions = append(out.SelectedFulfillmentOptions,
				ACPSelectedFulfillmentOption{Type: selected.Type, OptionID: selected.ID, ItemIDs: items})
			group.DestinationType, group.LocationID = selected.Type, selectedLoc
			fulfillment += selectedTotal
		} else {
			// No option at all: the group still needs a destination
			// type; shipping is what the recipient's address asks for.
			group.DestinationType = FulfillmentTypeShipping
		}
		out.FulfillmentGroups = append(out.FulfillmentGroups, group)
	}
	if len(sess.Deliveries) == 1 {
		out.FulfillmentDetails = out.FulfillmentGroups[0].FulfillmentDetails
	}
	out.Totals = []ACPTotal{
		{Type: "subtotal", DisplayText: "Subtotal", Amount: subtotal},
		{Type: "fulfillment", DisplayText: "Shipping", Amount: fulfillment},
		{Type: "total", DisplayText: "Total", Amount: subtotal + fulfillment},
	}
	if rp := sess.ReturnsPromise; rp != nil && rp.ReturnPolicyURL != "" {
		out.Links = append(out.Links, ACPLink{Type: "return_policy", URL: rp.ReturnPolicyURL})
	}
	return out
}

// acpOption renders option o of category c.
func acpOption(c DeliveryCategory, o DeliveryOption) ACPFulfillmentOption {
	total, tax := optionAmounts(c, o)
	fo := ACPFulfillmentOption{ID: o.ID, Title: c.DisplayName, Totals: []ACPTotal{
		{Type: "subtotal", DisplayText: "Subtotal", Amount: total - tax},
		{Type: "tax", DisplayText: "Tax", Amount: tax},
		{Type: "total", DisplayText: "Total", Amount: total},
	}}
	var etd AbsoluteETD
	if a := o.ETD.Absolute; a != nil {
		etd = *a
	}
	switch {
	case (c.DeliveryType == DeliveryTypePickup || c.DeliveryType == DeliveryTypeInstore) && o.PickupLocation != nil:
		l := o.PickupLocation
		fo.Type, fo.PickupType, fo.ReadyBy = FulfillmentTypePickup, "in_store", etd.LatestTime
		if l.LocationType == LocationTypeLocker {
			fo.PickupType = "locker"
		}
		fo.Title = l.Title
		loc := &ACPPickupLocation{Name: l.Title}
		if vc := l.VisitingContact; vc != nil {
			if vc.Address != nil {
				loc.Address = acpAddress(vc.Name, vc.Address)
			}
			loc.Phone = phoneText(vc.PhoneNumber)
		}
		loc.Address.Name = l.Title
		fo.Location = loc
	case c.DeliveryType == DeliveryTypeDelivery && !etd.EarliestTime.IsZero() && !etd.LatestTime.IsZero() &&
		etd.LatestTime.Sub(etd.EarliestTime.Time) <= MaxTimeSlot:
		fo.Type = FulfillmentTypeLocalDelivery
		fo.DeliveryWindow = &ACPWindow{Start: etd.EarliestTime, End: etd.LatestTime}
	default:
		fo.Type, fo.Carrier = FulfillmentTypeShipping, o.Carrier.Name
		fo.EarliestDeliveryTime, fo.LatestDeliveryTime = etd.EarliestTime, etd.LatestTime
	}
	return fo
}

// fulfillmentDetails is a recipient in the protocol's form, nil without
// one.
func fulfillmentDetails(c *Contact) *ACPFulfillmentDetails {
	if c == nil {
		return nil
	}
	fd := &ACPFulfillmentDetails{Name: c.Name, Email: c.Email, PhoneNumber: phoneText(c.PhoneNumber)}
	if c.Address != nil {
		a := acpAddress(c.Name, c.Address)
		fd.Address = &a
	}
	return fd
}

func acpAddress(name string, a *Address) ACPAddress {
	out := ACPAddress{Name: name, City: a.City, State: a.RegionCode, Country: a.CountryCode, PostalCode: a.PostalCode}
	if len(a.AddressLines) > 0 {
		out.LineOne = a.AddressLines[0]
		out.LineTwo = strings.Join(a.AddressLines[1:], ", ")
	}
	return out
}

// phoneText writes a phone number as one string: "+46 701234567",
// with " ext. 12" when it has an extension.
func phoneText(p *PhoneNumber) string {
	if p == nil {
		return ""
	}
	s := "+" + strings.TrimPrefix(p.CountryCode, "+") + " " + p.Number
	if p.Extension != "" {
		s += " ext. " + p.Extension
	}
	return s
}
