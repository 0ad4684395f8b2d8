package webhook

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// CatalogueEntry describes one event type a webhook endpoint can
// subscribe to, with an example.
type CatalogueEntry struct {
	Type event.Type
	// Area is the part of the service that emits it.
	Area string
	// Summary says when it is sent and what Subject is.
	Summary string
	// Subject and Example are an example event's subject and payload.
	Subject string
	Example event.Payload
}

// ExampleSite is the site of the catalogue's examples.
const ExampleSite = "demo-site"

// ExampleBody is the delivery body of e's example, indented.
func (e CatalogueEntry) ExampleBody() ([]byte, error) {
	ev, err := event.New("evt_"+string(e.Type), ExampleSite, e.Subject, exampleTime, e.Example)
	if err != nil {
		return nil, err
	}
	b, err := body(ev)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

var exampleTime = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// Catalogue lists every event type, in the order of event.Types. It is one
// table of data, an entry per type, and longer than a function should be
// for that reason only.
func Catalogue() []CatalogueEntry {
	t := exampleTime
	receiver := deliverykit.Contact{Name: "Alva Berg", Email: "alva@example.com", Phone: "+46701234567"}
	home := &deliverykit.Address{Street: "Storgatan", StreetNumber: "12", PostalCode: "11122", City: "Stockholm", Country: "SE"}
	warehouse := &deliverykit.Address{Street: "Lagervägen", StreetNumber: "4", PostalCode: "13631", City: "Haninge", Country: "SE"}
	received := t.Add(-2 * time.Hour)
	returned := event.ReturnChanged{
		ReturnID: "1042", OrderExternalID: "SO-10071", Status: "AWAITING_RETURN", Currency: "SEK",
		Items:     []event.ReturnItem{{LineItemID: "line-1", SKU: "TENT-2P", Quantity: 1, Status: "AWAITING_RETURN"}},
		StatusURL: "https://track.example.com/returns/customer/return/rt_3kq2", ChangedAt: t,
	}
	statusChanged := returned
	statusChanged.PreviousStatus, statusChanged.Status = "AWAITING_RETURN", "IN_TRANSIT"
	itemsReceived := returned
	itemsReceived.PreviousStatus, itemsReceived.Status = "IN_TRANSIT", "AWAITING_REFUND"
	itemsReceived.Items = []event.ReturnItem{{LineItemID: "line-1", SKU: "TENT-2P", Quantity: 1, Status: "RETURNED", ReceivedAt: &received}}
	refund := itemsReceived
	refund.PreviousStatus, refund.Status = "AWAITING_REFUND", "COMPLETED"
	refund.Refund = &event.Refund{Status: "REFUNDED", Amount: 189900, ID: "7", TransactionStatus: "SUCCESS", ForeignID: "re_3f9a"}
	complaint := itemsReceived
	complaint.PreviousStatus = complaint.Status
	complaint.Items = []event.ReturnItem{{LineItemID: "line-1", SKU: "TENT-2P", Quantity: 1, Status: "RETURNED", ReceivedAt: &received, ComplaintStatus: "APPROVED"}}
	return []CatalogueEntry{
		{Type: event.TypeOrderCompleted, Area: "checkout (C), delivery session (D)",
			Summary: "A checkout session, or one delivery of a delivery session, was completed: an order to ship. Subject: the order's tos_id.",
			Subject: "tos_7f3a",
			Example: event.OrderCompleted{
				TosID: "tos_7f3a", ExternalID: "SO-10071", SessionID: "cs_91b2", Source: "checkout", OptionID: "home/north-parcel-home", CompletedAt: t,
				Locale: "sv-SE", Country: "SE", Currency: "SEK", ProductRef: "north-parcel-point", DeliveryType: "pickup",
				Warehouse: warehouse, Customer: receiver, CustomerAddress: home,
				Pickup:        &event.Location{ExternalID: "NP-4471", Type: "store", Address: deliverykit.Address{Name: "Corner Shop Storgatan", Street: "Storgatan", StreetNumber: "30", PostalCode: "11123", City: "Stockholm", Country: "SE"}},
				Cart:          event.Cart{Total: 189900, Items: []event.Item{{SKU: "TENT-2P", Name: "Tent, 2 persons", Quantity: 1, Price: 189900}}},
				ShippingPrice: 4900,
				Promise:       &event.TimeRange{Earliest: t.Add(24 * time.Hour), Latest: t.Add(72 * time.Hour)},
			}},
		{Type: event.TypeParcelBooked, Area: "shipments (F)",
			Summary: "A shipment delivery was booked with its carrier and has a tracking number. Subject: the tracking number.",
			Subject: "CP000000014SE",
			Example: event.ParcelBooked{
				ShipmentID: "shp_52c1", DeliveryID: "shp_52c1-P1-D1", OrderExternalID: "SO-10071", TrackingNumber: "CP000000014SE",
				ProductRef: "north-parcel-point", Direction: "OUTBOUND", DeliveryType: "PICKUP",
				Sender: deliverykit.Contact{Name: "Demo Outdoor Store"}, SenderAddress: warehouse, Receiver: receiver, ReceiverAddress: home,
				Currency: "SEK", Items: []event.Item{{SKU: "TENT-2P", Name: "Tent, 2 persons", Quantity: 1, Price: 189900}}, BookedAt: t,
			}},
		{Type: event.TypeParcelChanged, Area: "tracking (A)",
			Summary: "A tracked parcel has a new step (step) or a new alert (alert). Subject: the tracking number.",
			Subject: "CP000000014SE",
			Example: event.ParcelChanged{
				TosID: "tos_7f3a", ExternalID: "SO-10071", TrackingNumber: "CP000000014SE", Step: "OUT_FOR_DELIVERY", Time: t,
				DeliveryType: "PICKUP", Receiver: receiver, TrackingLink: "https://track.example.com/tracking/tk_8d1e", Locale: "sv-SE", Direction: "OUTBOUND",
			}},
		{Type: event.TypeNotificationSent, Area: "notifications (B)",
			Summary: "A customer notification was sent. Subject: the parcel's tracking number, else the order's external id.",
			Subject: "CP000000014SE",
			Example: event.NotificationSent{NotificationID: "ntf_0c4d", Name: "OUT_FOR_DELIVERY", Channel: "EMAIL", ExternalID: "SO-10071",
				TrackingNumber: "CP000000014SE", Language: "sv", Attempts: 1, At: t},
		},
		{Type: event.TypeNotificationFailed, Area: "notifications (B)",
			Summary: "An attempt to send a customer notification failed; it is retried (with backoff) until it is sent or cancelled. Subject: the parcel's tracking number, else the order's external id.",
			Subject: "CP000000014SE",
			Example: event.NotificationFailed{NotificationID: "ntf_0c4e", Name: "DELIVERED", Channel: "SMS", ExternalID: "SO-10071",
				TrackingNumber: "CP000000014SE", Language: "sv", Attempts: 2, Error: "the SMS gateway refused the number", At: t},
		},
		{Type: event.TypeDeliveryPickedUp, Area: "shipments (F)",
			Summary: "The carrier collected a booked delivery; it can no longer be cancelled. Subject: the tracking number.",
			Subject: "CP000000014SE",
			Example: event.DeliveryPickedUp{ShipmentID: "shp_52c1", DeliveryID: "shp_52c1-P1-D1", OrderExternalID: "SO-10071",
				TrackingNumber: "CP000000014SE", ProductRef: "north-parcel-point", PickedUpAt: t},
		},
		{Type: event.TypeReturnCreated, Area: "returns (E)",
			Summary: "A customer created a return. Subject: the return id.",
			Subject: "1042", Example: event.ReturnCreated(returned)},
		{Type: event.TypeReturnStatusChanged, Area: "returns (E)",
			Summary: "A return's status changed (previous_status → status). Subject: the return id.",
			Subject: "1042", Example: event.ReturnStatusChanged(statusChanged)},
		{Type: event.TypeReturnItemsReceived, Area: "returns (E)",
			Summary: "The warehouse received items of a return (items[].received_at): its return parcel was delivered (items AWAITING_INSPECTION), or the merchant reported items. Subject: the return id.",
			Subject: "1042", Example: event.ReturnItemsReceived(itemsReceived)},
		{Type: event.TypeRefundChanged, Area: "returns (E)",
			Summary: "A return's refund changed (refund.status, refund.amount). Subject: the return id.",
			Subject: "1042", Example: event.RefundChanged(refund)},
		{Type: event.TypeCarrierEventReported, Area: "carrier integrations (the built-in simulator)",
			Summary: "A carrier reported a step or an alert of a parcel, as its integration received it; tracking applies it, and a parcel.changed follows when the parcel changed. Subject: the tracking number.",
			Subject: "CP000000014SE",
			Example: event.CarrierEventReported{TrackingNumber: "CP000000014SE", ProductRef: "north-parcel-point", Step: "STEP_SUBMITTED_TO_CARRIER",
				Time: t, Estimate: &event.TimeRange{Earliest: t.Add(24 * time.Hour), Latest: t.Add(72 * time.Hour)}, Source: "simulator"},
		},
		{Type: event.TypeReturnShipmentRequested, Area: "returns (E)",
			Summary: "A return needs its return parcel booked (the site's return policy names a return product); the shipments area books it, and a parcel.booked with direction RETURN follows. Subject: the return id.",
			Subject: "1042",
			Example: event.ReturnShipmentRequested{ReturnID: "1042", ShipmentExternalID: "return-1042", OrderExternalID: "SO-10071",
				ProductRef: "north-parcel-point", Sender: receiver, SenderAddress: home, RequestedAt: t},
		},
		{Type: event.TypeReturnComplaintDecided, Area: "returns (E)",
			Summary: "The merchant approved or rejected a customer's complaint about a returned line (items[].complaint_status). Subject: the return id.",
			Subject: "1042", Example: event.ReturnComplaintDecided(complaint)},
		{Type: event.TypeParcelRegistered, Area: "tracking (A)",
			Summary: "The merchant registered a parcel of a tracking order (POST /parcel.create); parcels booked through shipments are reported by parcel.booked instead. Subject: the tracking number.",
			Subject: "00370726201234567890",
			Example: event.ParcelRegistered{TosID: "tos_7f3a", OrderExternalID: "SO-10071", TrackingNumber: "00370726201234567890",
				ProductRef: "swift-courier-home", Direction: "OUTBOUND", DeliveryType: "DELIVERY", RegisteredAt: t},
		},
	}
}
