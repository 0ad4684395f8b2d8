package checkout

import (
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/catalog"
)

// TestLowerDeliveryType: lowerDeliveryType is strings.ToLower for the
// catalog's delivery types and for any other.
func TestLowerDeliveryType(t *testing.T) {
	for _, dt := range []catalog.DeliveryType{catalog.DeliveryHome, catalog.DeliveryPickup, catalog.DeliveryMailbox,
		catalog.DeliveryInStore, "", "Other_Type"} {
		if got, want := lowerDeliveryType(dt), strings.ToLower(string(dt)); got != want {
			t.Errorf("lowerDeliveryType(%q) = %q, want %q", dt, got, want)
		}
	}
}
