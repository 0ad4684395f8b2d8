package returns

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/options"
)

// DefaultDropOffMaxDistanceKm is how far a drop-off point may be from the
// customer to be listed, as the checkout's pickup categories default to.
const DefaultDropOffMaxDistanceKm = 50

// maxDropOffPoints bounds what one status page asks for.
const maxDropOffPoints = 20

// CatalogDropOffs are the sites' catalogs as DropOffs: the pickup
// locations of the return product's carrier nearest to the customer's
// address, which its coordinates place or, without them, its postal code
// through the catalog's postal areas (the checkout's geocoder). Build it
// with NewCatalogDropOffs; it is safe for concurrent use.
type CatalogDropOffs struct {
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

// NewCatalogDropOffs indexes the pickup locations of every site's
// catalog, per carrier. maxKm is how far from the customer a point may be
// (DefaultDropOffMaxDistanceKm when 0).
func NewCatalogDropOffs(catalogs map[string]*catalog.Catalog, maxKm int) *CatalogDropOffs {
	d := &CatalogDropOffs{sites: map[string]*siteDropOffs{}, maxKm: maxKm}
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

// DropOffPoints implements DropOffs.
func (d *CatalogDropOffs) DropOffPoints(ctx context.Context, site, product string, near Address, n int) ([]DropOffPoint, error) {
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
	var out []DropOffPoint
	for _, nb := range points.ix.Nearest(at, min(n, maxDropOffPoints)) {
		if nb.Meters > float64(d.maxKm)*1000 {
			break // nearest first: the rest are farther
		}
		l := points.locs[nb.Item]
		a := Address{Name: l.Address.Name, AddressLines: l.Address.AddressLines, PostalCode: l.Address.PostalCode,
			City: l.Address.City, Country: l.Address.Country}
		if c := l.Address.Coordinates; c != nil {
			a.Coordinates = &Coordinates{Lat: c.Lat, Lng: c.Lng}
		}
		out = append(out, DropOffPoint{ID: l.ID, Name: l.Name, Address: a, Hours: l.Hours, Meters: nb.Meters})
	}
	return out, nil
}

var _ DropOffs = (*CatalogDropOffs)(nil)
