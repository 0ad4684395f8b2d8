package deliverykit

// The value types below mean the same thing in every area, so they are
// declared once. An area whose wire has its own shape for one of them (the
// delivery session's country_code address, the returns API's camelCase
// address) keeps its wire type and converts in one function beside its
// views; the others use these types directly.

// Coordinates are a point in WGS 84 degrees. 0 is a valid latitude and
// longitude, so both are checked for range only.
type Coordinates struct {
	Lat float64 `json:"lat" validate:"gte=-90,lte=90"`
	Lng float64 `json:"lng" validate:"gte=-180,lte=180"`
}

// Address is a postal address, with the parts some carriers need apart
// (street, street number, apartment, door code) beside the lines as
// written. Every field is optional; Country is ISO 3166-1 alpha-2.
type Address struct {
	AddressLines    []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	ApartmentNumber string       `json:"apartment_number,omitempty" validate:"max_code"`
	Attn            string       `json:"attn,omitempty" validate:"max_name"`
	BuildingName    string       `json:"building_name,omitempty" validate:"max_name"`
	CareOf          string       `json:"care_of,omitempty" validate:"max_name"`
	City            string       `json:"city,omitempty" validate:"max_name"`
	Coordinates     *Coordinates `json:"coordinates,omitempty" validate:"omitempty"`
	Country         string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	DoorCode        string       `json:"door_code,omitempty" validate:"max_code"`
	FloorNumber     string       `json:"floor_number,omitempty" validate:"max_code"`
	Name            string       `json:"name,omitempty" validate:"max_name"`
	POBoxID         string       `json:"po_box_id,omitempty" validate:"max_code"`
	PostalCode      string       `json:"postal_code,omitempty" validate:"max_code"`
	Region          string       `json:"region,omitempty" validate:"max_name"`
	Street          string       `json:"street,omitempty" validate:"max_name"`
	StreetNumber    string       `json:"street_number,omitempty" validate:"max_code"`
	Subregion       string       `json:"subregion,omitempty" validate:"max_name"`
}

// Contact is how a person is reached: a name to address them by, an e-mail
// address and a phone number in international form. Any may be empty.
type Contact struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	Phone string `json:"phone,omitempty"`
}
