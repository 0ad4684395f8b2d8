package notify

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Defaults of Options.
const (
	DefaultRetryBase    = time.Minute
	DefaultRetryMax     = time.Hour
	DefaultClaimTimeout = 5 * time.Minute
	DefaultBatch        = 100
	// DefaultMaxAttempts sends a notification at most ten times: with the
	// default backoff, its last attempt is about four hours after its
	// first.
	DefaultMaxAttempts = 10
)

// Options configures a Service.
type Options struct {
	// Senders sends each channel. A channel without a sender gets no
	// notifications. Default: a LogSender (on Logger) for EMAIL and SMS.
	Senders map[Channel]Sender
	// Logger receives the default senders' lines. Default: slog.Default().
	Logger *slog.Logger
	// Rules map events to notifications. Default: DefaultRules().
	Rules []Rule
	// RetryBase is the wait after the first failed send; it doubles with
	// each further failure up to RetryMax. Defaults DefaultRetryBase,
	// DefaultRetryMax.
	RetryBase, RetryMax time.Duration
	// ClaimTimeout is how long a notification being sent is hidden from
	// other dispatchers; after it, an unfinished send is retried.
	// Default DefaultClaimTimeout.
	ClaimTimeout time.Duration
	// Batch is the most notifications one Dispatch sends (and the most
	// parcels one RemindPickups reminds of). Default DefaultBatch.
	Batch int
	// MaxAttempts is how many times a notification is sent before it
	// stays FAILED for good (until retriggered). Default
	// DefaultMaxAttempts.
	MaxAttempts int
	// PickupReminder is how long a parcel of a site waits at a pickup
	// point before RemindPickups reminds its receiver (one
	// PICKUP_REMINDER); 0 or less: never. Default: DefaultPickupReminderDelay
	// for every site; CatalogPickupReminders reads the catalogs' setting.
	PickupReminder func(site string) time.Duration
	// Retention says how long a settled notification is kept
	// (Retention.Tracking after it settled; see Sweep). Default: every
	// default of retention.Policy.
	Retention retention.Policy
	// Clock and IDs default to the system clock and RandomIDs.
	Clock deliverykit.Clock
	IDs   deliverykit.IDSource
}

// Service schedules, sends, lists and retriggers notifications. It is safe
// for concurrent use and starts no goroutines: the caller runs Step
// periodically (wiring.Services.Run does).
type Service struct {
	store storage.Store
	opts  Options
	// backfilled: the time index of notifications stored before it
	// existed is built.
	backfilled retention.Once
}

// New returns a Service on store.
func New(store storage.Store, opts Options) (*Service, error) {
	if store == nil {
		return nil, errors.New("notify: store is required")
	}
	if opts.Senders == nil {
		ls := NewLogSender(opts.Logger)
		opts.Senders = map[Channel]Sender{ChannelEmail: ls, ChannelSMS: ls}
	}
	if opts.Rules == nil {
		opts.Rules = DefaultRules()
	}
	opts.RetryBase = queue.Or(opts.RetryBase, DefaultRetryBase)
	opts.RetryMax = queue.Or(opts.RetryMax, DefaultRetryMax)
	opts.ClaimTimeout = queue.Or(opts.ClaimTimeout, DefaultClaimTimeout)
	opts.Batch = queue.Or(opts.Batch, DefaultBatch)
	opts.MaxAttempts = queue.Or(opts.MaxAttempts, DefaultMaxAttempts)
	if opts.PickupReminder == nil {
		opts.PickupReminder = func(string) time.Duration { return DefaultPickupReminderDelay }
	}
	opts.Clock = cmp.Or[deliverykit.Clock](opts.Clock, deliverykit.SystemClock{})
	opts.IDs = cmp.Or[deliverykit.IDSource](opts.IDs, deliverykit.RandomIDs{})
	return &Service{store: store, opts: opts}, nil
}

// record is a stored notification.
type record struct {
	ID             string  `json:"id"`
	Site           string  `json:"site"`
	Status         Status  `json:"status"`
	Name           Name    `json:"name"`
	Channel        Channel `json:"channel"`
	Origin         Origin  `json:"origin"`
	TrackingNumber string  `json:"tracking_number"`
	ExternalID     string  `json:"external_id"`
	TosID          string  `json:"tos_id,omitempty"`
	Recipient      string  `json:"recipient,omitempty"`
	ReceiverName   string  `json:"receiver_name,omitempty"`
	TrackingLink   string  `json:"tracking_link,omitempty"`
	// Locale is the order's locale, the language of the message.
	Locale      string    `json:"locale,omitempty"`
	ScheduledAt time.Time `json:"scheduled_at"`
	TriggeredAt time.Time `json:"triggered_at,omitzero"`
	// NextAttempt is when Dispatch next looks at it; its due-index key.
	NextAttempt time.Time `json:"next_attempt,omitzero"`
	Attempts    int       `json:"attempts,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	// RetriggerOf is the id of the notification a retrigger copies.
	RetriggerOf string `json:"retrigger_of,omitempty"`
	// CauseAt is the time of the parcel event that made it (the arrival
	// at the pickup point for a reminder): a later step that moves the
	// parcel on cancels it while it is open. Zero for retriggers and for
	// notifications stored before it was kept.
	CauseAt time.Time `json:"cause_at,omitzero"`
	// SettledAt is when it was sent, failed for good or was cancelled:
	// where its retention counts from (retention.go).
	SettledAt time.Time `json:"settled_at,omitzero"`
}

func (r *record) wire() Notification {
	n := Notification{ID: r.ID, Status: r.Status, Name: r.Name, Channel: r.Channel,
		TrackingNumber: r.TrackingNumber, Origin: r.Origin, ScheduledAt: formatTime(r.ScheduledAt)}
	if !r.TriggeredAt.IsZero() {
		n.TriggeredAt = formatTime(r.TriggeredAt)
	}
	return n
}

// open reports whether the notification may still be sent: PENDING, or
// FAILED with an attempt left (a FAILED one without a next attempt has
// used them all).
func (r *record) open() bool {
	return r.Status == StatusPending || r.Status == StatusFailed && !r.NextAttempt.IsZero()
}

type marker struct{}

type dedupRecord struct {
	ID string `json:"id"`
}

var (
	notifications = storage.Collection[record]{Name: "notify.notifications"}
	byOrder       = storage.Collection[marker]{Name: "notify.by_order"}
	due           = queue.NewIndex[marker]("notify.due")
	dedup         = storage.Collection[dedupRecord]{Name: "notify.dedup"}
	// byParcel lists notifications by tracking number (site, tracking
	// number, id), for GET /notifications?tracking_number=.
	byParcel = storage.Collection[marker]{Name: "notify.by_parcel"}
	// parcelStates hold what notify knows of a parcel's progress (site,
	// external id, tracking number).
	parcelStates = storage.Collection[parcelState]{Name: "notify.parcels"}
)

// parcelState is a parcel's progress as notify needs it.
type parcelState struct {
	// MovedOnAt is the time of the latest step whose rule supersedes
	// (Rule.Supersedes): notifications caused before it are moot.
	MovedOnAt time.Time `json:"moved_on_at"`
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func dueKey(r *record) string { return queue.Key(r.NextAttempt, r.Site, r.ID) }

// sends is the queue of open notifications: an entry in due at their next
// attempt, by site and id.
var sends = queue.Queue[record, marker]{Items: notifications, Index: due, Slot: func(r *record) queue.Slot[marker] {
	k := storage.Key(r.Site, r.ID)
	return queue.Slot[marker]{Key: k, ID: k, Next: &r.NextAttempt}
}}

// queue returns the queue of sends with the Service's policy: a claim
// holds for ClaimTimeout, retries back off without jitter (a shopper's
// notification is due when the doc's table says).
func (s *Service) queue() *queue.Queue[record, marker] {
	q := sends
	q.Policy = queue.Policy{Lease: s.opts.ClaimTimeout, RetryBase: s.opts.RetryBase, RetryMax: s.opts.RetryMax,
		MaxAttempts: s.opts.MaxAttempts, Jitter: func() float64 { return 0 }}
	return &q
}

// putDue stores r (version cond) and moves its due-index entry from old
// (if any) to its NextAttempt when open. A notification that is no longer
// open settles at now: it gets its time index entry (retention.go).
func putDue(tx storage.Tx, r *record, oldDue string, now time.Time, cond storage.Condition) (uint64, error) {
	if err := settle(tx, r, now); err != nil {
		return 0, err
	}
	if oldDue != "" {
		if err := due.Collection.Delete(tx, oldDue, storage.AnyVersion); err != nil {
			return 0, err
		}
	}
	if r.open() {
		if err := sends.Schedule(tx, r, r.NextAttempt); err != nil {
			return 0, err
		}
	}
	return notifications.Put(tx, storage.Key(r.Site, r.ID), *r, cond)
}

// recipient returns the address of ev on the channel, and whether the
// channel can reach the receiver.
func recipient(c Channel, ev *Event) (string, bool) {
	switch c {
	case ChannelEmail:
		return ev.Email, ev.Email != ""
	case ChannelSMS:
		return ev.Phone, ev.Phone != ""
	}
	return "", true
}

func (s *Service) channels() []Channel { return slices.Sorted(maps.Keys(s.opts.Senders)) }

// Observe applies the rules to a parcel event: it cancels what the event
// makes pointless and schedules the notifications it calls for, PENDING
// with scheduled_at = event time + delay. A step whose rule supersedes
// (Rule.Supersedes) cancels the parcel's open notifications caused by
// earlier events, and the notifications of an event older than such a
// step are made CANCELLED: the parcel moved on before they were sent. A
// step at a pickup point starts the parcel's wait for a pickup reminder
// (RemindPickups), any later step ends it. The same event observed twice
// makes its notifications once. Sending happens in Dispatch.
func (s *Service) Observe(ctx context.Context, ev Event) error {
	if ev.Site == "" || ev.ExternalID == "" {
		return deliverykit.E(deliverykit.KindInvalidArgument, "notify: event without site or external id")
	}
	var made []record
	var cancels []Name
	supersedes := false
	for _, rule := range s.opts.Rules {
		if rule.Trigger != ev.Trigger {
			continue
		}
		cancels = append(cancels, rule.Cancels...)
		supersedes = supersedes || rule.Supersedes
		if rule.Name == "" {
			continue
		}
		made = append(made, s.records(&ev, rule.Name, ev.Time.Add(rule.Delay).UTC())...)
	}
	if len(made) == 0 && len(cancels) == 0 && !supersedes {
		// A step without rules matters only to a parcel waiting at a
		// pickup point: a read, not a write, for every other.
		if waits, err := s.waits(ctx, &ev); err != nil || !waits {
			return err
		}
	}
	return s.store.Update(ctx, func(tx storage.Tx) error {
		if len(cancels) > 0 {
			if err := s.cancel(tx, ev.Site, ev.ExternalID, ev.TrackingNumber, cancels); err != nil {
				return err
			}
		}
		if supersedes && ev.TrackingNumber != "" {
			if err := s.movedOn(tx, &ev); err != nil {
				return err
			}
		}
		if err := s.notePickup(tx, &ev); err != nil {
			return err
		}
		return s.store1(tx, &ev, made)
	})
}

// records are the notifications named name of ev, one per channel that
// can reach the receiver, PENDING and scheduled at at. It draws their ids:
// call it before a transaction, never in one.
func (s *Service) records(ev *Event, name Name, at time.Time) []record {
	var out []record
	for _, c := range s.channels() {
		to, ok := recipient(c, ev)
		if !ok {
			continue
		}
		out = append(out, record{
			ID: s.opts.IDs.NewID("ntf_"), Site: ev.Site, Status: StatusPending, Name: name, Channel: c,
			Origin: OriginSystem, TrackingNumber: ev.TrackingNumber, ExternalID: ev.ExternalID, TosID: ev.TosID,
			Recipient: to, ReceiverName: ev.ReceiverName, TrackingLink: ev.TrackingLink, Locale: ev.Locale,
			ScheduledAt: at, NextAttempt: at, CauseAt: ev.Time.UTC(),
		})
	}
	return out
}

// store1 stores the notifications ev made, once per (parcel, name,
// channel, event time): CANCELLED when the parcel moved on after ev.
func (s *Service) store1(tx storage.Tx, ev *Event, recs []record) error {
	var moved time.Time
	if ev.TrackingNumber != "" {
		st, err := parcelStates.Get(tx, storage.Key(ev.Site, ev.ExternalID, ev.TrackingNumber))
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		moved = st.Value.MovedOnAt
	}
	for i := range recs {
		r := recs[i]
		dk := storage.Key(r.Site, r.ExternalID, r.TrackingNumber, string(r.Name), string(r.Channel), queue.TimeKey(ev.Time))
		if _, err := dedup.Get(tx, dk); err == nil {
			continue
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if r.CauseAt.Before(moved) {
			r.Status = StatusCancelled
		}
		if _, err := dedup.Put(tx, dk, dedupRecord{ID: r.ID}, storage.MustNotExist()); err != nil {
			return err
		}
		if err := insert(tx, &r, s.opts.Clock.Now().UTC()); err != nil {
			return err
		}
	}
	return nil
}

// insert stores a new notification, listed under its order and its
// parcel (putDue at now).
func insert(tx storage.Tx, r *record, now time.Time) error {
	if _, err := byOrder.Put(tx, storage.Key(r.Site, r.ExternalID, r.ID), marker{}, storage.MustNotExist()); err != nil {
		return err
	}
	if r.TrackingNumber != "" {
		if _, err := byParcel.Put(tx, storage.Key(r.Site, r.TrackingNumber, r.ID), marker{}, storage.MustNotExist()); err != nil {
			return err
		}
	}
	_, err := putDue(tx, r, "", now, storage.MustNotExist())
	return err
}

// movedOn records that the parcel of ev moved on at ev.Time and cancels
// its open notifications caused before then.
func (s *Service) movedOn(tx storage.Tx, ev *Event) error {
	key := storage.Key(ev.Site, ev.ExternalID, ev.TrackingNumber)
	st, err := parcelStates.Get(tx, key)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	if !ev.Time.After(st.Value.MovedOnAt) {
		return nil
	}
	if _, err := parcelStates.Put(tx, key, parcelState{MovedOnAt: ev.Time.UTC()}, storage.AnyVersion); err != nil {
		return err
	}
	if err := expiry.Move(tx, key, parcelEntry(st.Value.MovedOnAt), parcelEntry(ev.Time)); err != nil {
		return err
	}
	return s.cancelWhere(tx, ev.Site, ev.ExternalID, func(r *record) bool {
		return r.TrackingNumber == ev.TrackingNumber && !r.CauseAt.IsZero() && r.CauseAt.Before(ev.Time)
	})
}

// cancel marks the open notifications of the parcel with the names
// CANCELLED.
func (s *Service) cancel(tx storage.Tx, site, ext, trackingNumber string, names []Name) error {
	return s.cancelWhere(tx, site, ext, func(r *record) bool {
		return r.TrackingNumber == trackingNumber && slices.Contains(names, r.Name)
	})
}

// cancelWhere marks the open notifications of the order that match
// CANCELLED.
func (s *Service) cancelWhere(tx storage.Tx, site, ext string, match func(*record) bool) error {
	order, err := listed(tx, byOrder, site, storage.KeyPrefix(site, ext))
	if err != nil {
		return err
	}
	for _, it := range order {
		if !it.Value.open() || !match(&it.Value) {
			continue
		}
		r := it.Value
		old := dueKey(&r)
		r.Status = StatusCancelled
		if _, err := putDue(tx, &r, old, s.opts.Clock.Now().UTC(), storage.VersionIs(it.Version)); err != nil {
			return err
		}
	}
	return nil
}

// listed reads the notifications of site that index (byOrder, byParcel)
// lists under prefix, all of them before the caller writes any.
func listed(tx storage.Tx, index storage.Collection[marker], site, prefix string) ([]storage.Item[record], error) {
	var out []storage.Item[record]
	for ix, err := range index.Scan(tx, storage.Range{Prefix: prefix}) {
		if err != nil {
			return nil, err
		}
		it, err := notifications.Get(tx, storage.Key(site, ix.Key[strings.LastIndex(ix.Key, storage.KeySep)+1:]))
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// ListQuery selects the notifications of GET /notifications: exactly one
// of ExternalID (the order's) and TrackingNumber (the parcel's).
type ListQuery struct {
	ExternalID     string
	TrackingNumber string
}

// listQuery is ListQuery with the bounds of its fields.
type listQuery struct {
	ExternalID     string `json:"external_id" validate:"max_ref"`
	TrackingNumber string `json:"tracking_number" validate:"max_id"`
}

// List returns the notifications of the site's order with the external id,
// by scheduled_at.
func (s *Service) List(ctx context.Context, site, externalID string) (*ListResponse, error) {
	return s.ListNotifications(ctx, site, ListQuery{ExternalID: externalID})
}

// ListNotifications returns the site's notifications of the order with
// the external id or of the parcel with the tracking number (exactly one
// is required; both or neither is InvalidArgument naming the field), by
// scheduled_at. Listing by tracking number finds the notifications made
// since notifications were indexed by parcel.
func (s *Service) ListNotifications(ctx context.Context, site string, q ListQuery) (*ListResponse, error) {
	if err := validate.Check(&listQuery{q.ExternalID, q.TrackingNumber}); err != nil {
		return nil, err
	}
	index, prefix := byOrder, storage.KeyPrefix(site, q.ExternalID)
	switch {
	case q.ExternalID != "" && q.TrackingNumber != "":
		return nil, deliverykit.Invalid(
			deliverykit.FieldViolation{Field: "external_id", Rule: "excluded_with", Message: "must not be given together with tracking_number"},
			deliverykit.FieldViolation{Field: "tracking_number", Rule: "excluded_with", Message: "must not be given together with external_id"})
	case q.ExternalID != "":
	case q.TrackingNumber != "":
		index, prefix = byParcel, storage.KeyPrefix(site, q.TrackingNumber)
	default:
		return nil, deliverykit.InvalidField("external_id", "required_without", "external_id or tracking_number is required")
	}
	var items []storage.Item[record]
	err := s.store.View(ctx, func(tx storage.Tx) (err error) {
		items, err = listed(tx, index, site, prefix)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(items, func(a, b storage.Item[record]) int {
		return cmp.Or(a.Value.ScheduledAt.Compare(b.Value.ScheduledAt), strings.Compare(a.Value.ID, b.Value.ID))
	})
	out := &ListResponse{Notifications: []Notification{}}
	for i := range items {
		out.Notifications = append(out.Notifications, items[i].Value.wire())
	}
	return out, nil
}

// validate checks requests with the module's shared validator and limits.
var validate = validation.New()

// Retrigger copies the site's notification id into a new one (new id, same
// name, channel, tracking number and receiver; origin RETRIGGER) and sends
// it at once. It returns the new id; a failed send leaves it FAILED and
// retried by Dispatch, like any other. An unknown id is NotFound.
func (s *Service) Retrigger(ctx context.Context, site, id string) (string, error) {
	if err := validate.Check(&RetriggerRequest{SiteID: site, NotificationID: id}); err != nil {
		return "", err
	}
	now := s.opts.Clock.Now().UTC()
	newID := s.opts.IDs.NewID("ntf_")
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		it, err := notifications.Get(tx, storage.Key(site, id))
		if errors.Is(err, storage.ErrNotFound) {
			return &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "notification not found",
				Violations: []deliverykit.FieldViolation{{Field: "notification_id", Rule: "exists", Message: "names no notification of the site"}}}
		}
		if err != nil {
			return err
		}
		o := it.Value
		r := record{
			ID: newID, Site: site, Status: StatusPending, Name: o.Name, Channel: o.Channel, Origin: OriginRetrigger,
			TrackingNumber: o.TrackingNumber, ExternalID: o.ExternalID, TosID: o.TosID, Recipient: o.Recipient,
			ReceiverName: o.ReceiverName, TrackingLink: o.TrackingLink, Locale: o.Locale, ScheduledAt: now, NextAttempt: now, RetriggerOf: o.ID,
		}
		return insert(tx, &r, now)
	})
	if err != nil {
		return "", err
	}
	if _, err := s.send(ctx, site, newID, now); err != nil {
		return "", err
	}
	return newID, nil
}

// NextDue returns when the next scheduled notification or pickup
// reminder falls due; false when none is. A test clock is moved to it.
func (s *Service) NextDue(ctx context.Context) (time.Time, bool, error) {
	return queue.NextDue(ctx, s.store, due, remindersDue)
}
