package storage_test

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// codecMoney is encoded as a JSON string, like the areas' minor-unit
// amounts, through its own methods.
type codecMoney int64

func (m codecMoney) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(strconv.FormatInt(int64(m), 10))), nil
}

func (m *codecMoney) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	*m = codecMoney(n)
	return err
}

type codecInner struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

type codecEmbedded struct {
	Revision int `json:"revision"`
}

// codecRecord has every shape the areas store: omitempty and omitzero,
// pointers, maps, nested slices, times, raw JSON, an embedded struct,
// a skipped field and a value with its own methods.
type codecRecord struct {
	codecEmbedded
	ID        string            `json:"id"`
	Note      string            `json:"note,omitempty"`
	At        time.Time         `json:"at"`
	Done      time.Time         `json:"done,omitzero"`
	Where     *codecInner       `json:"where,omitempty"`
	Hours     map[string]string `json:"hours,omitempty"`
	Lines     [][]string        `json:"lines,omitempty"`
	Price     codecMoney        `json:"price"`
	Prices    []codecMoney      `json:"prices,omitempty"`
	Raw       json.RawMessage   `json:"raw,omitempty"`
	Flags     []bool            `json:"flags"`
	Count     uint64            `json:"count"`
	Ratio     float64           `json:"ratio"`
	Transient string            `json:"-"`
}

// TestCollectionCodecMatchesEncodingJSON: records are encoded and decoded
// with a faster drop-in codec than encoding/json. What it writes must be
// what encoding/json writes, byte for byte, and what it reads from bytes
// encoding/json wrote (files of earlier versions) must be what
// encoding/json reads.
func TestCollectionCodecMatchesEncodingJSON(t *testing.T) {
	stockholm := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		rec  codecRecord
	}{
		{"zero", codecRecord{}},
		{"full", codecRecord{
			codecEmbedded: codecEmbedded{Revision: 7},
			ID:            "siw_0123", Note: "Ring twice",
			At:    time.Date(2026, 11, 22, 9, 30, 0, 123456789, time.UTC),
			Done:  time.Date(2026, 11, 23, 23, 59, 59, 0, stockholm),
			Where: &codecInner{Lat: 59.3326, Lng: 18.0649},
			Hours: map[string]string{"sun": "", "mon": "08:00-12:00, 13:00-18:00", "fri": "07:00-22:00"},
			Lines: [][]string{{"Sergels torg 12"}, {}, nil},
			Price: 4900, Prices: []codecMoney{0, -1, 1 << 62},
			Raw:   json.RawMessage(`{"a": [1, 2.5e3, "x"]}`),
			Flags: []bool{true, false}, Count: 1<<64 - 1, Ratio: 1e-7,
			Transient: "never stored",
		}},
		{"text that needs escaping", codecRecord{
			ID:    "<script>alert('x')</script> & \u2028\u2029",
			Note:  "tab\t quote\" backslash\\ nul\x00 emoji 📦 invalid \xff utf-8",
			Hours: map[string]string{"<b>": "&amp;"},
		}},
		{"floats", codecRecord{Ratio: 123456789012345678, Where: &codecInner{Lat: -0.0000001, Lng: 1e21}}},
	}
	coll := storage.Collection[codecRecord]{Name: "codec"}
	store := memory.New()
	defer store.Close()
	ctx := t.Context()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			var stored []byte
			err = store.Update(ctx, func(tx storage.Tx) error {
				if _, err := coll.Put(tx, tc.name, tc.rec, storage.AnyVersion); err != nil {
					return err
				}
				rec, err := tx.Get(coll.Name, tc.name)
				stored = rec.Value
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if string(stored) != string(want) {
				t.Errorf("stored bytes differ from encoding/json's:\n got  %s\n want %s", stored, want)
			}

			// Bytes as encoding/json wrote them read back as
			// encoding/json reads them.
			var wantValue codecRecord
			if err := json.Unmarshal(want, &wantValue); err != nil {
				t.Fatal(err)
			}
			var got storage.Item[codecRecord]
			err = store.Update(ctx, func(tx storage.Tx) error {
				if _, err := tx.Put(coll.Name, tc.name, want, storage.AnyVersion); err != nil {
					return err
				}
				got, err = coll.Get(tx, tc.name)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantValue, got.Value, cmp.AllowUnexported(codecRecord{})); diff != "" {
				t.Errorf("decoded value differs from encoding/json's (-encoding/json +Collection):\n%s", diff)
			}
		})
	}
}
