package carrier_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestS10CheckDigit(t *testing.T) {
	for serial, want := range map[string]int{
		"12345678": 5, // 204 mod 11 = 6 → 11 - 6
		"00000001": 4,
		"00000002": 8,
		"00000008": 0, // 56 mod 11 = 1 → 10 → 0
		"00000000": 5, // 0 mod 11 = 0 → 11 → 5
		"47312482": 9, // 32+42+12+2+6+20+72+14 = 200; 200 mod 11 = 2 → 9
	} {
		got, err := carrier.S10CheckDigit(serial)
		if err != nil || got != want {
			t.Errorf("S10CheckDigit(%s) = %d, %v; want %d", serial, got, err, want)
		}
	}
	for _, bad := range []string{"1234567", "123456789", "1234567a"} {
		if _, err := carrier.S10CheckDigit(bad); err == nil {
			t.Errorf("S10CheckDigit(%q) accepted", bad)
		}
	}
}

func TestFormatAndCheckS10(t *testing.T) {
	n, err := carrier.FormatS10("RR", 12345678, "DE")
	if err != nil || n != "RR123456785DE" {
		t.Fatalf("FormatS10 = %q, %v", n, err)
	}
	if err := carrier.CheckS10(n); err != nil {
		t.Errorf("CheckS10(%s): %v", n, err)
	}
	for _, tc := range []struct{ in, msg string }{
		{"RR123456784DE", "check digit"},
		{"RR12345678DE", "13 characters"},
		{"rr123456785DE", "upper-case"},
		{"RR12345X785DE", "9 digits"},
		{"RR123456785D1", "upper-case"},
	} {
		err := carrier.CheckS10(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("CheckS10(%q) = %v, want an error about %s", tc.in, err, tc.msg)
		}
	}
	for _, tc := range []struct {
		svc, country string
		serial       uint32
	}{{"R", "DE", 1}, {"RR", "de", 1}, {"RR", "DE", 100_000_000}} {
		if _, err := carrier.FormatS10(tc.svc, tc.serial, tc.country); err == nil {
			t.Errorf("FormatS10(%q, %d, %q) accepted", tc.svc, tc.serial, tc.country)
		}
	}
}

func booking(key string) shipment.BookingRequest {
	return shipment.BookingRequest{Key: key, Site: "s", Product: shipment.Product{Ref: "np-home"},
		Receiver: shipment.Receiver{Name: "A", Address: &shipment.Address{PostalCode: "753 20", Country: "SE"}}}
}

func TestDemoBookingIsIdempotentAndSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "carrier.db")
	store, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{Service: "CX", Country: "DE", TrackingURL: "https://c.test/{tracking_number}"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := demo.Book(ctx, booking("s/k1"))
	if err != nil {
		t.Fatal(err)
	}
	want := shipment.Booking{TrackingNumber: "CX000000014DE", TrackingURL: "https://c.test/CX000000014DE", RoutingCode: "SE-753"}
	if a != want {
		t.Errorf("Book = %+v, want %+v", a, want)
	}
	store.Close()
	store, err = bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	demo, _ = carrier.NewDemo(store, carrier.DemoOptions{Service: "CX", Country: "DE", TrackingURL: "https://c.test/{tracking_number}"})
	again, _ := demo.Book(ctx, booking("s/k1"))
	other, _ := demo.Book(ctx, booking("s/k2"))
	if again != a || other.TrackingNumber != "CX000000028DE" {
		t.Errorf("after restart: same key %+v, new key %+v", again, other)
	}
}

func TestDemoPickupAndCancel(t *testing.T) {
	ctx := context.Background()
	demo, _ := carrier.NewDemo(memory.New(), carrier.DemoOptions{})
	b, _ := demo.Book(ctx, booking("s/k1"))
	w := shipment.TimeSpan{}
	if err := demo.BookPickup(ctx, shipment.PickupRequest{Key: "s/k1", TrackingNumber: b.TrackingNumber, Window: w, Address: shipment.Address{City: "Stockholm"}}); err != nil {
		t.Fatal(err)
	}
	if err := demo.BookPickup(ctx, shipment.PickupRequest{Key: "s/k9", TrackingNumber: b.TrackingNumber}); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("pickup of an unknown booking: %v", err)
	}
	if err := demo.Cancel(ctx, shipment.CancelRequest{Key: "s/unknown"}); err != nil {
		t.Errorf("cancelling an unknown key: %v", err)
	}
	if err := demo.Cancel(ctx, shipment.CancelRequest{Key: "s/k1", TrackingNumber: b.TrackingNumber}); err != nil {
		t.Fatal(err)
	}
	got, _ := demo.Lookup(ctx, b.TrackingNumber)
	if !got.Cancelled || got.PickupAddress == nil || got.PickupAddress.City != "Stockholm" {
		t.Errorf("Lookup = %+v", got)
	}
	if err := demo.BookPickup(ctx, shipment.PickupRequest{Key: "s/k1", TrackingNumber: b.TrackingNumber}); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("pickup of a cancelled booking: %v", err)
	}
	// A cancelled key booked again gets a new number; the old one stays cancelled.
	nb, _ := demo.Book(ctx, booking("s/k1"))
	if nb.TrackingNumber == b.TrackingNumber {
		t.Error("a cancelled booking was revived")
	}
	if old, _ := demo.Lookup(ctx, b.TrackingNumber); !old.Cancelled {
		t.Errorf("old number after rebooking: %+v", old)
	}
	if err := demo.CheckTrackingNumber(nb.TrackingNumber); err != nil {
		t.Error(err)
	}
	if _, err := carrier.NewDemo(memory.New(), carrier.DemoOptions{Service: "c1"}); err == nil {
		t.Error("NewDemo accepted a bad service indicator")
	}
}
