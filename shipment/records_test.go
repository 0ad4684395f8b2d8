package shipment

import (
	"reflect"
	"testing"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit/internal/recordtest"
)

// The stored types name every stored field themselves: none is a wire type
// or reaches one.
func TestStoredTypesOwnTheirNames(t *testing.T) {
	recordtest.CheckOwnNames(t, reflect.TypeFor[storedShipment]())
	recordtest.CheckOwnNames(t, reflect.TypeFor[requestRecord]())
	recordtest.CheckOwnNames(t, reflect.TypeFor[manifestRecord]())
}

// A manifest is stored and read back unchanged, its totals derived from
// its parcels.
func TestManifestRecordRoundTrip(t *testing.T) {
	var want Manifest
	recordtest.Fill(&want)
	want.Totals = totalsOf(want.Parcels)
	r := storeManifest(&want)
	got, err := loadManifest(&r)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-stored +read):\n%s", diff)
	}
	if r := (manifestRecord{Schema: manifestSchema + 1}); func() error { _, err := loadManifest(&r); return err }() == nil {
		t.Error("a manifest of a newer schema was read")
	}
}

// A shipment with every field set is stored and read back unchanged: the
// conversions drop no field.
func TestShipmentRecordRoundTrip(t *testing.T) {
	var want shipmentRecord
	recordtest.Fill(&want)
	b, err := json.Marshal(storeShipment(&want))
	if err != nil {
		t.Fatal(err)
	}
	var rec storedShipment
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Schema != shipmentSchema {
		t.Errorf("stored schema %d, want %d", rec.Schema, shipmentSchema)
	}
	got, err := loadStoredShipment(&rec)
	if err != nil {
		t.Fatal(err)
	}
	// linkTokens live only between a booking and its write: never stored.
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(shipmentRecord{})); diff != "" {
		t.Errorf("read back (-stored +read):\n%s", diff)
	}
}

// The request record keeps every field of a create request but the two
// that do not describe the shipment.
func TestRequestRecordKeepsEveryField(t *testing.T) {
	var req CreateShipmentRequest
	recordtest.Fill(&req)
	dropped := recordtest.Leaves(req.SiteID) + recordtest.Leaves(req.PickupWindow)
	if got, want := recordtest.Leaves(requestRecordOf(req)), recordtest.Leaves(req)-dropped; got != want {
		t.Errorf("the request record has %d values of the request's %d", got, want)
	}
}

// A record of a schema this release does not know is an error, never a
// misread.
func TestNewerSchemaIsRefused(t *testing.T) {
	rec := storedShipment{Schema: shipmentSchema + 1}
	if _, err := loadStoredShipment(&rec); err == nil {
		t.Error("a record of a newer schema was read")
	}
}
