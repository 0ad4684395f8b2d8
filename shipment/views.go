package shipment

import (
	"encoding/json"

	"github.com/deliverykit/deliverykit/internal/stored"
)

// This file converts between the stored records (records.go) and the wire
// types the service works with: a stored shipment to the shipmentRecord
// the operations change and answer with, and back, and a create request to
// the record compared when its external_id is created again.

// storeShipment is the record that stores r.
func storeShipment(r *shipmentRecord) storedShipment {
	sh := &r.Shipment
	out := storedShipment{
		Schema: shipmentSchema,
		Shipment: shipmentBody{
			ID: sh.ID, SiteID: sh.SiteID, ExternalID: sh.ExternalID, State: sh.State, DirectionType: sh.DirectionType,
			TosID: sh.TosID, Reference: sh.Reference, Attributes: sh.Attributes,
			Sender:           contactRecord{Name: sh.Sender.Name, Address: addressRecordOf(sh.Sender.Address), Email: sh.Sender.Email, PhoneNumber: sh.Sender.PhoneNumber},
			Receiver:         contactRecord{Name: sh.Receiver.Name, Address: addressRecordOf(sh.Receiver.Address), Email: sh.Receiver.Email, PhoneNumber: sh.Receiver.PhoneNumber},
			ReturnShipmentID: sh.ReturnShipmentID, OutboundShipmentID: sh.OutboundShipmentID,
			CreatedAt: sh.CreatedAt, UpdatedAt: sh.UpdatedAt, BookedAt: sh.BookedAt, CancelledAt: sh.CancelledAt,
			Customs: customsRecordOf(sh.Customs), Documents: documentRecords(sh.Documents),
		},
		Request: r.Request, CarrierIDs: r.CarrierIDs, Unrecorded: r.Unrecorded,
	}
	if sh.Parcels != nil {
		out.Shipment.Parcels = make([]parcelRecord, len(sh.Parcels))
	}
	for i, p := range sh.Parcels {
		pr := parcelRecord{ID: p.ID, ExternalID: p.ExternalID, Weight: p.Weight, Dimensions: dimensionsRecordOf(p.Dimensions), LineItems: lineItemRecords(p.LineItems)}
		if p.Deliveries != nil {
			pr.Deliveries = make([]deliveryRecord, len(p.Deliveries))
		}
		for j, d := range p.Deliveries {
			pr.Deliveries[j] = deliveryRecord{
				ID: d.ID, ShipmentID: d.ShipmentID, ParcelID: d.ParcelID, State: d.State, CarrierProductRef: d.CarrierProductRef,
				CarrierName: d.CarrierName, ProductName: d.ProductName, DeliveryType: d.DeliveryType,
				Sender: senderRecord(d.Sender), Receiver: receiverRecord(d.Receiver), Pickup: pickupRecordOf(d.Pickup),
				TrackingNumber: d.TrackingNumber, TrackingLink: d.TrackingLink,
				BookedAt: d.BookedAt, PickupBookedAt: d.PickupBookedAt, PickedUpAt: d.PickedUpAt, CancelledAt: d.CancelledAt,
				ManifestID: d.ManifestID, Meta: d.Meta,
			}
			if l := d.Label; l != nil {
				lr := labelRecord(*l)
				pr.Deliveries[j].Label = &lr
			}
			if w := d.PickupWindow; w != nil {
				wr := timeSpanRecord(*w)
				pr.Deliveries[j].PickupWindow = &wr
			}
		}
		out.Shipment.Parcels[i] = pr
	}
	return out
}

// loadStoredShipment upgrades a stored shipment and returns what it holds.
func loadStoredShipment(r *storedShipment) (shipmentRecord, error) {
	if err := upgradeShipment(r); err != nil {
		return shipmentRecord{}, err
	}
	b := &r.Shipment
	sh := Shipment{
		ID: b.ID, SiteID: b.SiteID, ExternalID: b.ExternalID, State: b.State, DirectionType: b.DirectionType,
		TosID: b.TosID, Reference: b.Reference, Attributes: b.Attributes,
		Sender:           Sender{Name: b.Sender.Name, Address: wireAddress(b.Sender.Address), Email: b.Sender.Email, PhoneNumber: b.Sender.PhoneNumber},
		Receiver:         Receiver{Name: b.Receiver.Name, Address: wireAddress(b.Receiver.Address), Email: b.Receiver.Email, PhoneNumber: b.Receiver.PhoneNumber},
		ReturnShipmentID: b.ReturnShipmentID, OutboundShipmentID: b.OutboundShipmentID,
		CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt, BookedAt: b.BookedAt, CancelledAt: b.CancelledAt,
		Customs: b.Customs.wire(), Documents: documents(b.Documents),
	}
	if b.Parcels != nil {
		sh.Parcels = make([]Parcel, len(b.Parcels))
	}
	for i, pr := range b.Parcels {
		p := Parcel{ID: pr.ID, ExternalID: pr.ExternalID, Weight: pr.Weight, Dimensions: pr.Dimensions.wire(), LineItems: lineItems(pr.LineItems)}
		if pr.Deliveries != nil {
			p.Deliveries = make([]Delivery, len(pr.Deliveries))
		}
		for j, d := range pr.Deliveries {
			p.Deliveries[j] = Delivery{
				ID: d.ID, ShipmentID: d.ShipmentID, ParcelID: d.ParcelID, State: d.State, CarrierProductRef: d.CarrierProductRef,
				CarrierName: d.CarrierName, ProductName: d.ProductName, DeliveryType: d.DeliveryType,
				Sender: d.Sender.sender(), Receiver: d.Receiver.receiver(), Pickup: d.Pickup.wire(),
				TrackingNumber: d.TrackingNumber, TrackingLink: d.TrackingLink,
				BookedAt: d.BookedAt, PickupBookedAt: d.PickupBookedAt, PickedUpAt: d.PickedUpAt, CancelledAt: d.CancelledAt,
				ManifestID: d.ManifestID, Meta: d.Meta,
			}
			if l := d.Label; l != nil {
				wl := Label(*l)
				p.Deliveries[j].Label = &wl
			}
			if w := d.PickupWindow; w != nil {
				ww := TimeSpan(*w)
				p.Deliveries[j].PickupWindow = &ww
			}
		}
		sh.Parcels[i] = p
	}
	return shipmentRecord{Shipment: sh, Request: r.Request, CarrierIDs: r.CarrierIDs, Unrecorded: r.Unrecorded}, nil
}

// requestRecordOf is the record of what a create request says about the
// shipment.
func requestRecordOf(req CreateShipmentRequest) requestRecord {
	out := requestRecord{
		ExternalID: req.ExternalID, DirectionType: req.DirectionType, TosID: req.TosID, ShippingMethod: req.ShippingMethod,
		Reference: req.Reference, Attributes: req.Attributes,
		Sender: senderRecord(req.Sender), Receiver: receiverRecord(req.Receiver),
		OutboundShipmentID: req.OutboundShipmentID, Customs: customsRecordOf(req.Customs),
	}
	if req.Parcels != nil {
		out.Parcels = make([]parcelInputRecord, len(req.Parcels))
	}
	for _, it := range req.Items {
		out.Items = append(out.Items, itemRecord{SKU: it.SKU, Name: it.Name, Quantity: it.Quantity, Price: it.Price,
			Currency: it.Currency, Discount: it.Discount, Weight: it.Weight, Dimensions: dimensionsRecord(it.Dimensions), ShipAlone: it.ShipAlone})
	}
	for i, p := range req.Parcels {
		pr := parcelInputRecord{ExternalID: p.ExternalID, Weight: p.Weight, Dimensions: dimensionsRecordOf(p.Dimensions), LineItems: lineItemRecords(p.LineItems)}
		if p.Deliveries != nil {
			pr.Deliveries = make([]deliveryInputRecord, len(p.Deliveries))
		}
		for j, d := range p.Deliveries {
			pr.Deliveries[j] = deliveryInputRecord{CarrierProductRef: d.CarrierProductRef, DeliveryType: d.DeliveryType,
				Sender: senderRecord(d.Sender), Receiver: receiverRecord(d.Receiver), Pickup: pickupRecordOf(d.Pickup), Meta: d.Meta}
		}
		out.Parcels[i] = pr
	}
	return out
}

// canonicalJSON encodes v with object keys sorted, so that equal requests
// have equal bytes whatever the field order of their types.
func canonicalJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v) // plain data: cannot fail
	var generic any
	_ = json.Unmarshal(b, &generic)
	b, _ = json.Marshal(generic) // maps encode with sorted keys
	return b
}

func senderRecord(s *Sender) *contactRecord {
	if s == nil {
		return nil
	}
	return &contactRecord{Name: s.Name, Address: addressRecordOf(s.Address), Email: s.Email, PhoneNumber: s.PhoneNumber}
}

func receiverRecord(r *Receiver) *contactRecord {
	if r == nil {
		return nil
	}
	return &contactRecord{Name: r.Name, Address: addressRecordOf(r.Address), Email: r.Email, PhoneNumber: r.PhoneNumber}
}

func (c *contactRecord) sender() *Sender {
	if c == nil {
		return nil
	}
	return &Sender{Name: c.Name, Address: wireAddress(c.Address), Email: c.Email, PhoneNumber: c.PhoneNumber}
}

func (c *contactRecord) receiver() *Receiver {
	if c == nil {
		return nil
	}
	return &Receiver{Name: c.Name, Address: wireAddress(c.Address), Email: c.Email, PhoneNumber: c.PhoneNumber}
}

func addressRecordOf(a *Address) *addressRecord { return stored.Ptr(a, stored.AddressOf) }

func wireAddress(a *addressRecord) *Address { return stored.Ptr(a, stored.Address.Value) }

func pickupRecordOf(p *Pickup) *pickupRecord {
	if p == nil {
		return nil
	}
	return &pickupRecord{ID: p.ID, Address: addressRecordOf(p.Address), LocationType: p.LocationType}
}

func (p *pickupRecord) wire() *Pickup {
	if p == nil {
		return nil
	}
	return &Pickup{ID: p.ID, Address: wireAddress(p.Address), LocationType: p.LocationType}
}

func dimensionsRecordOf(d *Dimensions) *dimensionsRecord {
	if d == nil {
		return nil
	}
	out := dimensionsRecord(*d)
	return &out
}

func (d *dimensionsRecord) wire() *Dimensions {
	if d == nil {
		return nil
	}
	out := Dimensions(*d)
	return &out
}

func lineItemRecords(items []LineItem) []lineItemRecord {
	if items == nil {
		return nil
	}
	out := make([]lineItemRecord, len(items))
	for i, it := range items {
		out[i] = lineItemRecord(it)
	}
	return out
}

func lineItems(items []lineItemRecord) []LineItem {
	if items == nil {
		return nil
	}
	out := make([]LineItem, len(items))
	for i, it := range items {
		out[i] = LineItem(it)
	}
	return out
}

// customsRecordOf is the record of a declaration.
func customsRecordOf(c *CustomsDeclaration) *customsRecord {
	if c == nil {
		return nil
	}
	out := &customsRecord{ContentsType: c.ContentsType, Incoterm: c.Incoterm, InvoiceNumber: c.InvoiceNumber,
		Exporter: (*customsPartyRecord)(c.Exporter), Importer: (*customsPartyRecord)(c.Importer)}
	if c.Items != nil {
		out.Items = make([]customsItemRecord, len(c.Items))
	}
	for i, it := range c.Items {
		out.Items[i] = customsItemRecord(it)
	}
	return out
}

// wire is the declaration r stores.
func (r *customsRecord) wire() *CustomsDeclaration {
	if r == nil {
		return nil
	}
	out := &CustomsDeclaration{ContentsType: r.ContentsType, Incoterm: r.Incoterm, InvoiceNumber: r.InvoiceNumber,
		Exporter: (*CustomsParty)(r.Exporter), Importer: (*CustomsParty)(r.Importer)}
	if r.Items != nil {
		out.Items = make([]CustomsItem, len(r.Items))
	}
	for i, it := range r.Items {
		out.Items[i] = CustomsItem(it)
	}
	return out
}

func documentRecords(ds []Document) []documentRecord {
	var out []documentRecord
	for _, d := range ds {
		out = append(out, documentRecord{Kind: string(d.Kind), PDFURL: d.PDFURL})
	}
	return out
}

func documents(rs []documentRecord) []Document {
	var out []Document
	for _, r := range rs {
		out = append(out, Document{Kind: DocumentKind(r.Kind), PDFURL: r.PDFURL})
	}
	return out
}
