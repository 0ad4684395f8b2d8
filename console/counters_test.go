package console

import (
	"context"
	"fmt"
	"github.com/deliverykit/deliverykit/storage"
	"slices"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var day0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// ev makes an event of site with payload p, at day0 plus days.
func ev(t *testing.T, id, site string, days int, p event.Payload) event.Event {
	t.Helper()
	e, err := event.New(id, site, "subject-"+id, day0.AddDate(0, 0, days), p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestCounters(t *testing.T) {
	booked := func(tn, dir string) event.ParcelBooked {
		return event.ParcelBooked{TrackingNumber: tn, Direction: dir}
	}
	changed := func(tn, step, alert string) event.ParcelChanged {
		return event.ParcelChanged{TrackingNumber: tn, Step: step, Alert: alert, Direction: event.DirectionOutbound}
	}
	ret := func(status, prev string) event.ReturnStatusChanged {
		return event.ReturnStatusChanged{Status: status, PreviousStatus: prev}
	}
	tests := []struct {
		name       string
		events     func(t *testing.T) []event.Event
		wantDays   map[int]counts // by day after day0
		wantGauges counts
	}{
		{
			name: "an order, by product, type and currency",
			events: func(t *testing.T) []event.Event {
				return []event.Event{ev(t, "1", "s", 0, event.OrderCompleted{ProductRef: "p1", DeliveryType: "home", Currency: "SEK", ShippingPrice: 4900})}
			},
			wantDays: map[int]counts{0: {cOrders: 1, cProductPrefix + "p1": 1, cTypePrefix + "home": 1, cPricePrefix + "SEK": 4900, cPricedPrefix + "SEK": 1}},
		},
		{
			name: "vouchers: orders with one, and each code, case folded",
			events: func(t *testing.T) []event.Event {
				return []event.Event{
					ev(t, "v1", "s", 0, event.OrderCompleted{Cart: event.Cart{Vouchers: []string{"SPRING10", "freeship"}}}),
					ev(t, "v2", "s", 0, event.OrderCompleted{Cart: event.Cart{Vouchers: []string{"spring10"}}}),
					ev(t, "v3", "s", 0, event.OrderCompleted{}),
				}
			},
			wantDays: map[int]counts{0: {cOrders: 3, cVoucherOrders: 2, cVoucherPrefix + "spring10": 2, cVoucherPrefix + "freeship": 1}},
		},
		{
			name: "a day's voucher codes past the bound count as others",
			events: func(t *testing.T) []event.Event {
				var out []event.Event
				for i := range maxVoucherCodes + 2 {
					out = append(out, ev(t, fmt.Sprintf("c%d", i), "s", 0, event.OrderCompleted{Cart: event.Cart{Vouchers: []string{fmt.Sprintf("code%02d", i)}}}))
				}
				return out
			},
			wantDays: func() map[int]counts {
				day := counts{cOrders: maxVoucherCodes + 2, cVoucherOrders: maxVoucherCodes + 2, cVoucherPrefix: 2}
				for i := range maxVoucherCodes {
					day[fmt.Sprintf("%scode%02d", cVoucherPrefix, i)] = 1
				}
				return map[int]counts{0: day}
			}(),
		},
		{
			name: "the same event twice counts once",
			events: func(t *testing.T) []event.Event {
				e := ev(t, "1", "s", 0, event.OrderCompleted{})
				return []event.Event{e, e}
			},
			wantDays: map[int]counts{0: {cOrders: 1}},
		},
		{
			name: "a parcel in transit until delivered, once",
			events: func(t *testing.T) []event.Event {
				return []event.Event{
					ev(t, "1", "s", 0, booked("T1", event.DirectionOutbound)),
					ev(t, "2", "s", 0, booked("T1", event.DirectionOutbound)), // booked again: one parcel
					ev(t, "3", "s", 0, booked("T2", event.DirectionOutbound)),
					ev(t, "4", "s", 0, booked("R1", event.DirectionReturn)), // a return parcel: not the shop's delivery
					ev(t, "5", "s", 1, changed("T1", "STEP_DELIVERED_TO_PICKUP_POINT", "")),
					ev(t, "6", "s", 2, changed("T1", "STEP_DELIVERED_TO_CONSUMER", "")), // collected: already out of transit
				}
			},
			wantDays:   map[int]counts{0: {cParcelsBooked: 2}, 1: {cParcelsDelivered: 1}},
			wantGauges: counts{gInTransit: 1},
		},
		{
			name: "exceptions by kind; a parcel lost or sent back leaves transit undelivered",
			events: func(t *testing.T) []event.Event {
				return []event.Event{
					ev(t, "1", "s", 0, booked("T1", event.DirectionOutbound)),
					ev(t, "2", "s", 0, booked("T2", event.DirectionOutbound)),
					ev(t, "3", "s", 1, changed("T1", "", "ALERT_DELIVERY_ATTEMPT_FAILED")),
					ev(t, "4", "s", 1, changed("T1", "", "ALERT_DELIVERY_DELAYED")),
					ev(t, "5", "s", 1, changed("T1", "STEP_SENT_BACK", "")),
					ev(t, "6", "s", 2, changed("T2", "STEP_TERMINATED", "")),
					ev(t, "7", "s", 2, changed("T9", "STEP_ON_ROUTE", "ALERT_OUT_FOR_DELIVERY")), // no exception
				}
			},
			wantDays: map[int]counts{0: {cParcelsBooked: 2},
				1: {cFailedAttempt: 1, cDelayed: 1, cNotCollected: 1, cExceptions: 3},
				2: {cLost: 1, cExceptions: 1}},
			wantGauges: counts{gInTransit: 0},
		},
		{
			name: "returns move between statuses",
			events: func(t *testing.T) []event.Event {
				return []event.Event{
					ev(t, "1", "s", 0, event.ReturnCreated{Status: "AWAITING_RETURN"}),
					ev(t, "2", "s", 0, event.ReturnCreated{Status: "AWAITING_RETURN"}),
					ev(t, "3", "s", 1, ret("IN_TRANSIT", "AWAITING_RETURN")),
					ev(t, "4", "s", 2, ret("AWAITING_REFUND", "IN_TRANSIT")),
					ev(t, "5", "s", 2, event.RefundChanged{Status: "AWAITING_REFUND", PreviousStatus: "AWAITING_REFUND"}), // no move
				}
			},
			wantDays:   map[int]counts{0: {cReturnsCreated: 2}},
			wantGauges: counts{gReturnPrefix + "AWAITING_RETURN": 1, gReturnPrefix + "IN_TRANSIT": 0, gReturnPrefix + "AWAITING_REFUND": 1},
		},
		{
			name: "notifications",
			events: func(t *testing.T) []event.Event {
				return []event.Event{ev(t, "1", "s", 0, event.NotificationSent{}), ev(t, "2", "s", 0, event.NotificationFailed{}),
					ev(t, "3", "s", 3, event.NotificationSent{})}
			},
			wantDays: map[int]counts{0: {cNotificationsSent: 1, cNotificationsFailed: 1}, 3: {cNotificationsSent: 1}},
		},
		{
			name: "each site its own",
			events: func(t *testing.T) []event.Event {
				return []event.Event{ev(t, "1", "other", 0, event.OrderCompleted{}), ev(t, "2", "other", 0, booked("T1", event.DirectionOutbound))}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCounters(memory.New())
			for _, e := range tt.events(t) {
				if err := c.Handle(t.Context(), e); err != nil {
					t.Fatal(err)
				}
			}
			f, err := c.read(t.Context(), "s", day0.AddDate(0, 0, 3), 4)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int]counts{}
			for i, d := range f.days {
				if !d.Date.Equal(time.Date(2026, 11, 20+i, 0, 0, 0, 0, time.UTC)) {
					t.Errorf("day %d is %v", i, d.Date)
				}
				if len(d.Counts) > 0 {
					got[i] = d.Counts
				}
			}
			if diff := cmp.Diff(tt.wantDays, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("days (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantGauges, f.gauges, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("gauges (-want +got):\n%s", diff)
			}
		})
	}
}

// The overview reads the days of its window only: days before it, and a
// site whose key starts like this one's, are not in it.
func TestCountersRead(t *testing.T) {
	c := NewCounters(memory.New())
	ctx := context.Background()
	for i, e := range []event.Event{
		ev(t, "1", "s", -1, event.OrderCompleted{}), // before the window
		ev(t, "2", "s", 0, event.OrderCompleted{}),
		ev(t, "3", "s", 2, event.OrderCompleted{}),
		ev(t, "4", "s2", 1, event.OrderCompleted{}), // another site
		ev(t, "5", "s", 3, event.OrderCompleted{}),  // after today
	} {
		if err := c.Handle(ctx, e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	f, err := c.read(ctx, "s", day0.AddDate(0, 0, 2), 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, d := range f.days {
		got = append(got, d.Counts[cOrders])
	}
	if diff := cmp.Diff([]int64{1, 0, 1}, got); diff != "" {
		t.Errorf("orders by day (-want +got):\n%s", diff)
	}
}

// A return is in the complaints queue while a line's complaint is
// pending, and in the warehouse queue while a line waits for inspection.
func TestQueues(t *testing.T) {
	c := NewCounters(memory.New())
	ret := func(id string, items ...event.ReturnItem) event.ReturnChanged {
		return event.ReturnChanged{ReturnID: id, OrderExternalID: "o-" + id, Items: items}
	}
	pending := event.ReturnItem{Status: "AWAITING_RETURN", ComplaintStatus: "PENDING"}
	arrived := event.ReturnItem{Status: "AWAITING_INSPECTION"}
	steps := []struct {
		e              event.Event
		complaints, wh []string
	}{
		{ev(t, "1", "s", 0, event.ReturnCreated(ret("10", pending))), []string{"10"}, nil},
		{ev(t, "2", "s", 0, event.ReturnCreated(ret("9", event.ReturnItem{Status: "AWAITING_RETURN"}))), []string{"10"}, nil},
		{ev(t, "3", "s", 1, event.ReturnStatusChanged(ret("10", event.ReturnItem{Status: "AWAITING_INSPECTION", ComplaintStatus: "PENDING"}))), []string{"10"}, []string{"10"}},
		{ev(t, "4", "s", 1, event.ReturnStatusChanged(ret("9", arrived))), []string{"10"}, []string{"9", "10"}},
		{ev(t, "5", "s", 2, event.ReturnComplaintDecided(ret("10", event.ReturnItem{Status: "AWAITING_INSPECTION", ComplaintStatus: "APPROVED"}))), nil, []string{"9", "10"}},
		{ev(t, "6", "s", 2, event.ReturnItemsReceived(ret("10", event.ReturnItem{Status: "RETURNED", ComplaintStatus: "APPROVED"}))), nil, []string{"9"}},
	}
	ids := func(q string) []string {
		list, err := c.queue(t.Context(), "s", q, 10)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range list {
			out = append(out, e.ReturnID)
		}
		return out
	}
	for i, st := range steps {
		if err := c.Handle(t.Context(), st.e); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.complaints, ids(queueComplaints)); diff != "" {
			t.Errorf("after event %d, complaints (-want +got):\n%s", i+1, diff)
		}
		if diff := cmp.Diff(st.wh, ids(queueWarehouse)); diff != "" {
			t.Errorf("after event %d, warehouse (-want +got):\n%s", i+1, diff)
		}
	}
}

func TestCountersRefuseEventWithoutSite(t *testing.T) {
	c := NewCounters(memory.New())
	e := ev(t, "1", "s", 0, event.OrderCompleted{})
	e.Site = ""
	if err := c.Handle(t.Context(), e); err == nil {
		t.Error("an event without a site was counted")
	}
}

// TestCountersSweep: a day's counters go DaysKept after the day began,
// each site's alike, and the next day's stay.
func TestCountersSweep(t *testing.T) {
	s := memory.New()
	c := NewCounters(s)
	ctx := context.Background()
	for _, e := range []event.Event{
		ev(t, "1", "s", 0, event.OrderCompleted{}),
		ev(t, "2", "s", 0, event.OrderCompleted{}), // the same day: one record, one entry
		ev(t, "3", "s2", 0, event.OrderCompleted{}),
		ev(t, "4", "s", 1, event.OrderCompleted{}),
	} {
		if err := c.Handle(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	first := day0.Truncate(24 * time.Hour)
	if n, err := c.Sweep(ctx, first.Add(DaysKept-time.Minute), 0); err != nil || n != 0 {
		t.Fatalf("before DaysKept: swept %d, %v", n, err)
	}
	if n, err := c.Sweep(ctx, first.Add(DaysKept+time.Minute), 0); err != nil || n != 2 {
		t.Fatalf("after DaysKept: swept %d, %v; want the first day of both sites", n, err)
	}
	var left []string
	err := s.View(ctx, func(tx storage.Tx) error {
		for it, err := range days.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			left = append(left, it.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{dayKey("s", day0.AddDate(0, 0, 1))}; !slices.Equal(left, want) {
		t.Errorf("day records left: %q, want %q", left, want)
	}
}
