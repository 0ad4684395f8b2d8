package stored

import "github.com/deliverykit/deliverykit"

// Address is deliverykit.Address as areas store it (tracking's orders and
// parcels, shipments): its JSON names are the record's own, so a change to
// the wire type's tags changes no stored byte.
type Address struct {
	AddressLines    []string     `json:"address_lines,omitempty"`
	ApartmentNumber string       `json:"apartment_number,omitempty"`
	Attn            string       `json:"attn,omitempty"`
	BuildingName    string       `json:"building_name,omitempty"`
	CareOf          string       `json:"care_of,omitempty"`
	City            string       `json:"city,omitempty"`
	Coordinates     *Coordinates `json:"coordinates,omitempty"`
	Country         string       `json:"country,omitempty"`
	DoorCode        string       `json:"door_code,omitempty"`
	FloorNumber     string       `json:"floor_number,omitempty"`
	Name            string       `json:"name,omitempty"`
	POBoxID         string       `json:"po_box_id,omitempty"`
	PostalCode      string       `json:"postal_code,omitempty"`
	Region          string       `json:"region,omitempty"`
	Street          string       `json:"street,omitempty"`
	StreetNumber    string       `json:"street_number,omitempty"`
	Subregion       string       `json:"subregion,omitempty"`
}

// Coordinates are deliverykit.Coordinates as stored.
type Coordinates struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// AddressOf is the record of a.
func AddressOf(a deliverykit.Address) Address {
	return Address{
		AddressLines: a.AddressLines, ApartmentNumber: a.ApartmentNumber, Attn: a.Attn, BuildingName: a.BuildingName,
		CareOf: a.CareOf, City: a.City, Coordinates: Ptr(a.Coordinates, func(c deliverykit.Coordinates) Coordinates { return Coordinates(c) }),
		Country: a.Country, DoorCode: a.DoorCode, FloorNumber: a.FloorNumber, Name: a.Name, POBoxID: a.POBoxID,
		PostalCode: a.PostalCode, Region: a.Region, Street: a.Street, StreetNumber: a.StreetNumber, Subregion: a.Subregion,
	}
}

// Value is the address a records.
func (a Address) Value() deliverykit.Address {
	return deliverykit.Address{
		AddressLines: a.AddressLines, ApartmentNumber: a.ApartmentNumber, Attn: a.Attn, BuildingName: a.BuildingName,
		CareOf: a.CareOf, City: a.City, Coordinates: Ptr(a.Coordinates, func(c Coordinates) deliverykit.Coordinates { return deliverykit.Coordinates(c) }),
		Country: a.Country, DoorCode: a.DoorCode, FloorNumber: a.FloorNumber, Name: a.Name, POBoxID: a.POBoxID,
		PostalCode: a.PostalCode, Region: a.Region, Street: a.Street, StreetNumber: a.StreetNumber, Subregion: a.Subregion,
	}
}
