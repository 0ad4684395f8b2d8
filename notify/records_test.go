package notify

import (
	"reflect"
	"testing"

	"github.com/deliverykit/deliverykit/internal/recordtest"
)

// Notifications are stored as private records that name their fields
// themselves (no wire type is stored), so a change to a wire type's tags
// changes no stored byte.
func TestStoredTypesOwnTheirNames(t *testing.T) {
	recordtest.CheckOwnNames(t, reflect.TypeFor[record]())
	recordtest.CheckOwnNames(t, reflect.TypeFor[dedupRecord]())
	recordtest.CheckOwnNames(t, reflect.TypeFor[waitingRecord]())
	recordtest.CheckOwnNames(t, reflect.TypeFor[parcelState]())
}
