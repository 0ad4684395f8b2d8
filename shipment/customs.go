package shipment

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/shipment/customs"
	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/storage"
)

// ContentsType is what a customs declaration's goods are.
type ContentsType string

// ContentsType values.
const (
	ContentsSale      ContentsType = "sale"
	ContentsGift      ContentsType = "gift"
	ContentsDocuments ContentsType = "documents"
	ContentsReturn    ContentsType = "return"
	ContentsSample    ContentsType = "sample"
)

// Incoterm says who pays duties and import VAT: DAP the receiver, DDP the
// sender.
type Incoterm string

// Incoterm values.
const (
	IncotermDAP Incoterm = "DAP"
	IncotermDDP Incoterm = "DDP"
)

// DocumentKind is a customs document's kind (package shipment/customs).
type DocumentKind = customs.Kind

// MaxCustomsItems is the most items of a customs declaration.
const MaxCustomsItems = 100

// CustomsDeclaration declares a shipment's goods to customs. It is
// required when the sender and the receiver are in different customs
// territories (customs.RequiresDeclaration); what it leaves out defaults:
// contents_type to sale (return for a RETURN shipment), incoterm to DAP,
// invoice_number to the shipment's reference, and items to one item per
// line item of the parcels. An item naming a sku takes its description,
// quantity, value and currency from that line item when it leaves them
// out. Missing data after the defaults is a 400 naming each field.
type CustomsDeclaration struct {
	ContentsType ContentsType `json:"contents_type,omitempty" validate:"omitempty,oneof=sale gift documents return sample"`
	Incoterm     Incoterm     `json:"incoterm,omitempty" validate:"omitempty,oneof=DAP DDP"`
	// InvoiceNumber is required for a sale.
	InvoiceNumber string        `json:"invoice_number,omitempty" validate:"omitempty,max_ref"`
	Exporter      *CustomsParty `json:"exporter,omitempty" validate:"omitempty"`
	Importer      *CustomsParty `json:"importer,omitempty" validate:"omitempty"`
	Items         []CustomsItem `json:"items,omitempty" validate:"required,min=1,max_customs_items,dive"`
}

// CustomsParty is the exporter's or the importer's tax identity. A sale
// needs the exporter's EORI number.
type CustomsParty struct {
	VAT  string `json:"vat,omitempty" validate:"omitempty,max_code"`
	EORI string `json:"eori,omitempty" validate:"omitempty,max_code"`
}

// CustomsItem is one line of a declaration.
type CustomsItem struct {
	// SKU names the line item the missing fields default from.
	SKU         string `json:"sku,omitempty" validate:"omitempty,max_id"`
	Description string `json:"description" validate:"required,max_title"`
	// HSCode is the Harmonized System code: 6 to 10 digits.
	HSCode string `json:"hs_code" validate:"required,max_code"`
	// OriginCountry is where the goods were made (ISO 3166-1 alpha-2).
	OriginCountry string `json:"origin_country" validate:"required,iso3166_1_alpha2"`
	Quantity      int32  `json:"quantity" validate:"gt=0,lte=1000000"`
	// NetWeight is the goods' weight without packaging, grams.
	NetWeight int32 `json:"net_weight" validate:"gt=0,lte=1000000"`
	// Value is the line's value (all its quantity), minor units.
	Value    int32  `json:"value" validate:"gte=0"`
	Currency string `json:"currency" validate:"required,iso4217"`
}

// Document is a customs document of a booked shipment, rendered on
// request at PDFURL (DocumentPath).
type Document struct {
	Kind   DocumentKind `json:"kind"`
	PDFURL string       `json:"pdf_url"`
}

// DocumentPath is the path of the customs documents endpoint: a
// shipment's document is at DocumentPath + shipment id + "/" + kind
// (?format=pdf).
const DocumentPath = "/v1/som/documents/"

// requiresDeclaration reports whether goods from snd to rcv cross a
// customs border.
func requiresDeclaration(snd *Sender, rcv *Receiver) bool {
	if snd == nil || rcv == nil || snd.Address == nil || rcv.Address == nil {
		return false
	}
	ok, _ := customs.RequiresDeclaration(*snd.Address, *rcv.Address)
	return ok
}

// withCustoms fills in the request's declaration: a default one when the
// shipment crosses a customs border and has none, and the defaults of
// CustomsDeclaration in a given one. The caller's declaration is left as
// it was.
func withCustoms(req CreateShipmentRequest) CreateShipmentRequest {
	if req.Customs == nil && !requiresDeclaration(req.Sender, req.Receiver) {
		return req
	}
	if len(req.Parcels) > MaxParcels {
		return req // the tags refuse the parcels unseen
	}
	var c CustomsDeclaration
	if req.Customs != nil {
		c = *req.Customs
	}
	def := ContentsSale
	if req.DirectionType == DirectionReturn {
		def = ContentsReturn
	}
	c.ContentsType = cmp.Or(c.ContentsType, def)
	c.Incoterm = cmp.Or(c.Incoterm, IncotermDAP)
	c.InvoiceNumber = cmp.Or(c.InvoiceNumber, req.Reference)
	var lines []LineItem
	for _, p := range req.Parcels {
		if len(p.LineItems) <= MaxParcelLineItems {
			lines = append(lines, p.LineItems...)
		}
	}
	if len(c.Items) == 0 {
		// One past the limit is enough for the tags to refuse the list.
		c.Items = nil
		for _, l := range lines[:min(len(lines), MaxCustomsItems+1)] {
			c.Items = append(c.Items, itemFromLine(CustomsItem{SKU: l.SKU}, l))
		}
	} else if len(c.Items) <= MaxCustomsItems {
		items := make([]CustomsItem, len(c.Items))
		for i, it := range c.Items {
			items[i] = it
			if it.SKU == "" {
				continue
			}
			for _, l := range lines {
				if l.SKU == it.SKU {
					items[i] = itemFromLine(it, l)
					break
				}
			}
		}
		c.Items = items
	}
	req.Customs = &c
	return req
}

// itemFromLine fills the fields it leaves out from line item l.
func itemFromLine(it CustomsItem, l LineItem) CustomsItem {
	it.Description = cmp.Or(it.Description, l.Name, l.SKU)
	if it.Quantity == 0 {
		it.Quantity = l.Quantity
	}
	if it.Value == 0 {
		it.Value = int32(min(int64(l.Price)*int64(it.Quantity), math.MaxInt32))
	}
	it.Currency = cmp.Or(it.Currency, l.Currency)
	return it
}

// checkCustoms adds what the tags cannot say about a declaration to vs: it
// is required across a customs border, HS codes are 6 to 10 digits, a
// sale has an invoice number and the exporter's EORI number, and every
// item is in the first item's currency (the documents add the values up).
func checkCustoms(vs *validation.Violations, req *CreateShipmentRequest) {
	c := req.Customs
	if c == nil {
		return
	}
	if c.ContentsType == ContentsSale {
		if c.InvoiceNumber == "" {
			vs.Add("customs.invoice_number", "required_if", "is required for a sale")
		}
		if c.Exporter == nil || c.Exporter.EORI == "" {
			vs.Add("customs.exporter.eori", "required_if", "is required for a sale")
		}
	}
	if len(c.Items) > MaxCustomsItems {
		return
	}
	for i, it := range c.Items {
		f := fmt.Sprintf("customs.items[%d]", i)
		if it.HSCode != "" && !hsCode(it.HSCode) {
			vs.Add(f+".hs_code", "hs_code", "must be 6 to 10 digits")
		}
		if i > 0 && it.Currency != "" && it.Currency != c.Items[0].Currency {
			vs.Add(f+".currency", "eqfield", "must be the currency of items[0]")
		}
	}
}

// hsCode reports whether s is 6 to 10 digits.
func hsCode(s string) bool {
	if len(s) < 6 || len(s) > 10 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// postalDelivery reports whether a leg is carried as a postal item: a
// MAILBOX or PICKUP (service point) delivery goes through a postal
// network and is declared on a CN22 or CN23; a home delivery or an
// in-store one is a courier parcel, declared with a commercial invoice.
func postalDelivery(t DeliveryType) bool {
	return t == DeliveryMailbox || t == DeliveryPickup
}

// documentsFor decides a shipment's customs documents (customs.Documents):
// each parcel counts by the type of its last live leg, the one that
// crosses into the receiver's territory.
func (s *Service) documentsFor(sh *Shipment) []Document {
	c := sh.Customs
	if c == nil || !requiresDeclaration(&sh.Sender, &sh.Receiver) || len(c.Items) == 0 {
		return nil
	}
	var parcels []customs.Parcel
	for _, p := range sh.Parcels {
		for j := len(p.Deliveries) - 1; j >= 0; j-- {
			if d := p.Deliveries[j]; d.State != DeliveryCancelled {
				parcels = append(parcels, customs.Parcel{Postal: postalDelivery(d.DeliveryType), Grams: p.Weight})
				break
			}
		}
	}
	kinds := customs.Documents(parcels, declaredValue(c), c.Items[0].Currency, string(c.ContentsType))
	out := make([]Document, len(kinds))
	for i, k := range kinds {
		out[i] = Document{Kind: k, PDFURL: s.opts.LabelBaseURL + DocumentPath + sh.ID + "/" + string(k) + "?format=pdf"}
	}
	return out
}

// declaredValue is the declaration's total value.
func declaredValue(c *CustomsDeclaration) int64 {
	var v int64
	for _, it := range c.Items {
		v += int64(it.Value)
	}
	return v
}

// Document renders a customs document of a booked shipment
// (GET /documents/{shipment_id}/{kind}): kind is one of the shipment's
// documents, format "pdf" (the default when empty). It is rendered on
// request from the stored declaration, so the same shipment always gives
// the same bytes. A cancelled shipment's documents are void and are not
// served.
func (s *Service) Document(ctx context.Context, site, shipmentID string, kind DocumentKind, format LabelFormat) ([]byte, string, error) {
	if cmp.Or(format, LabelPDF) != LabelPDF {
		return nil, "", deliverykit.InvalidField("format", "oneof", "must be pdf")
	}
	if utf8.RuneCountInString(shipmentID) > validation.MaxIDLength {
		return nil, "", deliverykit.InvalidField("shipment_id", "max", "must be at most 128 characters")
	}
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		return loadShipment(tx, site, shipmentID, "shipment_id")
	})
	if err != nil {
		return nil, "", err
	}
	sh := &it.Value.Shipment
	if !slices.ContainsFunc(sh.Documents, func(d Document) bool { return d.Kind == kind }) {
		return nil, "", notFound("customs document", "kind")
	}
	if sh.State == ShipmentCancelled {
		return nil, "", wrongState("shipment", sh.ID, sh.State, "printing its customs documents")
	}
	data := customsData(sh)
	var b []byte
	switch kind {
	case customs.CN22:
		b, err = label.CN22(data)
	case customs.CN23:
		b, err = label.CN23(data)
	default:
		b, err = label.CommercialInvoice(data)
	}
	return b, "application/pdf", err
}

// customsData is what the customs documents of sh show.
func customsData(sh *Shipment) label.CustomsData {
	c := sh.Customs
	d := label.CustomsData{
		ShipmentID: sh.ID, SenderName: sh.Sender.Name, SenderLines: addressLines(sh.Sender.Address),
		ReceiverName: sh.Receiver.Name, ReceiverLines: addressLines(sh.Receiver.Address),
		ContentsType: string(c.ContentsType), Incoterm: string(c.Incoterm), InvoiceNumber: c.InvoiceNumber,
	}
	if c.Exporter != nil {
		d.ExporterVAT, d.ExporterEORI = c.Exporter.VAT, c.Exporter.EORI
	}
	if c.Importer != nil {
		d.ImporterVAT, d.ImporterEORI = c.Importer.VAT, c.Importer.EORI
	}
	if len(c.Items) > 0 {
		d.Currency = c.Items[0].Currency
		d.Decimals = customs.MinorDigits(d.Currency)
	}
	for _, it := range c.Items {
		d.Items = append(d.Items, label.CustomsItem{Description: it.Description, HSCode: it.HSCode, Origin: it.OriginCountry,
			Quantity: it.Quantity, NetGrams: it.NetWeight, Value: int64(it.Value)})
	}
	for _, p := range sh.Parcels {
		d.GrossGrams += p.Weight
		for _, dl := range p.Deliveries {
			if dl.TrackingNumber != "" && dl.State != DeliveryCancelled {
				d.TrackingNumbers = append(d.TrackingNumbers, dl.TrackingNumber)
			}
		}
	}
	if sh.BookedAt != nil {
		d.Date = *sh.BookedAt
	}
	return d
}
