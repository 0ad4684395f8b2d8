package session

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/recordtest"
)

// roundTripCopy is what ownCopy computed before it was written by hand: a
// JSON round trip of the request's writable part through the store's
// codec. ownCopy must give exactly this.
func roundTripCopy(in *Session) (*Purchase, []Delivery, error) {
	type writablePart struct {
		Purchase   *Purchase  `json:"purchase"`
		Deliveries []Delivery `json:"deliveries"`
	}
	part := writablePart{Purchase: in.Purchase, Deliveries: make([]Delivery, len(in.Deliveries))}
	for i, d := range in.Deliveries {
		d.DeliveryCategories, d.TosID, d.ExternalID = nil, "", ""
		part.Deliveries[i] = d
	}
	b, err := gojson.Marshal(part)
	if err != nil {
		return nil, nil, err
	}
	var out writablePart
	if err := gojson.Unmarshal(b, &out); err != nil {
		return nil, nil, err
	}
	return out.Purchase, out.Deliveries, nil
}

// filler sets every exported field of a value at random: nil, empty and
// full lists and pointers, strings with invalid UTF-8 and characters JSON
// escapes, negative zero and large floats, date-times zero, in other
// zones, with a monotonic reading and, rarely, of years JSON cannot hold
// back, and non-finite coordinates. A field added to a request type is
// filled too, so a copy that misses it differs from the round trip.
type filler struct {
	r     *rand.Rand
	times []time.Time
}

var (
	fillStrings = []string{"", "a", "Götgatan 1", "SE", "\xff", "a\xe2\x82b", "\xe2\x82\xac\xc3", "<a&b>\u2028", "\ufffd", `"\`, "sessions/x"}
	fillFloats  = []float64{0, math.Copysign(0, -1), 59.3293, -180, 90, 1e21, 1e-7, 123456789.123456, 0.1 + 0.2}
)

func (f *filler) fill(v reflect.Value) {
	if v.Type() == reflect.TypeFor[Timestamp]() {
		t := f.times[f.r.IntN(len(f.times))]
		switch f.r.IntN(150) {
		case 0:
			t = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		case 1:
			t = time.Date(-1, 6, 1, 0, 0, 0, 0, time.FixedZone("", 3600))
		}
		v.Set(reflect.ValueOf(Timestamp{t}))
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
		switch n := f.r.IntN(5); {
		case n == 0:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, f.r.IntN(2)))
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
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f.r.IntN(3) > 0 {
			limit := int64(1) << (v.Type().Bits() - 2)
			v.SetInt(f.r.Int64N(limit) - f.r.Int64N(limit))
		}
	case reflect.Float64:
		x := fillFloats[f.r.IntN(len(fillFloats))]
		switch f.r.IntN(200) {
		case 0:
			x = math.NaN()
		case 1:
			x = math.Inf(-1)
		case 2, 3, 4, 5:
			x = f.r.NormFloat64() * 1e3
		}
		v.SetFloat(x)
	default:
		panic(fmt.Sprintf("filler: no values of %s", v.Type()))
	}
}

// ownCopy gives what the JSON round trip gave, to the representation
// (time zones, nil and empty lists, invalid UTF-8), on random requests, and
// fails where it failed.
func TestOwnCopyIsJSONRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 4))
	f := &filler{r: r, times: windowTimes(r)}
	// DeepEqual, not time.Time's Equal: the zone and the monotonic
	// reading count.
	exact := cmp.Comparer(func(a, b time.Time) bool { return reflect.DeepEqual(a, b) })
	var same, failed int
	for i := range 3000 {
		var in Session
		f.fill(reflect.ValueOf(&in).Elem())
		wantP, wantD, wantErr := roundTripCopy(&in)
		gotP, gotD, gotErr := ownCopy(&in)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("request %d: ownCopy error = %v; the round trip's = %v\n%#v", i, gotErr, wantErr, in)
		}
		if wantErr != nil {
			failed++
			continue
		}
		if !reflect.DeepEqual(wantP, gotP) || !reflect.DeepEqual(wantD, gotD) {
			t.Fatalf("request %d: ownCopy differs from the round trip (-round trip +ownCopy):\n%s%s", i,
				cmp.Diff(wantP, gotP, exact), cmp.Diff(wantD, gotD, exact))
		}
		same++
	}
	if same < 1000 || failed == 0 {
		t.Fatalf("%d requests copied, %d refused: the requests do not cover both", same, failed)
	}
}

// Nothing of ownCopy's answer is memory of the request (a pointed-to
// value, a list's array): a caller may change either.
func TestOwnCopySharesNoMemory(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 5))
	f := &filler{r: r, times: []time.Time{{}, time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)}}
	checked := 0
	for i := range 300 {
		var in Session
		f.fill(reflect.ValueOf(&in).Elem())
		p, ds, err := ownCopy(&in)
		if err != nil {
			continue
		}
		input := map[uintptr]string{}
		recordtest.MemoryOf(reflect.ValueOf(&in).Elem(), "request", input)
		got := map[uintptr]string{}
		recordtest.MemoryOf(reflect.ValueOf(p), "purchase", got)
		recordtest.MemoryOf(reflect.ValueOf(ds), "deliveries", got)
		for a, path := range got {
			if in, ok := input[a]; ok {
				t.Fatalf("request %d: %s is memory of the %s", i, path, in)
			}
		}
		checked += len(got)
	}
	if checked == 0 {
		t.Fatal("no memory compared")
	}
}
