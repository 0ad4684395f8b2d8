package checkout

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// DeliveryAddress is where the shopper wants the goods, as the shopper
// entered it in the widget's address form. Street, StreetNumber and
// ApartmentNumber are the parts carriers need apart; AddressLines, when
// given, is the address as written.
type DeliveryAddress struct {
	FirstName       string       `json:"first_name,omitempty" validate:"max_name"`
	LastName        string       `json:"last_name,omitempty" validate:"max_name"`
	CompanyName     string       `json:"company_name,omitempty" validate:"max_name"`
	Street          string       `json:"street,omitempty" validate:"max_name"`
	StreetNumber    string       `json:"street_number,omitempty" validate:"checkout_short"`
	ApartmentNumber string       `json:"apartment_number,omitempty" validate:"checkout_short"`
	AddressLines    []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	City            string       `json:"city,omitempty" validate:"max_name"`
	PostalCode      string       `json:"postal_code,omitempty" validate:"checkout_short"`
	Region          string       `json:"region,omitempty" validate:"max_name"`
	Country         string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	Email           string       `json:"email,omitempty" validate:"omitempty,max=254,email"`
	Phone           string       `json:"phone,omitempty" validate:"checkout_short"`
	PhoneCountry    string       `json:"phone_country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	CareOf          string       `json:"care_of,omitempty" validate:"max_name"`
	Attn            string       `json:"attn,omitempty" validate:"max_name"`
	ExternalID      string       `json:"external_id,omitempty" validate:"max_ref"`
	Coordinates     *Coordinates `json:"coordinates,omitempty"`
	DoorCode        string       `json:"door_code,omitempty" validate:"checkout_short"`
}

// BillingAddress is who pays, when the shopper gave a billing address
// apart from the delivery address; VAT is a company's VAT number and
// VATType its kind (as the merchant's invoicing names it).
type BillingAddress struct {
	FirstName       string       `json:"first_name,omitempty" validate:"max_name"`
	LastName        string       `json:"last_name,omitempty" validate:"max_name"`
	CompanyName     string       `json:"company_name,omitempty" validate:"max_name"`
	Street          string       `json:"street,omitempty" validate:"max_name"`
	StreetNumber    string       `json:"street_number,omitempty" validate:"checkout_short"`
	ApartmentNumber string       `json:"apartment_number,omitempty" validate:"checkout_short"`
	AddressLines    []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	City            string       `json:"city,omitempty" validate:"max_name"`
	PostalCode      string       `json:"postal_code,omitempty" validate:"checkout_short"`
	Region          string       `json:"region,omitempty" validate:"max_name"`
	Country         string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	Email           string       `json:"email,omitempty" validate:"omitempty,max=254,email"`
	Phone           string       `json:"phone,omitempty" validate:"checkout_short"`
	PhoneCountry    string       `json:"phone_country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	CareOf          string       `json:"care_of,omitempty" validate:"max_name"`
	Attn            string       `json:"attn,omitempty" validate:"max_name"`
	ExternalID      string       `json:"external_id,omitempty" validate:"max_ref"`
	Coordinates     *Coordinates `json:"coordinates,omitempty"`
	DoorCode        string       `json:"door_code,omitempty" validate:"checkout_short"`
	VAT             string       `json:"vat,omitempty" validate:"max_code"`
	VATType         string       `json:"vat_type,omitempty" validate:"max_code"`
}

// AddressRequest is what the widget's address form sends: the delivery
// address and, when the shopper pays from another address, the billing
// address (none: the delivery address is the billing address).
type AddressRequest struct {
	DeliveryAddress *DeliveryAddress `json:"delivery_address" validate:"required"`
	BillingAddress  *BillingAddress  `json:"billing_address,omitempty"`
}

// AddressCountry is a country the address form offers, with the form of
// its postal codes (a pattern that Go and browsers read alike) and whether
// its addresses need a region.
type AddressCountry struct {
	Country        string `json:"country"`
	Pattern        string `json:"pattern"`
	Example        string `json:"example,omitempty"`
	RegionRequired bool   `json:"region_required,omitempty"`
}

// AddressForm is what the widget needs to collect the shopper's addresses:
// the countries it may deliver to (the purchase country first) and the
// addresses entered so far.
type AddressForm struct {
	Countries       []AddressCountry `json:"countries"`
	DeliveryAddress *DeliveryAddress `json:"delivery_address,omitempty"`
	BillingAddress  *BillingAddress  `json:"billing_address,omitempty"`
}

// SaveAddresses records the addresses the shopper entered in the widget of
// the session the token belongs to. The delivery address needs a name,
// a street, a postal code of its country's format, a city, a country the
// session delivers to, an e-mail address and, in countries that need one,
// a region; a billing address, when given, the same except the country
// rule. The search address follows the delivery address, so the options
// are computed again for it. The session must collect addresses
// (sessions of the newer API generation, or created with address_form).
func (s *Service) SaveAddresses(ctx context.Context, token string, req AddressRequest) (*WidgetState, error) {
	// The token first: a caller without one learns nothing of the form.
	tr, err := s.resolve(ctx, token)
	if err != nil {
		return nil, err
	}
	if err := check(req); err != nil {
		return nil, err
	}
	rec, _, err := s.modify(ctx, tr.Site, tr.SessionID, func(r *record) (bool, error) {
		if !r.CollectAddresses {
			return false, deliverykit.E(deliverykit.KindFailedPrecondition, "this session takes the customer from the merchant, not from the widget")
		}
		var vs validation.Violations
		d := *req.DeliveryAddress
		vs = append(vs, checkAddress("delivery_address", addressParts(&d), r.countries(s.engines), true)...)
		if b := req.BillingAddress; b != nil {
			vs = append(vs, checkAddress("billing_address", billingParts(b), nil, false)...)
		}
		if err := vs.Err(); err != nil {
			return false, err
		}
		d.Country = strings.ToUpper(d.Country)
		r.DeliveryAddress = d.clone()
		r.BillingAddress = nil
		if b := req.BillingAddress; b != nil {
			r.BillingAddress = b.clone()
			r.BillingAddress.Country = strings.ToUpper(b.Country)
		}
		r.SearchAddress = &SearchAddress{PostalCode: d.PostalCode, Country: d.Country, Region: d.Region, City: d.City,
			AddressLines: d.lines()}
		r.SearchCoordinates = copyCoordinates(d.Coordinates)
		return false, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return s.widgetState(rec), nil
}

// addressFields are the parts of an address the rules look at.
type addressFields struct {
	first, last, street, lines, postal, city, region, country, email string
}

func addressParts(a *DeliveryAddress) addressFields {
	return addressFields{a.FirstName, a.LastName, a.Street, strings.Join(a.AddressLines, ""), a.PostalCode, a.City, a.Region, a.Country, a.Email}
}

func billingParts(a *BillingAddress) addressFields {
	return addressFields{a.FirstName, a.LastName, a.Street, strings.Join(a.AddressLines, ""), a.PostalCode, a.City, a.Region, a.Country, a.Email}
}

// checkAddress applies the address form's rules to an address at path.
// countries, when set, are the countries it may be in; email says whether
// it needs an e-mail address (the delivery address does: the order's
// tracking and returns reach the shopper by it).
func checkAddress(path string, a addressFields, countries []string, email bool) []deliverykit.FieldViolation {
	var vs []deliverykit.FieldViolation
	req := func(field, value string) {
		if strings.TrimSpace(value) == "" {
			vs = append(vs, deliverykit.FieldViolation{Field: path + "." + field, Rule: "required", Message: "is required"})
		}
	}
	req("first_name", a.first)
	req("last_name", a.last)
	if strings.TrimSpace(a.lines) == "" {
		req("street", a.street)
	}
	req("city", a.city)
	req("country", a.country)
	if email {
		req("email", a.email)
	}
	country := strings.ToUpper(a.country)
	if country != "" && countries != nil && !slices.Contains(countries, country) {
		vs = append(vs, deliverykit.FieldViolation{Field: path + ".country", Rule: "oneof", Message: "is not a country this shop delivers to"})
	}
	f := catalog.PostalFormatOf(country)
	switch {
	case strings.TrimSpace(a.postal) == "":
		req("postal_code", a.postal)
	case country != "" && !catalog.ValidPostalCode(country, a.postal):
		msg := "is not a postal code of " + country
		if f.Example != "" {
			msg += fmt.Sprintf(" (such as %s)", f.Example)
		}
		vs = append(vs, deliverykit.FieldViolation{Field: path + ".postal_code", Rule: "postal_code", Message: msg})
	}
	if f.RegionRequired {
		req("region", a.region)
	}
	return vs
}

// countries are those the session's address form offers: the purchase
// country first, then the other countries the site's catalog delivers to.
func (r *record) countries(engines EngineSource) []string {
	out := []string{strings.ToUpper(r.Country)}
	if e, err := engines.Engine(r.Site); err == nil {
		for _, c := range e.Catalog().Countries() {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// addressForm is the widget's form of a session that collects addresses.
func (s *Service) addressForm(r *record) *AddressForm {
	if !r.CollectAddresses {
		return nil
	}
	f := &AddressForm{DeliveryAddress: r.DeliveryAddress.clone(), BillingAddress: r.BillingAddress.clone()}
	for _, c := range r.countries(s.engines) {
		pf := catalog.PostalFormatOf(c)
		f.Countries = append(f.Countries, AddressCountry{Country: c, Pattern: pf.Pattern, Example: pf.Example, RegionRequired: pf.RegionRequired})
	}
	return f
}

// lines is the address as written: its lines when the shopper gave them,
// else the street and number (and apartment).
func (a *DeliveryAddress) lines() []string {
	if len(a.AddressLines) > 0 {
		return slices.Clone(a.AddressLines)
	}
	line := strings.TrimSpace(a.Street + " " + a.StreetNumber)
	if a.ApartmentNumber != "" {
		line = strings.TrimSpace(line + " " + a.ApartmentNumber)
	}
	if line == "" {
		return nil
	}
	return []string{line}
}

// name is the shopper's full name, else the company's.
func (a *DeliveryAddress) name() string {
	return cmp.Or(strings.TrimSpace(a.FirstName+" "+a.LastName), a.CompanyName)
}

// receiver is the delivery address as the order's receiver: who and where.
func (a *DeliveryAddress) receiver() (deliverykit.Contact, *deliverykit.Address) {
	c := deliverykit.Contact{Name: a.name(), Email: a.Email, Phone: a.Phone}
	addr := &deliverykit.Address{
		Name: a.name(), AddressLines: a.lines(), Street: a.Street, StreetNumber: a.StreetNumber, ApartmentNumber: a.ApartmentNumber,
		City: a.City, PostalCode: a.PostalCode, Region: a.Region, Country: a.Country, CareOf: a.CareOf,
		Attn: cmp.Or(a.Attn, companyAttn(a)), DoorCode: a.DoorCode, Coordinates: copyCoordinates(a.Coordinates),
	}
	return c, addr
}

// companyAttn names the company on a delivery to a person at a company:
// the parcel's label shows the person and, as attn, the company.
func companyAttn(a *DeliveryAddress) string {
	if a.CompanyName != "" && strings.TrimSpace(a.FirstName+a.LastName) != "" {
		return a.CompanyName
	}
	return ""
}

func (a *DeliveryAddress) clone() *DeliveryAddress {
	if a == nil {
		return nil
	}
	out := *a
	out.AddressLines = slices.Clone(a.AddressLines)
	out.Coordinates = copyCoordinates(a.Coordinates)
	return &out
}

func (a *BillingAddress) clone() *BillingAddress {
	if a == nil {
		return nil
	}
	out := *a
	out.AddressLines = slices.Clone(a.AddressLines)
	out.Coordinates = copyCoordinates(a.Coordinates)
	return &out
}
