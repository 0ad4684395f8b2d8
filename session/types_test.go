package session

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
)

// Method-less copies of the windows: what the codecs write for their
// fields, which the windows' MarshalJSON must write too.
type (
	plainAbsoluteETD AbsoluteETD
	plainReadiness   Readiness
	plainHandoff     Handoff
)

// windowTimes are the date-times the windows are encoded with: zero (the
// field is left out), the zero instant in another zone (zero too),
// instants in other zones (written in UTC), with and without nanoseconds,
// with a monotonic reading, at the edges of four-digit years and past
// them, and random ones.
func windowTimes(r *rand.Rand) []time.Time {
	stockholm := time.FixedZone("CET", 3600)
	behind := time.FixedZone("", -(9*3600 + 30*60))
	ts := []time.Time{
		{},
		time.Time{}.In(stockholm),
		time.Date(2026, 11, 26, 20, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 29, 2, 30, 0, 123456789, stockholm),
		time.Date(2026, 1, 1, 0, 0, 0, 100, behind),
		time.Now(),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
	}
	for range 40 {
		t := time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9))
		if r.IntN(2) == 0 {
			t = t.In(time.FixedZone("", (r.IntN(48)-24)*1800))
		}
		ts = append(ts, t)
	}
	return ts
}

// Each window's MarshalJSON writes what encoding/json and the store's codec
// write for its fields, byte for byte, at the top and inside a value, with
// and without HTML escaping.
func TestWindowsEncodeAsTheirFields(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 2))
	ts := windowTimes(r)
	type encoder struct {
		name string
		enc  func(any) ([]byte, error)
	}
	encoders := []encoder{
		{"encoding/json", json.Marshal},
		{"goccy", gojson.Marshal},
		{"goccy no HTML escape", func(v any) ([]byte, error) {
			var b bytes.Buffer
			e := gojson.NewEncoder(&b)
			e.SetEscapeHTML(false)
			err := e.Encode(v)
			return b.Bytes(), err
		}},
	}
	n := 0
	for _, e := range ts {
		for _, l := range ts {
			earliest, latest := Timestamp{e}, Timestamp{l}
			if r.IntN(4) == 0 {
				earliest = At(e)
			}
			cases := []struct {
				name       string
				got, plain any
			}{
				{"AbsoluteETD", AbsoluteETD{earliest, latest}, plainAbsoluteETD{earliest, latest}},
				{"*Readiness", &Readiness{earliest, latest}, &plainReadiness{earliest, latest}},
				{"Handoff", Handoff{earliest, latest}, plainHandoff{earliest, latest}},
				{"ETD", ETD{Absolute: &AbsoluteETD{earliest, latest}}, struct {
					Relative *RelativeETD      `json:"relative,omitempty"`
					Absolute *plainAbsoluteETD `json:"absolute,omitempty"`
					Custom   *CustomETD        `json:"custom,omitempty"`
				}{Absolute: &plainAbsoluteETD{earliest, latest}}},
				{"[]Handoff", []Handoff{{earliest, latest}, {}}, []plainHandoff{{earliest, latest}, {}}},
			}
			for _, c := range cases {
				for _, enc := range encoders {
					got, err := enc.enc(c.got)
					if err != nil {
						t.Fatalf("%s %s(%v, %v): %v", enc.name, c.name, e, l, err)
					}
					want, err := enc.enc(c.plain)
					if err != nil {
						t.Fatalf("%s %s(%v, %v) without MarshalJSON: %v", enc.name, c.name, e, l, err)
					}
					if diff := cmp.Diff(string(want), string(got)); diff != "" {
						t.Errorf("%s %s(%v, %v) (-fields +MarshalJSON):\n%s", enc.name, c.name, e, l, diff)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("nothing compared")
	}
}

// ReturnsPromise's MarshalJSON writes what it wrote with encoding/json, on
// random promises whose texts hold what JSON escapes (HTML, U+2028,
// invalid UTF-8).
func TestReturnsPromiseEncodesAsEncodingJSON(t *testing.T) {
	type plain ReturnsPromise
	reference := func(p ReturnsPromise) ([]byte, error) {
		if p.IsUnavailable {
			return json.Marshal(plain(p))
		}
		return json.Marshal(struct {
			plain
			ReturnCost   Int64 `json:"return_cost"`
			ExchangeCost Int64 `json:"exchange_cost"`
		}{plain(p), p.ReturnCost, p.ExchangeCost})
	}
	r := rand.New(rand.NewPCG(39, 3))
	texts := []string{"", "30 days", "<a href=\"x\">&</a>", "line\u2028sep\u2029", "\xff\xfe", "tab\tnew\nline\\", "Åter\u00e9"}
	text := func() string { return texts[r.IntN(len(texts))] }
	for i := range 500 {
		p := ReturnsPromise{
			ID: text(), CurrencyCode: text(), ReturnsEnabled: r.IntN(2) == 0, ReturnCost: Int64(r.Int64N(5) - 1),
			ExchangesEnabled: r.IntN(2) == 0, ExchangeCost: Int64(r.Int64N(1 << 40)), ReturnTimeDays: int32(r.IntN(3) * 14),
			ReturnPolicyText: text(), ReturnPolicyURL: text(), IsUnavailable: r.IntN(4) == 0,
		}
		want, err := reference(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("promise %d %+v (-encoding/json +MarshalJSON):\n%s", i, p, diff)
		}
	}
}
