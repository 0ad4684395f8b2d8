package shipment

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/storage"
)

// Label renders the label of a booked delivery (GET /labels/{tracking_number}).
// format is "pdf" (the default when empty) or "zpl"; the content type is
// returned with the bytes. A cancelled delivery's label is void and is not
// served; a picked-up one can still be printed again.
func (s *Service) Label(ctx context.Context, site, trackingNumber string, format LabelFormat) ([]byte, string, error) {
	format = cmp.Or(format, LabelPDF)
	if format != LabelPDF && format != LabelZPL {
		return nil, "", deliverykit.InvalidField("format", "oneof", "must be one of pdf, zpl")
	}
	if err := s.checkTrackingNumber("tracking_number", trackingNumber); err != nil {
		return nil, "", err
	}
	it, err := s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		return loadByIndex(tx, byTracking, site, trackingNumber, "delivery", "tracking_number")
	})
	if err != nil {
		return nil, "", err
	}
	sh := &it.Value.Shipment
	i, j, ok := findDelivery(sh, func(d *Delivery) bool { return d.TrackingNumber == trackingNumber })
	if !ok {
		return nil, "", notFound("delivery", "tracking_number")
	}
	d := &sh.Parcels[i].Deliveries[j]
	if d.State == DeliveryCancelled {
		return nil, "", wrongState("delivery", trackingNumber, d.State, "printing its label")
	}
	data := labelData(sh, i, d)
	if format == LabelZPL {
		b, err := label.ZPL(data)
		return b, "application/zpl; charset=utf-8", err
	}
	b, err := label.PDF(data)
	return b, "application/pdf", err
}

// labelData is what the label of delivery d of parcel i shows.
func labelData(sh *Shipment, i int, d *Delivery) label.Data {
	p := &sh.Parcels[i]
	snd, rcv := legSender(sh, d), legReceiver(sh, d)
	data := label.Data{
		TrackingNumber: d.TrackingNumber, CarrierName: d.CarrierName, ProductName: d.ProductName,
		SenderName: snd.Name, SenderLines: addressLines(snd.Address),
		ReceiverName: rcv.Name, ReceiverLines: addressLines(rcv.Address),
		WeightGrams: p.Weight, Reference: sh.Reference,
		Parcel: fmt.Sprintf("%d/%d", i+1, len(sh.Parcels)),
	}
	if d.Label != nil {
		data.RoutingCode = d.Label.RoutingCode
	}
	if d.Pickup != nil {
		lines := []string{"Pickup point " + d.Pickup.ID}
		data.ReceiverLines = append(lines, addressLines(d.Pickup.Address)...)
	}
	if p.Dimensions != nil {
		data.Dimensions = fmt.Sprintf("%d x %d x %d mm", p.Dimensions.Length, p.Dimensions.Width, p.Dimensions.Height)
	}
	if d.BookedAt != nil {
		data.Date = *d.BookedAt
	}
	return data
}

// addressLines formats an address for a label: street lines, c/o and
// attention, postal code and city, region, country.
func addressLines(a *Address) []string {
	if a == nil {
		return nil
	}
	var out []string
	add := func(prefix, s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, prefix+s)
		}
	}
	add("c/o ", a.CareOf)
	add("Attn: ", a.Attn)
	add("", a.BuildingName)
	if len(a.AddressLines) > 0 {
		for _, l := range a.AddressLines {
			add("", l)
		}
	} else {
		add("", strings.TrimSpace(a.Street+" "+a.StreetNumber))
	}
	unit := []string{}
	if a.ApartmentNumber != "" {
		unit = append(unit, "Apt "+a.ApartmentNumber)
	}
	if a.FloorNumber != "" {
		unit = append(unit, "Floor "+a.FloorNumber)
	}
	add("", strings.Join(unit, ", "))
	add("PO Box ", a.POBoxID)
	add("", strings.TrimSpace(a.PostalCode+" "+a.City))
	add("", a.Region)
	add("", a.Country)
	return out
}
