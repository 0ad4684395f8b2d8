package validation

import (
	"testing"

	"github.com/deliverykit/deliverykit"
)

// benchRequest is the shape of a typical checkout request: a few scalar
// codes, a nested address and a cart of line items.
type benchRequest struct {
	Currency string         `json:"purchase_currency" validate:"required,iso4217"`
	Country  string         `json:"purchase_country" validate:"required,iso3166_1_alpha2"`
	Email    string         `json:"email,omitempty" validate:"omitempty,email"`
	Address  *benchAddress  `json:"address" validate:"required"`
	Items    []benchCartRow `json:"items" validate:"required,max=500,dive"`
}

type benchAddress struct {
	Country    string  `json:"country" validate:"required,iso3166_1_alpha2"`
	PostalCode string  `json:"postal_code" validate:"required,max=20"`
	Lat        float64 `json:"lat" validate:"gte=-90,lte=90"`
	Lng        float64 `json:"lng" validate:"gte=-180,lte=180"`
}

type benchCartRow struct {
	SKU      string `json:"sku" validate:"required,max=200"`
	Quantity int    `json:"quantity" validate:"gt=0"`
	Price    int64  `json:"price" validate:"gte=0"`
	Weight   int64  `json:"weight" validate:"gte=0"`
}

func benchInput(items int) *benchRequest {
	r := &benchRequest{Currency: "SEK", Country: "SE", Email: "anna@example.com",
		Address: &benchAddress{Country: "SE", PostalCode: "118 26", Lat: 59.3, Lng: 18.1}}
	for range items {
		r.Items = append(r.Items, benchCartRow{SKU: "SKU-1", Quantity: 1, Price: 19900, Weight: 500})
	}
	return r
}

// BenchmarkCheck measures Check on a valid ten-line request, the common case
// on every write.
func BenchmarkCheck(b *testing.B) {
	v := New()
	r := benchInput(10)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Check(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckInvalid measures Check on a ten-line request with four
// violations and one code-checked extra: the cost of building, wording and
// sorting violations.
func BenchmarkCheckInvalid(b *testing.B) {
	v := New()
	r := benchInput(10)
	r.Currency, r.Address.Lat = "KRONA", 91
	r.Items[3].Quantity, r.Items[7].SKU = 0, ""
	extra := deliverykit.FieldViolation{Field: "items[1].sku", Rule: "stock", Message: "is sold out"}
	b.ReportAllocs()
	for b.Loop() {
		if len(deliverykit.ViolationsOf(v.Check(r, extra))) != 5 {
			b.Fatal("want 5 violations")
		}
	}
}
