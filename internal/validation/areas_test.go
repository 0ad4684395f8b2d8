package validation_test

import (
	"github.com/deliverykit/deliverykit/checkout"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// TestAreasTagsAreWorded walks the requests every converted area validates
// and fails on a tag that would fall back to `breaks the rule "tag"`: a new
// tag in an area needs its sentence in the shared table (or a Rule).
func TestAreasTagsAreWorded(t *testing.T) {
	roots := []any{
		checkout.CreateRequest{}, checkout.UpdateRequest{}, checkout.CompleteRequest{}, checkout.SelectRequest{},
		checkout.AddressRequest{}, checkout.CheckoutCreateRequest{}, checkout.CheckoutUpdateRequest{}, checkout.CheckoutCompleteRequest{},
		returns.CustomerReturnInput{}, returns.ShipmentInput{}, returns.ReturnedItemsInput{}, returns.OrderInput{},
		tracking.Event{}, tracking.CreateTrackingOrderRequest{}, tracking.CreateParcelRequest{}, tracking.GenerateTrackingPageLinkRequest{},
		tracking.CancelOrderLinesRequest{},
		session.Session{}, session.CompleteRequest{}, notify.RetriggerRequest{},
		shipment.CreateShipmentRequest{}, shipment.BookPickupRequest{}, shipment.ConfirmPickupRequest{}, shipment.UpdateShipmentRequest{}, shipment.AddParcelRequest{},
	}
	// Keywords that steer the validator but never name a violation, and
	// the tags tracking and checkout register as their own Rules.
	notViolations := map[string]bool{"omitempty": true, "omitnil": true, "omitzero": true, "dive": true, "keys": true, "endkeys": true, "": true}
	areaRules := map[string]bool{"hhmmss": true, "step": true, "alert": true, "exception": true, "checkout_html_id": true, "checkout_js_name": true}

	seen := map[reflect.Type]bool{}
	used := map[string]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			// Aliases name limits; what a client sees is the tag they
			// stand for.
			tag := validation.ExpandTag(f.Tag.Get("validate"))
			if tag != "-" {
				for _, alt := range strings.FieldsFunc(tag, func(r rune) bool { return r == ',' || r == '|' }) {
					name, _, _ := strings.Cut(alt, "=")
					used[name] = true
				}
			}
			walk(f.Type)
		}
	}
	for _, r := range roots {
		walk(reflect.TypeOf(r))
	}
	var unworded []string
	for tag := range used {
		if !notViolations[tag] && !areaRules[tag] && !validation.Worded(tag) {
			unworded = append(unworded, tag)
		}
	}
	sort.Strings(unworded)
	if diff := cmp.Diff([]string(nil), unworded); diff != "" {
		t.Errorf("tags without a sentence in the shared table (-want +got):\n%s", diff)
	}
	if len(used) < 10 {
		t.Errorf("found only the tags %v: is the walk broken?", used)
	}
}

// requestTypes are the bodies every area decodes from clients, by area.
// A new request type goes here; TestRequestLimits then holds each of its
// strings, lists and maps to a maximum.
var requestTypes = map[string][]reflect.Type{
	"tracking (A)": {
		reflect.TypeFor[tracking.CreateTrackingOrderRequest](), reflect.TypeFor[tracking.CreateParcelRequest](),
		reflect.TypeFor[tracking.GenerateTrackingPageLinkRequest](), reflect.TypeFor[tracking.Event](),
		reflect.TypeFor[tracking.CancelOrderLinesRequest](),
	},
	"notify (B)": {reflect.TypeFor[notify.RetriggerRequest]()},
	"checkout (C)": {
		reflect.TypeFor[checkout.CreateRequest](), reflect.TypeFor[checkout.UpdateRequest](),
		reflect.TypeFor[checkout.CompleteRequest](), reflect.TypeFor[checkout.CreateFromOrderRequest](),
		reflect.TypeFor[checkout.SelectRequest](), reflect.TypeFor[checkout.AddressRequest](),
		reflect.TypeFor[checkout.CheckoutCreateRequest](), reflect.TypeFor[checkout.CheckoutUpdateRequest](),
		reflect.TypeFor[checkout.CheckoutCompleteRequest](),
	},
	"session (D)": {reflect.TypeFor[session.Session](), reflect.TypeFor[session.CompleteRequest]()},
	"returns (E)": {
		reflect.TypeFor[returns.OrderInput](), reflect.TypeFor[returns.CustomerReturnInput](),
		reflect.TypeFor[returns.ReturnedItemsInput](), reflect.TypeFor[returns.ShipmentInput](),
	},
	"shipment (F)": {
		reflect.TypeFor[shipment.CreateShipmentRequest](), reflect.TypeFor[shipment.ShipmentRef](),
		reflect.TypeFor[shipment.BookPickupRequest](), reflect.TypeFor[shipment.DeliveryRef](),
		reflect.TypeFor[shipment.ConfirmPickupRequest](), reflect.TypeFor[shipment.UpdateShipmentRequest](),
		reflect.TypeFor[shipment.AddParcelRequest](),
	},
}

// shortFormats are the areas' own tags that accept only short values, so
// they bound a string as max= does.
var shortFormats = []string{"hhmmss", "step", "alert", "exception"}

// TestRequestLimits walks every request type of every area and fails on a
// string, list or map a client could make as large as the body: each must
// have a maximum in its tags (see validation.Unbounded), so a new field
// cannot slip in without one.
func TestRequestLimits(t *testing.T) {
	for area, types := range requestTypes {
		t.Run(area, func(t *testing.T) {
			if diff := cmp.Diff([]string(nil), validation.Unbounded(types, shortFormats...)); diff != "" {
				t.Errorf("fields without a maximum (-want +got):\n%s", diff)
			}
		})
	}
}
