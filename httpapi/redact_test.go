package httpapi

import "testing"

// TestLogPath: the rest of a token path becomes "…" and 8 hex digits of
// its SHA-256 (sha256sum of the token); other paths are unchanged.
func TestLogPath(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/v1/delivery_tracking/_/page/tok123", "/v1/delivery_tracking/_/page/…" + "4f6e1f65"},
		{"/v1/delivery_tracking/_/page/tok123/more", "/v1/delivery_tracking/_/page/…" + "5176657c"},
		{"/returns/customer/return/tok123", "/returns/customer/return/…" + "4f6e1f65"},
		{"/returns/customer/return/tok123/label.pdf", "/returns/customer/return/…" + "a1cde2b1"},
		{"/returns/customer/return", "/returns/customer/return"},
		{"/returns/customer/return/", "/returns/customer/return/"},
		{"/v1/delivery_tracking/_/page/", "/v1/delivery_tracking/_/page/"},
		{"/v1/siw/_/widget/state", "/v1/siw/_/widget/state"},
		{"/v1/delivery_tracking/orders", "/v1/delivery_tracking/orders"},
	}
	for _, tt := range tests {
		if got := logPath(tt.path); got != tt.want {
			t.Errorf("logPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
