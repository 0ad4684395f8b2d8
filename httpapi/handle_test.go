package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryRouteChecksTheSite sends every route that takes a site_id (in
// its body or its query) the site of another key: each is refused with the
// same 403 before its service is called, and the same request naming the
// key's own site is not refused for its site.
func TestEveryRouteChecksTheSite(t *testing.T) {
	track := newTrackingEnv(t)
	ship := newShipmentEnv(t)
	tests := []struct {
		name         string
		h            http.Handler
		method, path string
		body         string // with {site} for the site named
	}{
		{"tracking order", track.h(t), "POST", "/v1/delivery_tracking/order", `{"site_id":"{site}"}`},
		{"tracking orders", track.h(t), "GET", "/v1/delivery_tracking/orders?external_id=X&site_id={site}", ""},
		{"tracking parcel", track.h(t), "POST", "/v1/delivery_tracking/parcel", `{"site_id":"{site}"}`},
		{"tracking parcels", track.h(t), "GET", "/v1/delivery_tracking/parcels?external_id=X&site_id={site}", ""},
		{"tracking link", track.h(t), "POST", "/v1/delivery_tracking/generate_tracking_page_link", `{"site_id":"{site}"}`},
		{"tracking event", track.h(t), "POST", "/v1/delivery_tracking/parcel.event", `{"site_id":"{site}"}`},
		{"notifications", track.h(t), "GET", "/v1/delivery_tracking/notifications?external_id=X&site_id={site}", ""},
		{"notification retrigger", track.h(t), "POST", "/v1/delivery_tracking/notification.retrigger", `{"site_id":"{site}"}`},
		{"shipments.create", ship.h, "POST", "/v1/som/shipments.create", `{"site_id":"{site}"}`},
		{"shipments.createAndBook", ship.h, "POST", "/v1/som/shipments.createAndBook", `{"site_id":"{site}"}`},
		{"shipments.bookParcels", ship.h, "POST", "/v1/som/shipments.bookParcels", `{"site_id":"{site}"}`},
		{"shipments.update", ship.h, "POST", "/v1/som/shipments.update", `{"site_id":"{site}"}`},
		{"shipments.cancel", ship.h, "POST", "/v1/som/shipments.cancel", `{"site_id":"{site}"}`},
		{"shipments.addParcel", ship.h, "POST", "/v1/som/shipments.addParcel", `{"site_id":"{site}"}`},
		{"shipments.get", ship.h, "GET", "/v1/som/shipments.get?id=X&site_id={site}", ""},
		{"deliveries.bookPickup", ship.h, "POST", "/v1/som/deliveries.bookPickup", `{"site_id":"{site}"}`},
		{"deliveries.cancel", ship.h, "POST", "/v1/som/deliveries.cancel", `{"site_id":"{site}"}`},
		{"deliveries.confirmPickup", ship.h, "POST", "/v1/som/deliveries.confirmPickup", `{"site_id":"{site}"}`},
		{"deliveries.get", ship.h, "GET", "/v1/som/deliveries.get?tracking_number=X&site_id={site}", ""},
		{"labels", ship.h, "GET", "/v1/som/labels/X?site_id={site}", ""},
		{"manifests create", ship.h, "POST", "/v1/som/manifests", `{"site_id":"{site}"}`},
		{"manifests get", ship.h, "GET", "/v1/som/manifests/X?site_id={site}", ""},
		{"manifests pdf", ship.h, "GET", "/v1/som/manifests/X?format=pdf&site_id={site}", ""},
	}
	wantDetails := []any{map[string]any{"field": "site_id", "rule": "site", "message": "is not the site of the API key"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := func(site string) call {
				r := strings.NewReplacer("{site}", site)
				return call{method: tt.method, path: r.Replace(tt.path), header: authed("demo-key"), body: r.Replace(tt.body)}
			}
			resp, body := at("demo-site-2").do(t, tt.h)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("naming another site: status %d, want 403; body %v", resp.StatusCode, body)
			}
			if got, want := body["error"], "permission denied: the API key does not belong to this site: site_id: is not the site of the API key"; got != want {
				t.Errorf("naming another site: error %q, want %q", got, want)
			}
			if diff := cmp.Diff(wantDetails, body["details"]); diff != "" {
				t.Errorf("naming another site: details (-want +got):\n%s", diff)
			}
			if resp, body := at("demo-site").do(t, tt.h); resp.StatusCode == http.StatusForbidden {
				t.Errorf("naming the key's site: 403, want another answer; body %v", body)
			}
		})
	}
}
