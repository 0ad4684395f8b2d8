package event_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// A producer describes what happened; a consumer reads the payload back.
func Example() {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	ev, err := event.New("", "demo-site", "NP123456789SE", at, event.ParcelChanged{
		TosID: "tos_1", TrackingNumber: "NP123456789SE", Step: "STEP_DELIVERED_TO_CONSUMER", Time: at,
	})
	if err != nil {
		panic(err)
	}
	c, err := event.Decode[event.ParcelChanged](ev)
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Type, ev.Subject, c.Step)
	// Output: parcel.changed NP123456789SE STEP_DELIVERED_TO_CONSUMER
}

func TestDecode(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	ev, err := event.New("evt_1", "s", "x", at, event.OrderCompleted{TosID: "tos_1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ev   event.Event
		want deliverykit.Kind
	}{
		{"its own type", ev, 0},
		{"another type", func() event.Event { e := ev; e.Type = event.TypeParcelBooked; return e }(), deliverykit.KindInvalidArgument},
		{"a broken payload", func() event.Event { e := ev; e.Payload = []byte(`{"tos_id": 7}`); return e }(), deliverykit.KindInvalidArgument},
	}
	for _, tc := range tests {
		_, err := event.Decode[event.OrderCompleted](tc.ev)
		var got deliverykit.Kind
		if err != nil {
			var e *deliverykit.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: %v is not a deliverykit error", tc.name, err)
			}
			got = e.Kind
		}
		if got != tc.want {
			t.Errorf("%s: kind %v, want %v (%v)", tc.name, got, tc.want, err)
		}
	}
	for _, typ := range event.Types {
		if !event.Known(typ) {
			t.Errorf("%s is not known", typ)
		}
	}
	if event.Known("parcel.teleported") {
		t.Error("an unknown type is known")
	}
}
