package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// requestTypes are the types the handlers decode request bodies into.
var requestTypes = []any{
	checkout.CreateRequest{}, checkout.UpdateRequest{}, checkout.CompleteRequest{}, checkout.SelectRequest{},
	checkout.AddressRequest{}, checkout.CheckoutCreateRequest{}, checkout.CheckoutUpdateRequest{}, checkout.CheckoutCompleteRequest{},
	notify.RetriggerRequest{},
	returns.OrderInput{}, returns.ReturnedItemsInput{}, returns.CustomerReturnInput{},
	session.Session{}, session.CompleteRequest{},
	shipment.CreateShipmentRequest{}, shipment.ShipmentRef{}, shipment.UpdateShipmentRequest{}, shipment.AddParcelRequest{},
	shipment.BookPickupRequest{}, shipment.DeliveryRef{}, shipment.ConfirmPickupRequest{},
	tracking.CreateTrackingOrderRequest{}, tracking.CreateParcelRequest{}, tracking.GenerateTrackingPageLinkRequest{}, tracking.Event{},
}

// FuzzDecodeMatchesEncodingJSON holds the request decoder (a faster codec,
// falling back to encoding/json for its errors) to encoding/json on every
// request type: the same bodies accepted, into the same values.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		siwCreate,
		`{"purchase_country":"SE","PURCHASE_CURRENCY":"SEK","Purchase_Country":"NO"}`,
		`{"cart":{"total_value":1e3}}`, `{"cart":{"total_value":99999999999999999999}}`,
		`{"cart":{"total_value":-0}}`, `{"cart":{"total_value":"12"}}`, `{"cart":{"items":null}}`,
		`{"locales":["sv-SE","\u00e5\ud83d\udce6"],"locales":["en-US"]}`,
		"{\"cart_id\":\"\xff\xfe\"}", `{"id":"a\u0000b"}`, `{"purchase":{"total_value":"12.50"}}`,
		`{"purchase":{"total_value":12}}`, `{"deliveries":[{"id":"d","line_items":[{"quantity":2147483648}]}]}`,
		`{"time":"2026-11-22T09:30:00Z","time":"bad"}`, `{"amount":"1.005","refund_amount":1.5}`,
		`{"parcels":[{"weight":1.0}]}`, `{"parcels":[{"weight":1.5}]}`, `[]`, `null`, `"x"`, `{}`, `{"a":}`, `{"a":1}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range requestTypes {
			rt := reflect.TypeOf(typ)
			got, want := reflect.New(rt), reflect.New(rt)
			err := decodeFast(body, got.Interface())
			wantErr := json.Unmarshal(body, want.Interface())
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%s from %q: error %v; encoding/json: %v", rt, body, err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Fatalf("%s from %q:\n got  %+v\n want %+v (encoding/json)", rt, body, got.Elem(), want.Elem())
			}
		}
	})
}
