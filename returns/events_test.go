package returns

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// emittedEvent is an outbox event of the returns area as the tests
// compare it.
type emittedEvent struct {
	Type          event.Type
	Site, Subject string
	Time          time.Time
	Payload       event.ReturnChanged
}

// events decodes what the service wrote to the outbox, in order.
func (f *fixture) events(t *testing.T) []emittedEvent {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []emittedEvent
	for _, ev := range evs {
		var p event.ReturnChanged
		switch ev.Type {
		case event.TypeReturnCreated, event.TypeReturnStatusChanged, event.TypeReturnItemsReceived, event.TypeRefundChanged,
			event.TypeReturnComplaintDecided:
			// Each returns event's payload is a ReturnChanged under
			// the name of its type.
			if err := json.Unmarshal(ev.Payload, &p); err != nil {
				t.Fatalf("event %s: %v", ev.ID, err)
			}
		default:
			t.Fatalf("unexpected event type %s", ev.Type)
		}
		out = append(out, emittedEvent{Type: ev.Type, Site: ev.Site, Subject: ev.Subject, Time: ev.Time, Payload: p})
	}
	return out
}

func mustDecode(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReturnEvents: every change of a return writes its events, in order,
// in the transaction that stores it, each with the return as it is after
// the change; a refused call writes none. Every case runs on a store
// whose transactions all run twice (the first rolled back) as well: the
// events are the same, written once.
func TestReturnEvents(t *testing.T) {
	// at(n) is the service's time n hours after t0: each step of a case
	// advances the clock by an hour first.
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Hour).Truncate(time.Microsecond) }
	ptr := func(t time.Time) *time.Time { return &t }
	const (
		url1 = "http://127.0.0.1:8080/returns/customer/return/rt_000001"
		url2 = "http://127.0.0.1:8080/returns/customer/return/rt_000002"
		url3 = "http://127.0.0.1:8080/returns/customer/return/rt_000003"
	)
	const (
		created       = event.TypeReturnCreated
		statusChanged = event.TypeReturnStatusChanged
		itemsReceived = event.TypeReturnItemsReceived
		refundChanged = event.TypeRefundChanged
	)
	jacket := func(status ItemStatus, received *time.Time) event.ReturnItem {
		return event.ReturnItem{LineItemID: "L1", SKU: "JACKET-M", Quantity: 1, Status: string(status), ReceivedAt: received}
	}
	socks := func(status ItemStatus, received *time.Time) event.ReturnItem {
		return event.ReturnItem{LineItemID: "L2", SKU: "SOCKS", Quantity: 3, Status: string(status), ReceivedAt: received}
	}
	// ev is an event of return id of order A-1.
	ev := func(typ event.Type, id string, step int, status, prev ReturnStatus, url string, refund *event.Refund, items ...event.ReturnItem) emittedEvent {
		return emittedEvent{Type: typ, Site: "site-a", Subject: id, Time: at(step), Payload: event.ReturnChanged{
			ReturnID: id, OrderExternalID: "A-1", Status: string(status), PreviousStatus: string(prev), Currency: "SEK",
			Items: items, Refund: refund, StatusURL: url, ChangedAt: at(step),
		}}
	}
	both := []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}, {ForeignLineItemID: "L2", Quantity: 3}}
	allApproved := []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}, {SKU: "SOCKS", Quantity: 3, Approved: true}}
	// The refund of both lines approved: 1299.90 + 3 × 0.10 − 59.50 costs.
	const refundAmount = 124070

	type step func(f *fixture) error
	create := func(exchange bool, items ...CustomerReturnItemInput) step {
		return func(f *fixture) error {
			_, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com", Items: items, Exchange: exchange})
			return err
		}
	}
	report := func(in ReturnedItemsInput) step {
		return func(f *fixture) error { _, err := f.svc.ReportReturnedItems(f.ctx, "site-a", in); return err }
	}
	inTransit := func(id uint64, ref string) step {
		return func(f *fixture) error {
			_, err := f.svc.MarkInTransit(f.ctx, "site-a", id, ShipmentInput{Carrier: "north", TrackingReference: ref})
			return err
		}
	}
	refunded := func(id uint64) step {
		return func(f *fixture) error { _, err := f.svc.MarkRefunded(f.ctx, "site-a", id); return err }
	}

	tests := []struct {
		name  string
		steps []step
		// fails names the steps that are refused (by index).
		fails map[int]deliverykit.Kind
		want  []emittedEvent
	}{
		{
			name:  "created",
			steps: []step{create(false, both[0])},
			want:  []emittedEvent{ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil))},
		},
		{
			name:  "in transit, then items received: refund created, then refunded",
			steps: []step{create(false, both...), inTransit(1, "RT-1"), report(ReturnedItemsInput{TrackingReference: "RT-1", Items: allApproved}), refunded(1)},
			want: []emittedEvent{
				ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil), socks(ItemAwaitingReturn, nil)),
				ev(statusChanged, "1", 2, StatusInTransit, StatusAwaitingReturn, url1, nil, jacket(ItemAwaitingReturn, nil), socks(ItemAwaitingReturn, nil)),
				ev(itemsReceived, "1", 3, StatusAwaitingRefund, StatusInTransit, url1, &event.Refund{Status: "AWAITING_REFUND", Amount: refundAmount, ID: "1", TransactionStatus: "AWAITING_EXTERNAL_REFUND"},
					jacket(ItemReturned, ptr(at(3))), socks(ItemReturned, ptr(at(3)))),
				ev(statusChanged, "1", 3, StatusAwaitingRefund, StatusInTransit, url1, &event.Refund{Status: "AWAITING_REFUND", Amount: refundAmount, ID: "1", TransactionStatus: "AWAITING_EXTERNAL_REFUND"},
					jacket(ItemReturned, ptr(at(3))), socks(ItemReturned, ptr(at(3)))),
				ev(refundChanged, "1", 3, StatusAwaitingRefund, StatusInTransit, url1, &event.Refund{Status: "AWAITING_REFUND", Amount: refundAmount, ID: "1", TransactionStatus: "AWAITING_EXTERNAL_REFUND"},
					jacket(ItemReturned, ptr(at(3))), socks(ItemReturned, ptr(at(3)))),
				ev(refundChanged, "1", 4, StatusCompleted, StatusAwaitingRefund, url1, &event.Refund{Status: "REFUNDED", Amount: refundAmount, ID: "1", TransactionStatus: "REFUNDED"},
					jacket(ItemReturned, ptr(at(3))), socks(ItemReturned, ptr(at(3)))),
				ev(statusChanged, "1", 4, StatusCompleted, StatusAwaitingRefund, url1, &event.Refund{Status: "REFUNDED", Amount: refundAmount, ID: "1", TransactionStatus: "REFUNDED"},
					jacket(ItemReturned, ptr(at(3))), socks(ItemReturned, ptr(at(3)))),
			},
		},
		{
			name: "some units received: items only, the status stays",
			steps: []step{create(false, both...),
				report(ReturnedItemsInput{ReturnID: 1, Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 2, Approved: true}}})},
			want: []emittedEvent{
				ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil), socks(ItemAwaitingReturn, nil)),
				ev(itemsReceived, "1", 2, StatusAwaitingReturn, StatusAwaitingReturn, url1, nil, jacket(ItemAwaitingReturn, nil), socks(ItemAwaitingReturn, ptr(at(2)))),
			},
		},
		{
			name: "every unit declined: completed without a refund",
			steps: []step{create(false, both[0]),
				report(ReturnedItemsInput{ReturnID: 1, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Comment: "worn"}}})},
			want: []emittedEvent{
				ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil)),
				ev(itemsReceived, "1", 2, StatusCompleted, StatusAwaitingReturn, url1, nil, jacket(ItemDeclined, ptr(at(2)))),
				ev(statusChanged, "1", 2, StatusCompleted, StatusAwaitingReturn, url1, nil, jacket(ItemDeclined, ptr(at(2)))),
			},
		},
		{
			name: "exchange: awaiting the exchange, then completed",
			steps: []step{create(true, both[0]),
				report(ReturnedItemsInput{ForeignOrderID: "A-1", Items: allApproved[:1]}),
				func(f *fixture) error { _, err := f.svc.CompleteExchange(f.ctx, "site-a", 1); return err }},
			want: []emittedEvent{
				ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil)),
				ev(itemsReceived, "1", 2, StatusAwaitingExchange, StatusAwaitingReturn, url1, nil, jacket(ItemReturned, ptr(at(2)))),
				ev(statusChanged, "1", 2, StatusAwaitingExchange, StatusAwaitingReturn, url1, nil, jacket(ItemReturned, ptr(at(2)))),
				ev(statusChanged, "1", 3, StatusCompleted, StatusAwaitingExchange, url1, nil, jacket(ItemReturned, ptr(at(2)))),
			},
		},
		{
			name: "a report by order: events of the return that got units only",
			steps: []step{create(false, both[0]), create(false, both[1]),
				report(ReturnedItemsInput{ForeignOrderID: "A-1", Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 3}}})},
			want: []emittedEvent{
				ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil)),
				ev(created, "2", 2, StatusAwaitingReturn, "", url2, nil, socks(ItemAwaitingReturn, nil)),
				ev(itemsReceived, "2", 3, StatusCompleted, StatusAwaitingReturn, url2, nil, socks(ItemDeclined, ptr(at(3)))),
				ev(statusChanged, "2", 3, StatusCompleted, StatusAwaitingReturn, url2, nil, socks(ItemDeclined, ptr(at(3)))),
			},
		},
		{
			name: "refused calls write nothing",
			steps: []step{
				create(false, CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 3}), // more than bought
				func(f *fixture) error { // wrong e-mail
					_, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "other@example.com", Items: both[:1]})
					return err
				},
				create(false, both[0]),
				report(ReturnedItemsInput{ReturnID: 1, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 2, Approved: true}}}), // one unit on the return
				report(ReturnedItemsInput{ReturnID: 1, Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 1}}}),                    // not on the return
				func(f *fixture) error { _, err := f.svc.CompleteExchange(f.ctx, "site-a", 1); return err },                         // not an exchange
				refunded(1), // no refund yet
				inTransit(1, "RT-1"),
				inTransit(1, "RT-1"), // in transit already
			},
			fails: map[int]deliverykit.Kind{
				0: deliverykit.KindInvalidArgument, 1: deliverykit.KindNotFound, 3: deliverykit.KindFailedPrecondition,
				4: deliverykit.KindInvalidArgument, 5: deliverykit.KindFailedPrecondition, 6: deliverykit.KindNotFound, 8: deliverykit.KindFailedPrecondition,
			},
			// The refused creates drew tokens 1 and 2.
			want: []emittedEvent{
				ev(created, "1", 3, StatusAwaitingReturn, "", url3, nil, jacket(ItemAwaitingReturn, nil)),
				ev(statusChanged, "1", 8, StatusInTransit, StatusAwaitingReturn, url3, nil, jacket(ItemAwaitingReturn, nil)),
			},
		},
		{
			name:  "refunded twice: the second is refused and writes nothing",
			steps: []step{create(false, both...), report(ReturnedItemsInput{ReturnID: 1, Items: allApproved}), refunded(1), refunded(1)},
			fails: map[int]deliverykit.Kind{3: deliverykit.KindFailedPrecondition},
			want: []emittedEvent{
				ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil), socks(ItemAwaitingReturn, nil)),
				ev(itemsReceived, "1", 2, StatusAwaitingRefund, StatusAwaitingReturn, url1, &event.Refund{Status: "AWAITING_REFUND", Amount: refundAmount, ID: "1", TransactionStatus: "AWAITING_EXTERNAL_REFUND"},
					jacket(ItemReturned, ptr(at(2))), socks(ItemReturned, ptr(at(2)))),
				ev(statusChanged, "1", 2, StatusAwaitingRefund, StatusAwaitingReturn, url1, &event.Refund{Status: "AWAITING_REFUND", Amount: refundAmount, ID: "1", TransactionStatus: "AWAITING_EXTERNAL_REFUND"},
					jacket(ItemReturned, ptr(at(2))), socks(ItemReturned, ptr(at(2)))),
				ev(refundChanged, "1", 2, StatusAwaitingRefund, StatusAwaitingReturn, url1, &event.Refund{Status: "AWAITING_REFUND", Amount: refundAmount, ID: "1", TransactionStatus: "AWAITING_EXTERNAL_REFUND"},
					jacket(ItemReturned, ptr(at(2))), socks(ItemReturned, ptr(at(2)))),
				ev(refundChanged, "1", 3, StatusCompleted, StatusAwaitingRefund, url1, &event.Refund{Status: "REFUNDED", Amount: refundAmount, ID: "1", TransactionStatus: "REFUNDED"},
					jacket(ItemReturned, ptr(at(2))), socks(ItemReturned, ptr(at(2)))),
				ev(statusChanged, "1", 3, StatusCompleted, StatusAwaitingRefund, url1, &event.Refund{Status: "REFUNDED", Amount: refundAmount, ID: "1", TransactionStatus: "REFUNDED"},
					jacket(ItemReturned, ptr(at(2))), socks(ItemReturned, ptr(at(2)))),
			},
		},
		{
			name: "an expired status link is left out; a renewed one is in",
			steps: []step{create(false, both[0]),
				func(f *fixture) error { f.clock.Advance(DefaultStatusLinkLifetime); return nil },
				inTransit(1, "RT-1"),
				func(f *fixture) error { _, err := f.svc.RenewStatusLink(f.ctx, "site-a", 1); return err },
				report(ReturnedItemsInput{ReturnID: 1, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1}}}),
			},
			want: func() []emittedEvent {
				later := func(step int) time.Time { return at(step).Add(DefaultStatusLinkLifetime) }
				moved := ev(statusChanged, "1", 3, StatusInTransit, StatusAwaitingReturn, "", nil, jacket(ItemAwaitingReturn, nil))
				moved.Time, moved.Payload.ChangedAt = later(3), later(3)
				received := ev(itemsReceived, "1", 5, StatusCompleted, StatusInTransit, url2, nil, jacket(ItemDeclined, ptr(later(5))))
				received.Time, received.Payload.ChangedAt = later(5), later(5)
				completed := ev(statusChanged, "1", 5, StatusCompleted, StatusInTransit, url2, nil, jacket(ItemDeclined, ptr(later(5))))
				completed.Time, completed.Payload.ChangedAt = later(5), later(5)
				return []emittedEvent{ev(created, "1", 1, StatusAwaitingReturn, "", url1, nil, jacket(ItemAwaitingReturn, nil)), moved, received, completed}
			}(),
		},
	}
	stores := []struct {
		name string
		open func() storage.Store
	}{
		{"memory", func() storage.Store { return memory.New() }},
		{"retried transactions", func() storage.Store { return storagetest.Retrying(memory.New()) }},
	}
	for _, st := range stores {
		for _, tc := range tests {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				f := newFixtureOn(t, st.open())
				f.importOrder(t, "site-a", "A-1") // at t0: no events
				for i, s := range tc.steps {
					f.clock.Advance(time.Hour)
					err := s(f)
					want, refused := tc.fails[i]
					switch {
					case refused && (err == nil || deliverykit.KindOf(err) != want):
						t.Fatalf("step %d: error %v, want kind %v", i, err, want)
					case !refused && err != nil:
						t.Fatalf("step %d: %v", i, err)
					}
				}
				if diff := cmp.Diff(tc.want, f.events(t)); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}
