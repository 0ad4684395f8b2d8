package customs

import "strings"

// Kind is a customs document a booked shipment travels with.
type Kind string

// Kind values.
const (
	// CN22 is the UPU's customs declaration for postal items of up to
	// 300 SDR and 2 kg; it is printed label-size and stuck on the parcel.
	CN22 Kind = "cn22"
	// CN23 is the UPU's customs declaration for postal items above the
	// CN22 limits.
	CN23 Kind = "cn23"
	// CommercialInvoice is the invoice customs read for courier parcels
	// and for goods sold on a CN23.
	CommercialInvoice Kind = "commercial_invoice"
)

// The CN22 limits of the UPU Convention's Letter Post Regulations: a
// postal item declared on a CN22 is worth at most 300 SDR and weighs at
// most 2 kg; above either, it needs a CN23.
const (
	CN22MaxSDR   = 300
	CN22MaxGrams = 2000
)

// sdrMilli is what one SDR is worth, in thousandths of each currency's
// major unit: fixed, rounded approximations of the IMF's daily SDR
// valuation (imf.org, "SDR Valuation") as of November 2025: 1 SDR ≈
// 1.37 USD, 1.18 EUR, 13.9 SEK, 13.8 NOK, 8.8 DKK, 1.03 GBP, 1.09 CHF,
// 167 ISK, 5.4 PLN. Fixed so that the document a shipment gets does not
// change with the day's rate; a merchant near the limit should declare on
// a CN23. Currencies not listed are treated as above the CN22 limit.
var sdrMilli = map[string]int64{
	"USD": 1_370, "EUR": 1_180, "SEK": 13_900, "NOK": 13_800, "DKK": 8_800,
	"GBP": 1_030, "CHF": 1_090, "ISK": 167_000, "PLN": 5_400,
}

// minorDigits are the ISO 4217 minor unit digits of the currencies whose
// minor unit is not the hundredth.
var minorDigits = map[string]int{"ISK": 0, "JPY": 0, "KRW": 0, "CLP": 0, "BHD": 3, "KWD": 3, "JOD": 3, "OMR": 3, "TND": 3}

// MinorDigits returns the number of decimals of a currency's minor unit
// (2 for most).
func MinorDigits(currency string) int {
	if d, ok := minorDigits[strings.ToUpper(currency)]; ok {
		return d
	}
	return 2
}

// WithinSDR reports whether value, in minor units of currency, is at most
// sdr SDR at the fixed conversion; false for a currency without one.
func WithinSDR(value int64, currency string, sdr int64) bool {
	rate, ok := sdrMilli[strings.ToUpper(currency)]
	if !ok {
		return false
	}
	scale := int64(1)
	for range MinorDigits(currency) {
		scale *= 10
	}
	// value/scale ≤ sdr·rate/1000, in integers.
	return value*1000 <= sdr*rate*scale
}

// Parcel is what decides a parcel's documents: whether a postal operator
// carries it as a postal item and its gross weight.
type Parcel struct {
	Postal bool
	Grams  int32
}

// Documents returns the documents of a declaration with total value (minor
// units of currency) and contents type (sale, gift, documents, return,
// sample) for the parcels, in the order CN22, CN23, commercial invoice:
//
//   - postal parcels travel with a CN22 when the declared value is at
//     most 300 SDR and every postal parcel weighs at most 2 kg, else with
//     a CN23;
//   - courier parcels travel with a commercial invoice, and so do sold
//     goods on a CN23 (customs ask for the invoice of a sale above the
//     CN22 limits; the CN23 names it).
func Documents(parcels []Parcel, value int64, currency, contentsType string) []Kind {
	postal, courier, heavy := false, false, false
	for _, p := range parcels {
		if p.Postal {
			postal = true
			heavy = heavy || p.Grams > CN22MaxGrams
		} else {
			courier = true
		}
	}
	var out []Kind
	if postal {
		if !heavy && WithinSDR(value, currency, CN22MaxSDR) {
			out = append(out, CN22)
		} else {
			out = append(out, CN23)
			courier = courier || contentsType == "sale"
		}
	}
	if courier {
		out = append(out, CommercialInvoice)
	}
	return out
}
