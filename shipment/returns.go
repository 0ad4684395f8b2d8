package shipment

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// This file books the return parcels the returns area asks for
// (event.ReturnShipmentRequested) and serves their labels back to it.

// AttributeOrderExternalID is the attribute of a RETURN shipment that
// names the outbound order it returns goods of: the shipment's parcels are
// then tracked under that order (event.ParcelBooked.OrderExternalID), as
// return parcels are, rather than under an order of their own.
const AttributeOrderExternalID = "order_external_id"

// ReturnParcelGrams is the weight a return parcel is booked with. The
// returned goods are not weighed before the customer hands them in, and a
// return product's price does not depend on the weight; the carrier
// weighs the parcel.
const ReturnParcelGrams = 1000

// ReturnAddresses says where a site's return parcels go.
type ReturnAddresses interface {
	// ReturnReceiver is the receiver of the site's return parcels, false
	// when the site has none.
	ReturnReceiver(site string) (Receiver, bool)
}

// ReturnReceiver implements ReturnAddresses: the site's first warehouse,
// named as the shop presents itself (its branding's display name, else
// the warehouse's name).
func (c CatalogProducts) ReturnReceiver(site string) (Receiver, bool) {
	cat := c[site]
	if cat == nil {
		return Receiver{}, false
	}
	wh, ok := cat.Warehouse("")
	if !ok {
		return Receiver{}, false
	}
	a := wh.Address
	addr := &Address{Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if c := a.Coordinates; c != nil {
		addr.Coordinates = &Coordinates{Lat: c.Lat, Lng: c.Lng}
	}
	name := a.Name
	if b := cat.Branding; b != nil && b.DisplayName != "" {
		name = b.DisplayName
	}
	return Receiver{Name: validation.ClipRunes(cmp.Or(name, site), 256), Address: addr}, true
}

// HandleReturnRequested is the outbox consumer of
// event.TypeReturnShipmentRequested: it books the return parcel as a
// RETURN shipment (CreateAndBook) from the customer's address to the
// site's return receiver (Options.ReturnAddresses), with the requested
// carrier product, under the request's external id. Booking writes
// parcel.booked, as every booking does. It is idempotent by that external
// id: a request delivered again, or racing another, finds the first
// shipment (and finishes its booking if it was interrupted). A failure
// is returned, so the outbox retries it; a request that can never be
// booked (no return receiver, a product the site does not offer) is an
// InvalidArgument, which the outbox does not retry.
func (s *Service) HandleReturnRequested(ctx context.Context, e event.Event) error {
	r, err := event.Decode[event.ReturnShipmentRequested](e)
	if err != nil {
		return err
	}
	site := e.Site
	if sh, err := s.Get(ctx, site, GetShipmentQuery{ExternalID: r.ShipmentExternalID}); err == nil {
		if sh.State == ShipmentCreated {
			_, err = s.BookParcels(ctx, site, ShipmentRef{ShipmentID: sh.ID})
		}
		return err
	} else if !errors.Is(err, deliverykit.ErrNotFound) {
		return err
	}
	if s.opts.ReturnAddresses == nil {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "shipment: no return addresses to book return %s to", r.ReturnID)
	}
	rcv, ok := s.opts.ReturnAddresses.ReturnReceiver(site)
	if !ok {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "shipment: site %s has no address for return parcels", site)
	}
	if r.SenderAddress == nil {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "shipment: return %s has no sender address", r.ReturnID)
	}
	snd := *r.SenderAddress
	req := CreateShipmentRequest{
		ExternalID:    r.ShipmentExternalID,
		DirectionType: DirectionReturn,
		Sender:        &Sender{Name: validation.ClipRunes(r.Sender.Name, 256), Email: r.Sender.Email, Address: &snd},
		Receiver:      &rcv,
		Parcels: []ParcelInput{{Weight: ReturnParcelGrams, Deliveries: []DeliveryInput{{
			// To the receiver's door, whatever the product does on the
			// way out: the customer hands it in at any drop-off point.
			CarrierProductRef: r.ProductRef, DeliveryType: DeliveryDelivery,
		}}}},
	}
	if len([]rune(r.OrderExternalID)) <= MaxReferenceLength {
		req.Reference = r.OrderExternalID
	}
	if r.OrderExternalID != "" {
		req.Attributes = map[string]string{AttributeOrderExternalID: r.OrderExternalID}
	}
	if requiresDeclaration(req.Sender, req.Receiver) {
		req.Customs = s.returnDeclaration(ctx, site, r.OrderExternalID)
	}
	_, err = s.CreateAndBook(ctx, site, req)
	if errors.Is(err, deliverykit.ErrConflict) {
		// A concurrent booking of the same return stored first; it wrote
		// the parcel.booked.
		return nil
	}
	return err
}

// returnDeclaration is the customs declaration of a return across a
// customs border: the goods of the outbound shipment booked under the
// order's external id, declared as returned, with the merchant (the
// outbound exporter) as importer. Without such a shipment it is nil, and
// the default declaration's missing items make the return an
// InvalidArgument: a return across a border cannot be booked without
// knowing its goods.
func (s *Service) returnDeclaration(ctx context.Context, site, orderExternalID string) *CustomsDeclaration {
	if orderExternalID == "" {
		return nil
	}
	out, err := s.Get(ctx, site, GetShipmentQuery{ExternalID: orderExternalID})
	if err != nil || out.DirectionType != DirectionOutbound || out.Customs == nil {
		return nil
	}
	return &CustomsDeclaration{
		ContentsType: ContentsReturn, Incoterm: IncotermDAP, InvoiceNumber: out.Customs.InvoiceNumber,
		Importer: out.Customs.Exporter, Items: slices.Clone(out.Customs.Items),
	}
}

// LabelPDF renders the PDF label of the booked delivery with the tracking
// number (Label with LabelPDF): what the returns area serves on a
// customer's status page.
func (s *Service) LabelPDF(ctx context.Context, site, trackingNumber string) ([]byte, error) {
	b, _, err := s.Label(ctx, site, trackingNumber, LabelPDF)
	return b, err
}

// orderExternalID is the tracking order sh's parcels belong to: the
// outbound order a RETURN shipment names (AttributeOrderExternalID), else
// the shipment's external id, else its id.
func orderExternalID(sh *Shipment) string {
	if sh.DirectionType == DirectionReturn && sh.Attributes[AttributeOrderExternalID] != "" {
		return sh.Attributes[AttributeOrderExternalID]
	}
	return cmp.Or(sh.ExternalID, sh.ID)
}
