package checkout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
)

// checkAppendJSON fails unless AppendJSON writes what encoding/json writes
// for s, after a prefix it must keep, and fails where encoding/json fails.
func checkAppendJSON(t *testing.T, what string, s *Session) (failed bool) {
	t.Helper()
	want, wantErr := json.Marshal(s)
	prefix := []byte("prefix")
	got, err := s.AppendJSON(prefix)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%s: AppendJSON error = %v; encoding/json's = %v\n%#v", what, err, wantErr, s)
	}
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("%s: AppendJSON lost the prefix: %q", what, got)
	}
	if err != nil {
		if len(got) != len(prefix) {
			t.Fatalf("%s: AppendJSON failed but appended %q", what, got[len(prefix):])
		}
		return true
	}
	if got := got[len(prefix):]; !bytes.Equal(got, want) {
		t.Fatalf("%s: AppendJSON differs from encoding/json:\n got  %s\n want %s", what, got, want)
	}
	return false
}

// The answer written by hand is encoding/json's, byte for byte: zero
// values (written, where the field has no omitempty: "zero is a value"),
// optional fields absent, and every field set.
func TestAppendJSONTable(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	at := time.Date(2026, 11, 26, 21, 0, 0, 5, cet)
	full := func() *Session {
		return &Session{
			ID: "s<1>", Status: StatusActive, ShippingPrice: 4900, ExpiresAt: at,
			Cart: Cart{CartID: "c", TotalValue: 100, Currency: "SEK", PreOrder: true, Vouchers: []string{"v"}, Voucher: "w",
				Items: []CartItem{{SKU: "a", Name: "Tröja & byxor", Attributes: []string{"x"}, Quantity: 2, Price: 5, Image: "https://i",
					Weight: 300, Dimensions: &Dimensions{1, 2, 3}, ShippingDate: &ShippingDate{Start: &at}}, {}},
				Attributes:   []string{"big"},
				ShippingDate: &ShippingDate{End: &at, CategoryTags: []ShippingDateTag{{Name: "n", ShippingDate: &DateRange{Start: &at, End: &at}}, {}}}},
			SelectedShippingOption: &ShippingOption{ShippingMethod: "m", Price: 1, Addons: []string{"a"},
				Location: &Location{ExternalID: "e", Address: &LocationAddress{AddressLines: []string{"Götgatan 1"}, Coordinates: &deliverykit.Coordinates{Lat: 59.3, Lng: 1e-7}},
					Distance: &Distance{Walking: &DistanceValue{Value: 1}}, OperationalHours: map[string]string{"mon": "8-20", "fri": "\u2028"}, Meta: map[string]string{}, LocationType: "LOCKER"},
				TimeSlot: &TimeSlot{ID: "t", Expires: &at, Start: at}},
			Customer:      &Customer{Email: "a@b", Address: &CustomerAddress{Name: "Åsa", Street: "s", DoorCode: "1", Coordinates: &deliverykit.Coordinates{}}},
			SearchAddress: &SearchAddress{PostalCode: "11122", Country: "SE", AddressLines: []string{}},
			ExternalID:    "x", TosID: "tos",
			Result: &Result{Selection: SelectionUser,
				Shipping: &ResultShipping{Addons: []Addon{{Code: "c"}, {Code: "d", Name: "n", Description: "d"}}, DeliveryAddons: []DeliveryAddon{{ID: "i", ExternalAddonID: "e"}},
					Meta: map[string]string{"k": "v"}, Supports: Supports{DoorCode: true}, Warehouse: &Warehouse{}, DeliveryTime: &TimeSlot{}},
				Category:     &ResultCategory{ID: "c", Tags: []CategoryTag{{Name: "t"}}, CustomText: "<b>"},
				Pricing:      &Pricing{Currency: "SEK", PriceComponents: []PriceComponent{{Type: PriceComponentShipping, VATRate: 2500}}},
				DeliveryTime: &DeliveryTime{CustomerDeliveryPromise: &Window{Earliest: at}}},
			Meta: map[string]string{"b": "1", "a": "2"},
		}
	}
	tests := []struct {
		name string
		s    *Session
	}{
		{"nil", nil},
		{"zero", &Session{}},
		{"zero parts", &Session{SelectedShippingOption: &ShippingOption{}, Customer: &Customer{Address: &CustomerAddress{}}, SearchAddress: &SearchAddress{},
			Result: &Result{Shipping: &ResultShipping{}, Category: &ResultCategory{}, Pricing: &Pricing{}, DeliveryTime: &DeliveryTime{}}}},
		{"empty lists", &Session{Cart: Cart{Items: []CartItem{}}, Meta: map[string]string{}, Result: &Result{Pricing: &Pricing{PriceComponents: []PriceComponent{}}}}},
		{"full", full()},
		{"year 10000", func() *Session { s := full(); s.ExpiresAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC); return s }()},
		{"non-finite coordinate", func() *Session { s := full(); s.Customer.Address.Coordinates.Lat = math.NaN(); return s }()},
	}
	for _, tt := range tests {
		checkAppendJSON(t, tt.name, tt.s)
	}
}

// The same on random sessions that set every exported field: a field added
// to a type of the answer and not written by hand fails it.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	f := &jsonFiller{r: rand.New(rand.NewPCG(39, 7))}
	var same, failed int
	for range 3000 {
		var s Session
		f.fill(reflect.ValueOf(&s).Elem())
		if checkAppendJSON(t, "random session", &s) {
			failed++
		} else {
			same++
		}
	}
	if same < 1000 || failed == 0 {
		t.Fatalf("%d sessions written, %d refused: the sessions do not cover both", same, failed)
	}
}

// jsonFiller sets every exported field at random: nil, empty and full
// lists, maps and pointers, strings JSON escapes, zero and non-zero
// numbers, date-times in zones and, rarely, of years JSON cannot hold, and
// non-finite coordinates.
type jsonFiller struct{ r *rand.Rand }

var (
	fillStrings = []string{"", "a", "Götgatan 1", "SE", "\xff", "<a&b>\u2028", `"\`, "08:00-20:00 every day"}
	fillTimes   = []time.Time{{}, time.Date(2026, 11, 26, 20, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 2, 30, 0, 123456789, time.FixedZone("CET", 3600)), time.Now()}
)

func (f *jsonFiller) fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		t := fillTimes[f.r.IntN(len(fillTimes))]
		if f.r.IntN(150) == 0 {
			t = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		v.Set(reflect.ValueOf(t))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		if f.r.IntN(4) == 0 {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem())
	case reflect.Slice:
		switch n := f.r.IntN(4); {
		case n == 0:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			v.Set(reflect.MakeSlice(v.Type(), n-1, n-1))
			for i := range n - 1 {
				f.fill(v.Index(i))
			}
		}
	case reflect.Map:
		if f.r.IntN(3) == 0 {
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for range f.r.IntN(3) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k)
			f.fill(e)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		v.SetString(fillStrings[f.r.IntN(len(fillStrings))])
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		if f.r.IntN(3) > 0 {
			v.SetInt(f.r.Int64N(1<<40) - f.r.Int64N(1<<40))
		}
	case reflect.Float64:
		x := []float64{0, 59.3293, -180, 1e21, 1e-7}[f.r.IntN(5)]
		if f.r.IntN(300) == 0 {
			x = math.Inf(1)
		}
		v.SetFloat(x)
	default:
		panic(fmt.Sprintf("jsonFiller: no values of %s", v.Type()))
	}
}
