package session

import (
	"reflect"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/recordtest"
)

// The stored types name every stored field themselves: none is a wire type
// or reaches one, Int64 and Timestamp included.
func TestStoredTypesOwnTheirNames(t *testing.T) {
	recordtest.CheckOwnNames(t, reflect.TypeFor[storedSession]())
}

// A session with every field set is stored and read back unchanged: the
// conversions drop no field.
func TestSessionRecordRoundTrip(t *testing.T) {
	var want record
	recordtest.Fill(&want)
	want.Etag = "" // the etag is the record's version, never stored
	b, err := gojson.Marshal(storeSession(&want))
	if err != nil {
		t.Fatal(err)
	}
	var rec storedSession
	if err := gojson.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Schema != sessionSchema {
		t.Errorf("stored schema %d, want %d", rec.Schema, sessionSchema)
	}
	got, err := loadStoredSession(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-stored +read):\n%s", diff)
	}
}

// Schema 1 records of the releases that kept the carrier's product id in
// carrier.product_id read with the reference there; schema 2 records are
// read as stored.
func TestUpgradeSetsProductReferences(t *testing.T) {
	rec := func(schema int) *storedSession {
		return &storedSession{Schema: schema, Deliveries: []deliveryRecord{{DeliveryCategories: []categoryRecord{{DeliveryOptions: []optionRecord{
			{Carrier: carrierRecord{ProductID: "NP-19", Meta: map[string]string{MetaProductRef: "north-parcel-home"}}},
			{Carrier: carrierRecord{ProductID: "own"}},
		}}}}}}
	}
	for _, tc := range []struct {
		schema int
		want   []string
	}{
		{0, []string{"north-parcel-home", "own"}},
		{1, []string{"north-parcel-home", "own"}},
		{2, []string{"NP-19", "own"}},
	} {
		got, err := loadStoredSession(rec(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, o := range got.Deliveries[0].DeliveryCategories[0].DeliveryOptions {
			ids = append(ids, o.Carrier.ProductID)
		}
		if diff := cmp.Diff(tc.want, ids); diff != "" {
			t.Errorf("schema %d: product ids (-want +got):\n%s", tc.schema, diff)
		}
	}
	if _, err := loadStoredSession(&storedSession{Schema: sessionSchema + 1}); err == nil {
		t.Error("a record of a newer schema was read")
	}
}
