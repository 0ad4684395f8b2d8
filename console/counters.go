package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// ConsumerName is the name the counters are registered with in the
// outbox (Counters.Handle). It is stored with the events they applied:
// never change it.
const ConsumerName = "console"

// Counter names. A day's record holds the events of that day (UTC); the
// site's gauges hold what is true now (parcels on their way, returns in
// each status). Both are updated by the outbox consumer, one event at a
// time, so the overview reads a few records and never the areas' data.
const (
	cOrders              = "orders"
	cPricePrefix         = "price:"  // shipping price paid, by currency, in minor units
	cPricedPrefix        = "priced:" // orders with a price in that currency
	cParcelsBooked       = "parcels_booked"
	cParcelsDelivered    = "parcels_delivered"
	cExceptions          = "exceptions"
	cFailedAttempt       = "exception.failed_attempt"
	cDelayed             = "exception.delayed"
	cLost                = "exception.lost"
	cNotCollected        = "exception.not_collected"
	cReturnsCreated      = "returns_created"
	cNotificationsSent   = "notifications_sent"
	cNotificationsFailed = "notifications_failed"
	cProductPrefix       = "product:" // orders by the chosen carrier product
	cTypePrefix          = "type:"    // orders by delivery type
	cVoucherOrders       = "voucher_orders"
	cVoucherPrefix       = "voucher:" // orders by voucher code, the first maxVoucherCodes of a day; "voucher:" the others
	gInTransit           = "in_transit"
	gReturnPrefix        = "returns:" // returns by status
)

// counts are named counters.
type counts map[string]int64

var (
	days   = storage.Collection[counts]{Name: "console.days"}
	gauges = storage.Collection[counts]{Name: "console.gauges"}
	// parcels remembers, per outbound parcel, that it was counted in
	// transit and whether it has left that state: a parcel's second
	// delivered step must not count it out twice.
	parcels = storage.Collection[parcelState]{Name: "console.parcels"}
)

type parcelState struct {
	Done bool `json:"done"`
}

// queued lists the returns waiting for the merchant that the returns
// list cannot select by status: those with a complaint to decide and
// those whose parcel reached the warehouse and waits for inspection. Key:
// site, queue, return id (fixed width, so in id order).
var queued = storage.Collection[queueEntry]{Name: "console.queues"}

// The queues of queued.
const (
	queueComplaints = "complaints"
	queueWarehouse  = "warehouse"
)

// queueEntry is a return in a queue.
type queueEntry struct {
	ReturnID        string    `json:"return_id"`
	OrderExternalID string    `json:"order_external_id"`
	Since           time.Time `json:"since"`
}

// queueKey is a return's key in a queue: its id fixed width when it is a
// number (as the returns area's are).
func queueKey(site, queue, returnID string) string {
	if n, err := strconv.ParseUint(returnID, 10, 64); err == nil {
		returnID = storage.Uint64Key(n)
	}
	return storage.Key(site, queue, returnID)
}

// requeue puts the return of r into each queue it belongs in now and
// takes it out of the others.
func requeue(tx storage.Tx, site string, at time.Time, r event.ReturnChanged) error {
	in := map[string]bool{}
	for _, it := range r.Items {
		in[queueComplaints] = in[queueComplaints] || it.ComplaintStatus == "PENDING"
		in[queueWarehouse] = in[queueWarehouse] || it.Status == "AWAITING_INSPECTION"
	}
	for _, q := range []string{queueComplaints, queueWarehouse} {
		key := queueKey(site, q, r.ReturnID)
		_, err := queued.Get(tx, key)
		switch {
		case err != nil && !errors.Is(err, deliverykit.ErrNotFound):
			return err
		case err != nil && in[q]:
			if _, err := queued.Put(tx, key, queueEntry{ReturnID: r.ReturnID, OrderExternalID: r.OrderExternalID, Since: at}, storage.MustNotExist()); err != nil {
				return err
			}
		case err == nil && !in[q]:
			if err := queued.Delete(tx, key, storage.Condition{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// queue lists at most limit returns of a site's queue, in id order.
func (c *Counters) queue(ctx context.Context, site, q string, limit int) ([]queueEntry, error) {
	var out []queueEntry
	err := c.store.View(ctx, func(tx storage.Tx) error {
		for it, err := range queued.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, q), Limit: limit}) {
			if err != nil {
				return err
			}
			out = append(out, it.Value)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("console: read the %s queue: %w", q, err)
	}
	return out, nil
}

// dayKey is a site's day: days sort by date within the site.
func dayKey(site string, day time.Time) string {
	return storage.Key(site, day.UTC().Format(time.DateOnly))
}

// Counters keeps the console's per-site daily counters and gauges. Its
// Handle is an outbox consumer (wiring registers it for every event
// type): it applies each event once, by event id, in one transaction.
type Counters struct {
	store storage.Store
}

// NewCounters returns the counters kept in store.
func NewCounters(store storage.Store) *Counters { return &Counters{store: store} }

// Handle applies e to its site's counters, once.
func (c *Counters) Handle(ctx context.Context, e event.Event) error {
	if e.Site == "" {
		return deliverykit.E(deliverykit.KindInvalidArgument, "event.site: required")
	}
	err := c.store.Update(ctx, func(tx storage.Tx) error {
		done, err := outbox.Applied(tx, ConsumerName, e.ID)
		if err != nil || done {
			return err
		}
		d, g, err := c.changes(tx, e)
		if err != nil {
			return err
		}
		created, err := add(tx, days, dayKey(e.Site, e.Time), d)
		if err != nil {
			return err
		}
		if created {
			day := e.Time.UTC().Truncate(24 * time.Hour)
			if err := dayIndex.Move(tx, dayKey(e.Site, e.Time), retention.Entry{}, retention.Entry{Class: classDay, At: day}); err != nil {
				return err
			}
		}
		_, err = add(tx, gauges, e.Site, g)
		return err
	})
	if err != nil {
		return fmt.Errorf("console: count %s %s: %w", e.Type, e.ID, err)
	}
	return nil
}

// changes decides what e adds to its day's counters and the site's
// gauges; a parcel's state is read and written here because whether it
// leaves transit depends on it.
func (c *Counters) changes(tx storage.Tx, e event.Event) (day, gauge counts, err error) {
	day, gauge = counts{}, counts{}
	switch e.Type {
	case event.TypeOrderCompleted:
		o, err := event.Decode[event.OrderCompleted](e)
		if err != nil {
			return nil, nil, err
		}
		day[cOrders]++
		if o.Currency != "" {
			day[cPricePrefix+o.Currency] += o.ShippingPrice
			day[cPricedPrefix+o.Currency]++
		}
		if o.ProductRef != "" {
			day[cProductPrefix+o.ProductRef]++
		}
		if o.DeliveryType != "" {
			day[cTypePrefix+o.DeliveryType]++
		}
		if len(o.Cart.Vouchers) > 0 {
			day[cVoucherOrders]++
			for _, code := range o.Cart.Vouchers {
				if code != "" {
					day[cVoucherPrefix+strings.ToLower(code)]++
				}
			}
		}
	case event.TypeParcelBooked:
		p, err := event.Decode[event.ParcelBooked](e)
		if err != nil {
			return nil, nil, err
		}
		if p.Direction == event.DirectionReturn {
			break
		}
		key := storage.Key(e.Site, p.TrackingNumber)
		if _, err := parcels.Get(tx, key); err == nil {
			break // booked again: counted already
		} else if !errors.Is(err, deliverykit.ErrNotFound) {
			return nil, nil, err
		}
		if _, err := parcels.Put(tx, key, parcelState{}, storage.MustNotExist()); err != nil {
			return nil, nil, err
		}
		day[cParcelsBooked]++
		gauge[gInTransit]++
	case event.TypeParcelChanged:
		p, err := event.Decode[event.ParcelChanged](e)
		if err != nil {
			return nil, nil, err
		}
		if p.Direction == event.DirectionReturn {
			break
		}
		if name := exception(p.Step, p.Alert); name != "" {
			day[name]++
			day[cExceptions]++
		}
		if !leavesTransit(p.Step) {
			break
		}
		key := storage.Key(e.Site, p.TrackingNumber)
		it, err := parcels.Get(tx, key)
		if errors.Is(err, deliverykit.ErrNotFound) {
			break // booked before the counters were: never counted in
		}
		if err != nil {
			return nil, nil, err
		}
		if it.Value.Done {
			break
		}
		if _, err := parcels.Put(tx, key, parcelState{Done: true}, storage.VersionIs(it.Version)); err != nil {
			return nil, nil, err
		}
		gauge[gInTransit]--
		if p.Step != "STEP_TERMINATED" && p.Step != "STEP_SENT_BACK" {
			day[cParcelsDelivered]++
		}
	case event.TypeNotificationSent:
		day[cNotificationsSent]++
	case event.TypeNotificationFailed:
		day[cNotificationsFailed]++
	case event.TypeReturnCreated, event.TypeReturnStatusChanged, event.TypeReturnItemsReceived,
		event.TypeRefundChanged, event.TypeReturnComplaintDecided:
		// The five return events share one payload shape.
		var r event.ReturnChanged
		if err := json.Unmarshal(e.Payload, &r); err != nil {
			return nil, nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "event.payload: %v", err)
		}
		if e.Type == event.TypeReturnCreated {
			day[cReturnsCreated]++
		}
		if r.ReturnID != "" {
			if err := requeue(tx, e.Site, e.Time, r); err != nil {
				return nil, nil, err
			}
		}
		if r.Status != r.PreviousStatus {
			if r.PreviousStatus != "" {
				gauge[gReturnPrefix+r.PreviousStatus]--
			}
			gauge[gReturnPrefix+r.Status]++
		}
	}
	return day, gauge, nil
}

// exception names the exception a parcel change is, if any: a failed
// delivery attempt, a delay, a parcel terminated by the carrier (lost) or
// sent back (not collected).
func exception(step, alert string) string {
	switch {
	case alert == "ALERT_DELIVERY_ATTEMPT_FAILED":
		return cFailedAttempt
	case alert == "ALERT_DELIVERY_DELAYED" || alert == "ALERT_DELIVERY_DELAYED_FROM_CARRIER" || alert == "ALERT_SUBMISSION_DELAYED":
		return cDelayed
	case step == "STEP_TERMINATED":
		return cLost
	case step == "STEP_SENT_BACK":
		return cNotCollected
	}
	return ""
}

// leavesTransit reports whether an outbound parcel with step is no
// longer on its way.
func leavesTransit(step string) bool {
	switch step {
	case "STEP_DELIVERED_TO_CONSUMER", "STEP_DELIVERED_TO_PICKUP_POINT", "STEP_TERMINATED", "STEP_SENT_BACK":
		return true
	}
	return false
}

// add adds delta to the counters at key; created says the record is new.
func add(tx storage.Tx, coll storage.Collection[counts], key string, delta counts) (created bool, err error) {
	if len(delta) == 0 {
		return false, nil
	}
	cur := counts{}
	cond := storage.MustNotExist()
	it, err := coll.Get(tx, key)
	switch {
	case err == nil:
		cur, cond = it.Value, storage.VersionIs(it.Version)
		if cur == nil {
			cur = counts{}
		}
	case !errors.Is(err, deliverykit.ErrNotFound):
		return false, err
	}
	for k, v := range delta {
		cur[boundedKey(cur, k)] += v
	}
	_, err = coll.Put(tx, key, cur, cond)
	return cond.IsMustNotExist(), err
}

// DaysKept is how long a day's counters are kept: the pages show 30
// days; a year and a month leave room for comparing with last year.
const DaysKept = 400 * 24 * time.Hour

// dayIndex holds a time entry per day record, written when the record is
// made, so the sweep reads only the days past DaysKept.
var dayIndex = retention.Index{Name: "console.days.expiry"}

const classDay = "day"

// Sweep deletes, at most limit (≤ 0: no limit), the day records older
// than DaysKept at now, and returns how many it deleted.
func (c *Counters) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	n, err := dayIndex.Sweep(ctx, c.store, classDay, now.Add(-DaysKept), limit, func(tx storage.Tx, k string, _ retention.Entry) (bool, error) {
		it, err := days.Get(tx, k)
		if errors.Is(err, deliverykit.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return true, days.Delete(tx, k, storage.VersionIs(it.Version))
	})
	if err != nil {
		return n, fmt.Errorf("console: sweeping day counters: %w", err)
	}
	return n, nil
}

// maxVoucherCodes bounds the voucher codes a day's record counts by name:
// codes are the shop's to choose, so a day of many distinct codes counts
// the ones past the first under "voucher:" (others), and the record
// stays small.
const maxVoucherCodes = 20

// boundedKey is the counter k adds to in cur: k, unless it is a voucher
// code new to a record that already names maxVoucherCodes of them.
func boundedKey(cur counts, k string) string {
	if !strings.HasPrefix(k, cVoucherPrefix) || k == cVoucherPrefix {
		return k
	}
	if _, ok := cur[k]; ok {
		return k
	}
	n := 0
	for name := range cur {
		if strings.HasPrefix(name, cVoucherPrefix) && name != cVoucherPrefix {
			n++
		}
	}
	if n >= maxVoucherCodes {
		return cVoucherPrefix
	}
	return k
}

// Day is one day's counters.
type Day struct {
	Date   time.Time
	Counts map[string]int64
}

// figures are what the overview shows of one site: the last days,
// oldest first (a day without events is zeros), and the gauges.
type figures struct {
	days   []Day
	gauges counts
}

// read returns the site's last n days up to today and its gauges: n+1
// records at most, whatever the site's history.
func (c *Counters) read(ctx context.Context, site string, today time.Time, n int) (figures, error) {
	first := today.UTC().Truncate(24*time.Hour).AddDate(0, 0, -(n - 1))
	f := figures{days: make([]Day, n), gauges: counts{}}
	for i := range f.days {
		f.days[i] = Day{Date: first.AddDate(0, 0, i), Counts: counts{}}
	}
	err := c.store.View(ctx, func(tx storage.Tx) error {
		r := storage.Range{Prefix: storage.KeyPrefix(site), After: dayKey(site, first.AddDate(0, 0, -1)), Limit: n}
		for it, err := range days.Scan(tx, r) {
			if err != nil {
				return err
			}
			d, err := time.Parse(time.DateOnly, it.Key[len(storage.KeyPrefix(site)):])
			if err != nil {
				continue
			}
			if i := int(d.Sub(first) / (24 * time.Hour)); i >= 0 && i < n {
				f.days[i].Counts = it.Value
			}
		}
		g, err := gauges.Get(tx, site)
		if err == nil {
			f.gauges = g.Value
		} else if !errors.Is(err, deliverykit.ErrNotFound) {
			return err
		}
		return nil
	})
	if err != nil {
		return figures{}, fmt.Errorf("console: read counters of %s: %w", site, err)
	}
	return f, nil
}
