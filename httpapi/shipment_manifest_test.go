package httpapi

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

// TestShipmentManifestOverHTTP closes a day over HTTP: the manifest lists
// the booked parcel, reads back as JSON and PDF for its site only, and the
// parcel can no longer be cancelled.
func TestShipmentManifestOverHTTP(t *testing.T) {
	env := newShipmentEnv(t)
	h := env.h
	resp, sh := som("POST", "/shipments.createAndBook", "demo-key", shipmentBody).do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("createAndBook: %d %v", resp.StatusCode, sh)
	}
	tn := str(sh, "parcels", 0, "deliveries", 0, "tracking_number")
	close := `{"carrier": "north", "pickup_date": "2026-11-22"}`
	resp, m := som("POST", "/manifests", "demo-key", close).do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("manifest: %d %v", resp.StatusCode, m)
	}
	id := str(m, "id")
	want := map[string]any{
		"id": id, "site_id": "demo-site", "carrier": "north", "carrier_name": "North Parcel", "pickup_date": "2026-11-22",
		"created_at": "2026-11-22T10:00:00Z",
		"parcels":    []any{map[string]any{"tracking_number": tn, "shipment_id": str(sh, "id"), "weight": float64(1250)}},
		"totals":     map[string]any{"parcels": float64(1), "weight": float64(1250)},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
	if resp, got := som("GET", "/manifests/"+id, "demo-key", "").do(t, h); resp.StatusCode != 200 || !cmp.Equal(got, m) {
		t.Errorf("GET manifest: %d %v", resp.StatusCode, cmp.Diff(m, got))
	}

	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/v1/som/manifests/"+id+"?format=pdf", nil)
	req.Header.Set("Authorization", bearer("demo-key"))
	h.ServeHTTP(rec, req)
	b, _ := io.ReadAll(rec.Result().Body)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/pdf" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("manifest PDF: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	} else if err := labeltest.CheckPDF(b); err != nil {
		t.Errorf("manifest PDF: %v", err)
	}

	for _, c := range []struct {
		name, method, path, key, body string
		status                        int
		field                         string
	}{
		{"cancel delivery", "POST", "/deliveries.cancel", "demo-key", `{"tracking_number": "` + tn + `"}`, 409, "tracking_number"},
		{"cancel shipment", "POST", "/shipments.cancel", "demo-key", `{"shipment_id": "` + str(sh, "id") + `"}`, 409, "tracking_number"},
		{"nothing left", "POST", "/manifests", "demo-key", close, 409, "carrier"},
		{"another site", "GET", "/manifests/" + id, "demo-key-2", "", 404, "id"},
		{"another site's PDF", "GET", "/manifests/" + id + "?format=pdf", "demo-key-2", "", 404, "id"},
		{"unknown", "GET", "/manifests/mfst_nope", "demo-key", "", 404, "id"},
		{"long id", "GET", "/manifests/" + strings.Repeat("m", 300), "demo-key", "", 400, "id"},
		{"format", "GET", "/manifests/" + id + "?format=zpl", "demo-key", "", 400, "format"},
		{"no date", "POST", "/manifests", "demo-key", `{"carrier": "north"}`, 400, "pickup_date"},
	} {
		resp, body := som(c.method, c.path, c.key, c.body).do(t, h)
		if resp.StatusCode != c.status || str(body, "details", 0, "field") != c.field {
			t.Errorf("%s: %d %v, want %d naming %s", c.name, resp.StatusCode, body, c.status, c.field)
		}
	}
}

// A pickup booked over HTTP with "manifest": true manifests the day's
// parcels of its carrier first, the other shipment's too; without it, the
// parcel of a booked pickup stays cancellable.
func TestBookPickupManifestOverHTTP(t *testing.T) {
	env := newShipmentEnv(t)
	h := env.h
	var ids, tns []string
	for _, ext := range []string{"ORD-1", "ORD-2", "ORD-3"} {
		resp, sh := som("POST", "/shipments.createAndBook", "demo-key", strings.Replace(shipmentBody, "ORD-77", ext, 2)).do(t, h)
		if resp.StatusCode != 200 {
			t.Fatalf("createAndBook %s: %d %v", ext, resp.StatusCode, sh)
		}
		ids, tns = append(ids, str(sh, "id")), append(tns, str(sh, "parcels", 0, "deliveries", 0, "tracking_number"))
	}
	window := `"pickup_window": {"start": "2026-11-23T09:00:00Z", "end": "2026-11-23T12:00:00Z"}`
	// ORD-1 alone, without manifest: it stays cancellable.
	if resp, body := som("POST", "/deliveries.bookPickup", "demo-key", `{"tracking_number": "`+tns[0]+`", `+window+`}`).do(t, h); resp.StatusCode != 200 {
		t.Fatalf("bookPickup: %d %v", resp.StatusCode, body)
	}
	if resp, body := som("POST", "/shipments.cancel", "demo-key", `{"shipment_id": "`+ids[0]+`"}`).do(t, h); resp.StatusCode != 200 {
		t.Fatalf("cancel after a pickup without manifest: %d %v", resp.StatusCode, body)
	}
	resp, sh := som("POST", "/deliveries.bookPickup", "demo-key", `{"shipment_id": "`+ids[1]+`", "manifest": true, `+window+`}`).do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("bookPickup with manifest: %d %v", resp.StatusCode, sh)
	}
	id := str(sh, "shipment", "parcels", 0, "deliveries", 0, "manifest_id")
	resp, m := som("GET", "/manifests/"+id, "demo-key", "").do(t, h)
	if resp.StatusCode != 200 || str(m, "pickup_date") != "2026-11-23" {
		t.Fatalf("the pickup's manifest %q: %d %v", id, resp.StatusCode, m)
	}
	var listed []string
	for i := range 2 {
		listed = append(listed, str(m, "parcels", i, "tracking_number"))
	}
	if diff := cmp.Diff(tns[1:], listed); diff != "" {
		t.Errorf("manifest parcels (-want +got):\n%s", diff)
	}
	if resp, body := som("POST", "/shipments.cancel", "demo-key", `{"shipment_id": "`+ids[2]+`"}`).do(t, h); resp.StatusCode != 409 || str(body, "details", 0, "field") != "tracking_number" {
		t.Errorf("cancelling the other manifested shipment: %d %v, want 409 naming tracking_number", resp.StatusCode, body)
	}
	if resp, body := som("POST", "/deliveries.bookPickup", "demo-key", `{"shipment_id": "`+ids[1]+`", "manifest": "yes", `+window+`}`).do(t, h); resp.StatusCode != 400 || str(body, "details", 0, "field") != "manifest" {
		t.Errorf("manifest as a string: %d %v, want 400 naming manifest", resp.StatusCode, body)
	}
}
