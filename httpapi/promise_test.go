package httpapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPromiseAccuracy: the report answers rows (none without
// deliveries) and names the parameter a bad request got wrong.
func TestPromiseAccuracy(t *testing.T) {
	e := newTrackingEnv(t)
	tests := []struct {
		name       string
		query      string
		wantStatus int
		wantField  string // of the first violation
	}{
		{"by product", "group_by=product", 200, ""},
		{"by week, dates", "group_by=week&from=2026-01-01&to=2026-11-01", 200, ""},
		{"times", "group_by=zone&from=2026-11-01T00:00:00Z&to=2026-11-20T00:00:00%2B01:00", 200, ""},
		{"no group_by", "", 400, "group_by"},
		{"unknown group_by", "group_by=carrier", 400, "group_by"},
		{"bad from", "group_by=origin&from=yesterday", 400, "from"},
		{"bad to", "group_by=origin&to=2026-13-01", 400, "to"},
		{"reversed", "group_by=origin&from=2026-11-02&to=2026-11-01", 400, "from"},
		{"over 400 days", "group_by=origin&from=2025-01-01&to=2026-11-01", 400, "from"},
		{"another site", "group_by=product&site_id=other", 403, "site_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := call{method: "GET", path: "/v1/delivery_tracking/promise_accuracy?" + tt.query, header: authed("demo-key")}.do(t, e.h(t))
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %v", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 200 {
				if diff := cmp.Diff(map[string]any{"rows": []any{}}, body); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
				return
			}
			details, _ := body["details"].([]any)
			if len(details) == 0 {
				t.Fatalf("no details: %v", body)
			}
			if got := details[0].(map[string]any)["field"]; got != tt.wantField {
				t.Errorf("field %v, want %s", got, tt.wantField)
			}
		})
	}
}
