package returns

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"golang.org/x/text/currency"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/checked"
)

// Amount is a sum of money in exact integer minor units together with the
// number of decimals of its currency (2 for SEK and EUR, 0 for JPY, 3 for
// KWD). The returns API carries money as decimal numbers in major units;
// Amount marshals to such a number with exactly Scale decimals (12.50,
// never 12.5 or 12.499999) and no arithmetic is ever done in floating point.
type Amount struct {
	Minor int64
	Scale int
}

// MarshalJSON writes the amount as a JSON number in major units.
func (a Amount) MarshalJSON() ([]byte, error) {
	return []byte(a.String()), nil
}

// String formats the amount in major units with Scale decimals.
func (a Amount) String() string {
	neg := a.Minor < 0
	u := uint64(a.Minor)
	if neg {
		u = -u
	}
	digits := strconv.FormatUint(u, 10)
	if a.Scale > 0 {
		if len(digits) <= a.Scale {
			digits = strings.Repeat("0", a.Scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-a.Scale] + "." + digits[len(digits)-a.Scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// Bounds of the amounts the area accepts. With them every sum of an order
// fits in int64 (maxLines × maxQuantity × maxMinor < 2^63), and the sums
// are computed with overflow checks anyway (internal/checked), so that a
// bound loosened later turns into a 400, never into a wrapped amount. The
// tags refer to maxLines and maxQuantity by name (max_lines,
// max_quantity; see validate.go).
const (
	maxMinor    = 1_000_000_000_000 // 10^12 minor units per unit price or cost
	maxQuantity = 10_000            // units of one line
	maxLines    = 500               // lines of one order or request
	// maxDecimalLength bounds the text of an amount: an int64 has at
	// most 19 digits, so longer amounts cannot be valid anyway.
	maxDecimalLength = 32
)

// lineAmount is price × quantity, or false when it does not fit.
func lineAmount(price int64, quantity int) (int64, bool) {
	return checked.Mul(price, int64(quantity))
}

// refundAmount is items + shipping − costs, never below zero, or false
// when a step does not fit.
func refundAmount(items, shipping int64, costs costsRecord) (int64, bool) {
	total, ok := costs.total()
	if !ok {
		return 0, false
	}
	v, ok := checked.Add(items, shipping)
	if !ok {
		return 0, false
	}
	v, ok = checked.Sub(v, total)
	return max(0, v), ok
}

// errArithmetic is the error of a sum of stored amounts that does not fit,
// which the checks at import and in the policy make impossible.
func errArithmetic(what string) error {
	return deliverykit.Errorf(deliverykit.KindInternal, "returns: %s does not fit in int64", what)
}

// currencyScale returns the normalised ISO 4217 code and its number of
// decimals (the standard, non-cash rounding of golang.org/x/text/currency).
func currencyScale(code, field string) (string, int, error) {
	if len(code) != 3 {
		return "", 0, deliverykit.InvalidField(field, "iso4217", "must be a three-letter ISO 4217 currency code")
	}
	u, err := currency.ParseISO(code)
	if err != nil {
		return "", 0, deliverykit.InvalidField(field, "iso4217", "is not a known ISO 4217 currency code")
	}
	scale, _ := currency.Standard.Rounding(u)
	return u.String(), scale, nil
}

// parseMinor reads a decimal in major units ("12.5", "12.50", "3") into
// minor units of a currency with the given scale. It accepts only plain
// decimals: more significant decimals than the currency has, exponents,
// NaN-like tokens and values beyond int64 are errors naming field, so that
// a price is never rounded silently.
func parseMinor(s Decimal, scale int, field string) (int64, error) {
	str := strings.TrimSpace(string(s))
	if str == "" {
		return 0, nil
	}
	neg := false
	if str[0] == '-' {
		neg = true
		str = str[1:]
	}
	whole, frac, hasDot := strings.Cut(str, ".")
	if whole == "" || !allDigits(whole) || (hasDot && (frac == "" || !allDigits(frac))) {
		return 0, deliverykit.InvalidField(field, "decimal", "must be a plain decimal number such as 12.50")
	}
	trimmed := strings.TrimRight(frac, "0")
	if len(trimmed) > scale {
		return 0, deliverykit.InvalidField(field, "decimal", "has more decimals than its currency allows ("+strconv.Itoa(scale)+")")
	}
	digits := whole + trimmed + strings.Repeat("0", scale-len(trimmed))
	v, err := strconv.ParseUint(digits, 10, 63)
	if err != nil || v > maxMinor {
		return 0, deliverykit.InvalidField(field, "max", "is too large")
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// DecimalFromMinor converts minor units of a currency (as areas A, C and D
// carry money: 12950 SEK öre) into the decimal OrderInput takes ("129.50"),
// exactly. It lets the caller's wiring import orders completed at checkout.
func DecimalFromMinor(minor int64, currencyCode string) (Decimal, error) {
	_, scale, err := currencyScale(currencyCode, "currencyCode")
	if err != nil {
		return "", err
	}
	return Decimal(Amount{Minor: minor, Scale: scale}.String()), nil
}

// Decimal is an amount in major units as the client wrote it: a JSON number
// kept as its literal text ("12.50"), so that no float ever holds money.
// parseMinor turns it into exact minor units for the order's currency.
type Decimal string

// UnmarshalJSON accepts a JSON number (or null, the same as absent). Any
// other JSON value is an *json.UnmarshalTypeError, which encoding/json
// completes with the member's name, so the 400 names the field.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		*d = ""
		return nil
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*d = Decimal(b) // encoding/json has already checked the literal
		return nil
	}
	kind := "value"
	if len(b) > 0 {
		switch b[0] {
		case '"':
			kind = "string"
		case '{':
			kind = "object"
		case '[':
			kind = "array"
		case 't', 'f':
			kind = "bool"
		}
	}
	// Type names what the wire wanted, a JSON number; Decimal's own kind
	// (string) would tell the client the opposite.
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[float64]()}
}

// MarshalJSON writes the decimal as a JSON number; the zero Decimal is 0,
// as json.Number's is.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("0"), nil
	}
	return []byte(d), nil
}
