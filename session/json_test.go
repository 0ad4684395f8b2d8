package session

import (
	"bytes"
	"encoding/json"
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

// The answer written by hand is encoding/json's, byte for byte: on sessions
// with each optional field absent or zero, and with every field set.
func TestAppendJSONTable(t *testing.T) {
	at := Timestamp{time.Date(2026, 11, 26, 21, 0, 0, 5, time.FixedZone("CET", 3600))}
	full := func() *Session {
		return &Session{
			Name: "sessions/a<b>&c", State: StateActive,
			Purchase:   &Purchase{CountryCode: "SE", CurrencyCode: "SEK", TotalValue: 4900, Vouchers: []string{"v\u2028"}, Locales: []string{"sv-SE"}},
			CreateTime: at, UpdateTime: at, Etag: "e\"1\\",
			Deliveries: []Delivery{{
				ID:           "d1",
				LineItems:    []LineItem{{SKU: "s", Title: "Tröja\t\x01\xff", Quantity: 2, Weight: new(int32), Dimensions: &Dimensions{1, 2, 3}, Price: 100, ImageURI: "https://x/y"}},
				Fulfillments: []Fulfillment{{Readiness: &Readiness{EarliestTime: at}, CategoryTags: []string{"home"}}},
				RecipientContact: &Contact{Name: "Åsa", Email: "a@b.se", PhoneNumber: &PhoneNumber{CountryCode: "46", Number: "701"},
					Address: &Address{CountryCode: "SE", PostalCode: "11122", AddressLines: []string{"Götgatan 1"}, Coordinates: &deliverykit.Coordinates{Lat: 59.3293, Lng: 1e-7}}},
				Nodes: []DeliveryNode{{Handoff: &Handoff{LatestTime: at}, Roles: []Role{RoleOrigin}, Tags: []string{"t"}}, {}},
				DeliveryCategories: []DeliveryCategory{{
					ID: "c", DeliveryType: "PICKUP", DisplayName: "Pick up", SortOrder: -1, OptionsSource: "CATALOG",
					Addons:    []Addon{{DisplayName: "Call"}, {ID: "a", Price: 5, AddonType: "X", Preselected: true, Chosen: true}},
					Warehouse: &Warehouse{ID: "w", Address: Address{}}, Preselected: true, Chosen: true, ExternalID: "x",
					DeliveryOptions: []DeliveryOption{
						{ID: "o", Carrier: Carrier{Name: "n", Meta: map[string]string{"b": "2", "a": "<1>"}, SortOrder: 3},
							ETD: ETD{Relative: &RelativeETD{Unit: "DAY", Latest: 2}, Absolute: &AbsoluteETD{}, Custom: &CustomETD{}}, ExpireTime: at,
							PickupLocation: &PickupLocation{ID: "p", LocationType: "LOCKER", VisitingContact: &Contact{},
								OperationalHours: &OperationalHours{Monday: []string{"08:00-20:00"}, FreeText: []string{}},
								Sections:         []Section{{Title: "t"}, {Columns: []Column{{}, {Items: []ColumnItem{{}, {Text: "x", LinkURI: "l"}}}}}},
								Distances:        &Distances{Driving: &Distance{Meters: 1}}},
							Preselected: true, Chosen: true, VATRate: 2500},
						{},
					},
				}, {}},
				TosID: "tos", ExternalID: "ext",
			}, {}},
			ReturnsPromise: &ReturnsPromise{ID: "r", ReturnsEnabled: true, ReturnTimeDays: 30},
		}
	}
	tests := []struct {
		name string
		s    *Session
	}{
		{"nil", nil},
		{"zero", &Session{}},
		{"zero parts", &Session{Purchase: &Purchase{}, Deliveries: []Delivery{{}}, ReturnsPromise: &ReturnsPromise{}}},
		{"zero instant in a zone", &Session{CreateTime: Timestamp{time.Time{}.In(time.FixedZone("CET", 3600))}}},
		{"empty lists", &Session{Deliveries: []Delivery{}, Purchase: &Purchase{Vouchers: []string{}}}},
		{"empty lists kept", &Session{Deliveries: []Delivery{{LineItems: []LineItem{}, Fulfillments: []Fulfillment{{}}, RecipientContact: &Contact{}}}}},
		{"full", full()},
		{"unavailable promise", func() *Session {
			s := full()
			s.ReturnsPromise = &ReturnsPromise{IsUnavailable: true, ExchangeCost: 7}
			return s
		}()},
		{"non-finite coordinate", func() *Session {
			s := full()
			s.Deliveries[0].RecipientContact.Address.Coordinates.Lng = math.Inf(1)
			return s
		}()},
		{"large and negative zero coordinates", func() *Session {
			s := full()
			*s.Deliveries[0].RecipientContact.Address.Coordinates = deliverykit.Coordinates{Lat: math.Copysign(0, -1), Lng: -1.5e21}
			return s
		}()},
	}
	for _, tt := range tests {
		checkAppendJSON(t, tt.name, tt.s)
	}
}

// The same on random sessions that set every exported field (the filler of
// TestOwnCopyIsJSONRoundTrip): a field added to a type of the answer and
// not written by hand fails it.
func TestAppendJSONIsEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 6))
	f := &filler{r: r, times: windowTimes(r)}
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
