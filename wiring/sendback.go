package wiring

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/checkout/options"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
)

// This file connects how a customer sends a return back: returns.Labels
// over the shipments area (a return label is a RETURN shipment, booked and
// tracked like any other) and returns.DropOffs over the catalog's pickup
// locations and the options engine's nearest-location index.

// DefaultDropOffMaxDistanceKm is how far a drop-off point may be from the
// customer to be listed, as the checkout's pickup categories default to.
const DefaultDropOffMaxDistanceKm = 50

// maxDropOffPoints bounds what one status page asks for.
const maxDropOffPoints = 20

// DropOffs adapts the sites' catalogs to returns.DropOffs: the pickup
// locations of the return product's carrier nearest to the customer's
// address, which its coordinates place or, without them, its postal code
// through the catalog's postal areas (the checkout's geocoder). Build it
// with NewDropOffs; it is safe for concurrent use.
type DropOffs struct {
	sites map[string]*siteDropOffs
	maxKm int
}

type siteDropOffs struct {
	cat *catalog.Catalog
	geo *options.PostalGeocoder
	// byCarrier holds each carrier's pickup locations and their index.
	byCarrier map[string]carrierPoints
}

type carrierPoints struct {
	locs []catalog.PickupLocation
	ix   *options.Index
}

// NewDropOffs indexes the pickup locations of every site's catalog, per
// carrier. maxKm is how far from the customer a point may be
// (DefaultDropOffMaxDistanceKm when 0).
func NewDropOffs(catalogs map[string]*catalog.Catalog, maxKm int) *DropOffs {
	d := &DropOffs{sites: map[string]*siteDropOffs{}, maxKm: maxKm}
	if d.maxKm <= 0 {
		d.maxKm = DefaultDropOffMaxDistanceKm
	}
	for site, cat := range catalogs {
		s := &siteDropOffs{cat: cat, geo: options.NewPostalGeocoder(cat), byCarrier: map[string]carrierPoints{}}
		byCarrier := map[string][]catalog.PickupLocation{}
		for _, l := range cat.PickupLocations {
			if l.Address.Coordinates != nil { // a valid catalog's always have them
				byCarrier[l.Carrier] = append(byCarrier[l.Carrier], l)
			}
		}
		for carrier, locs := range byCarrier {
			coords := make([]catalog.Coordinates, len(locs))
			for i, l := range locs {
				coords[i] = *l.Address.Coordinates
			}
			s.byCarrier[carrier] = carrierPoints{locs: locs, ix: options.NewIndex(coords)}
		}
		d.sites[site] = s
	}
	return d
}

// DropOffPoints implements returns.DropOffs.
func (d *DropOffs) DropOffPoints(ctx context.Context, site, product string, near returns.Address, n int) ([]returns.DropOffPoint, error) {
	s := d.sites[site]
	if s == nil || n <= 0 {
		return nil, nil
	}
	p, ok := s.cat.Product(product)
	if !ok {
		return nil, fmt.Errorf("return product %q is not in the catalog of site %s", product, site)
	}
	points, ok := s.byCarrier[p.CarrierID]
	if !ok {
		return nil, nil
	}
	addr := catalog.Address{PostalCode: near.PostalCode, Country: near.Country}
	if c := near.Coordinates; c != nil {
		addr.Coordinates = &catalog.Coordinates{Lat: c.Lat, Lng: c.Lng}
	}
	at, placed, err := s.geo.Geocode(ctx, addr)
	if err != nil || !placed {
		return nil, err // an address nothing places gets no arbitrary points
	}
	var out []returns.DropOffPoint
	for _, nb := range points.ix.Nearest(at, min(n, maxDropOffPoints)) {
		if nb.Meters > float64(d.maxKm)*1000 {
			break // nearest first: the rest are farther
		}
		l := points.locs[nb.Item]
		a := returns.Address{Name: l.Address.Name, AddressLines: l.Address.AddressLines, PostalCode: l.Address.PostalCode,
			City: l.Address.City, Country: l.Address.Country}
		if c := l.Address.Coordinates; c != nil {
			a.Coordinates = &returns.Coordinates{Lat: c.Lat, Lng: c.Lng}
		}
		out = append(out, returns.DropOffPoint{ID: l.ID, Name: l.Name, Address: a, Hours: l.Hours, Meters: nb.Meters})
	}
	return out, nil
}

// ReturnLabels adapts the shipments area to returns.Labels: a return
// label is a RETURN shipment from the customer's delivery address to the
// site's first warehouse, booked with the return product (CreateAndBook),
// so the carrier is called, the label rendered and the parcel tracked
// like any shipment. Its external id is ReturnShipmentExternalID of the
// return, which makes booking idempotent by return id: a booking repeated
// or racing another finds the first shipment and its tracking number.
type ReturnLabels struct {
	Shipment *shipment.Service
	Catalogs map[string]*catalog.Catalog
	// SiteNames name the receiver (the merchant) on the label; default
	// the warehouse's name.
	SiteNames map[string]string
}

// ReturnShipmentExternalID is the external id of the RETURN shipment of
// return id: unique per site, as return ids are.
func ReturnShipmentExternalID(returnID uint64) string {
	return "return-" + strconv.FormatUint(returnID, 10)
}

// ReturnParcelGrams is the weight a return parcel is booked with. The
// returned goods are not weighed before the customer hands them in, and a
// return product's price does not depend on the weight (the policy's
// return_cost is flat); the carrier weighs the parcel.
const ReturnParcelGrams = 1000

// BookReturnLabel implements returns.Labels.
func (l ReturnLabels) BookReturnLabel(ctx context.Context, site string, req returns.LabelRequest) (returns.BookedLabel, error) {
	ext := ReturnShipmentExternalID(req.ReturnID)
	if b, err := l.booked(ctx, site, ext); err == nil || !errors.Is(err, deliverykit.ErrNotFound) {
		return b, err
	}
	cat := l.Catalogs[site]
	if cat == nil {
		return returns.BookedLabel{}, fmt.Errorf("site %s has no catalog", site)
	}
	wh, ok := cat.Warehouse("")
	if !ok {
		return returns.BookedLabel{}, fmt.Errorf("site %s has no warehouse to return to", site)
	}
	name := l.SiteNames[site]
	if name == "" {
		name = wh.Address.Name
	}
	if name == "" {
		name = site
	}
	sender := &shipment.Address{AddressLines: req.Sender.AddressLines, PostalCode: req.Sender.PostalCode, City: req.Sender.City, Country: req.Sender.Country}
	if c := req.Sender.Coordinates; c != nil {
		sender.Coordinates = &shipment.Coordinates{Lat: c.Lat, Lng: c.Lng}
	}
	receiver := shipmentAddressOf(wh.Address)
	in := shipment.CreateShipmentRequest{
		ExternalID:    ext,
		DirectionType: shipment.DirectionReturn,
		Sender:        &shipment.Sender{Name: validation.ClipRunes(req.Sender.Name, 256), Address: sender},
		Receiver:      &shipment.Receiver{Name: validation.ClipRunes(name, 256), Address: receiver},
		Parcels: []shipment.ParcelInput{{Weight: ReturnParcelGrams, Deliveries: []shipment.DeliveryInput{{
			// To the warehouse's door, whatever the product does on the
			// way out: the customer hands it in at any drop-off point.
			CarrierProductRef: req.Product, DeliveryType: shipment.DeliveryDelivery,
		}}}},
	}
	if utf8.RuneCountInString(req.OrderForeignID) <= 64 {
		in.Reference = req.OrderForeignID
	}
	if req.Email != "" {
		in.Sender.Email = req.Email
	}
	sh, err := l.Shipment.CreateAndBook(ctx, site, in)
	if errors.Is(err, deliverykit.ErrConflict) {
		// A concurrent booking of the same return won: its shipment is
		// the answer.
		return l.booked(ctx, site, ext)
	}
	if err != nil {
		return returns.BookedLabel{}, fmt.Errorf("booking the return parcel of return %d: %w", req.ReturnID, err)
	}
	return bookedLabel(sh)
}

// booked is the label of the return shipment with external id ext, or
// NotFound when there is none yet.
func (l ReturnLabels) booked(ctx context.Context, site, ext string) (returns.BookedLabel, error) {
	sh, err := l.Shipment.Get(ctx, site, shipment.GetShipmentQuery{ExternalID: ext})
	if err != nil {
		return returns.BookedLabel{}, err
	}
	if sh.State == shipment.ShipmentCreated {
		// Created but not booked (a booking interrupted before the
		// carrier answered): book it now; booking is idempotent.
		if sh, err = l.Shipment.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}); err != nil {
			return returns.BookedLabel{}, err
		}
	}
	return bookedLabel(sh)
}

func bookedLabel(sh *shipment.Shipment) (returns.BookedLabel, error) {
	for _, p := range sh.Parcels {
		for _, d := range p.Deliveries {
			if d.TrackingNumber != "" && d.State != shipment.DeliveryCancelled {
				return returns.BookedLabel{TrackingNumber: d.TrackingNumber, CarrierName: d.CarrierName}, nil
			}
		}
	}
	return returns.BookedLabel{}, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "return shipment %s has no booked delivery", sh.ID)
}

// ReturnLabelPDF implements returns.Labels.
func (l ReturnLabels) ReturnLabelPDF(ctx context.Context, site, trackingNumber string) ([]byte, error) {
	pdf, _, err := l.Shipment.Label(ctx, site, trackingNumber, shipment.LabelPDF)
	return pdf, err
}

func shipmentAddressOf(a catalog.Address) *shipment.Address {
	out := &shipment.Address{Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if c := a.Coordinates; c != nil {
		out.Coordinates = &shipment.Coordinates{Lat: c.Lat, Lng: c.Lng}
	}
	return out
}

var (
	_ returns.Labels   = ReturnLabels{}
	_ returns.DropOffs = (*DropOffs)(nil)
)
