package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestSiwCompleteWithWidgetAddressOverHTTP: /v1/siw/session.complete of a
// session whose shopper filled the widget's address form needs no
// customer, and the tracking order's receiver is the shopper; without a
// widget address and without a customer it is 400 naming customer.
func TestSiwCompleteWithWidgetAddressOverHTTP(t *testing.T) {
	formCreate := strings.Replace(siwCreate, `"some_future_field"`, `"address_form": true, "some_future_field"`, 1)
	tests := []struct {
		name       string
		create     string
		widget     bool
		wantStatus int
		wantField  string
	}{
		{"widget address", formCreate, true, http.StatusOK, ""},
		{"form not filled", formCreate, false, http.StatusBadRequest, "customer"},
		{"no form", siwCreate, false, http.StatusBadRequest, "customer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newDCStack(t, "http://example.com/v1/siw/_/", RateLimits{})
			created := st.ok(t, dcCall{method: "POST", path: "/v1/siw/session.create", body: tt.create})
			id := jsonPath(created, "session.id").(string)
			if tt.widget {
				st.ok(t, dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: map[string]string{widgetTokenHeader: created["token"].(string)}, body: dcAddress})
			}
			code, body := st.do(t, dcCall{method: "POST", path: "/v1/siw/session.complete", header: siwKey, body: `{"id": "` + id + `", "external_id": "order-5"}`})
			if code != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %v", code, tt.wantStatus, body)
			}
			if tt.wantStatus != http.StatusOK {
				if got := jsonPath(body, "details.0.field"); got != tt.wantField {
					t.Errorf("details[0].field = %v, want %s: %v", got, tt.wantField, body)
				}
				return
			}
			tos, _ := body["tos_id"].(string)
			if jsonPath(body, "session.status") != "COMPLETE" || tos == "" {
				t.Fatalf("complete: %v", body)
			}
			checkTrackedReceiver(t, st, tos, "Anna Berg", "118 26")
		})
	}
}
