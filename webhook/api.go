package webhook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
)

// Page sizes of Deliveries.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// EndpointView is an endpoint as the merchant API shows it: its
// configuration without the secrets, and whether it is enabled.
type EndpointView struct {
	ID     string       `json:"id"`
	URL    string       `json:"url"`
	Events []event.Type `json:"events"`
	// Secrets is how many secrets sign its deliveries (2 during a
	// rotation).
	Secrets int `json:"secrets"`
	// Enabled is false after the endpoint answered 410 Gone; then
	// DisabledAt and DisabledReason say when and why.
	Enabled        bool       `json:"enabled"`
	DisabledAt     *time.Time `json:"disabled_at,omitempty"`
	DisabledReason string     `json:"disabled_reason,omitempty"`
}

// Delivery is one delivery of an event to an endpoint, as the merchant API
// shows it.
type Delivery struct {
	// ID names the delivery among the endpoint's (the before cursor of
	// the list): "dlv_" and 36 random characters that sort by time, or,
	// for deliveries stored before ids were random, 20 digits.
	ID        string     `json:"id"`
	EventID   string     `json:"event_id"`
	EventType event.Type `json:"event_type"`
	Subject   string     `json:"subject"`
	Status    Status     `json:"status"`
	// Redelivery is true for a delivery asked for with redeliver.
	Redelivery bool      `json:"redelivery,omitempty"`
	Attempts   int       `json:"attempts"`
	CreatedAt  time.Time `json:"created_at"`
	// NextAttemptAt is when it is tried next (pending and retrying only;
	// a pending delivery behind an earlier one of its subject has none).
	NextAttemptAt *time.Time `json:"next_attempt_at,omitempty"`
	LastAttemptAt *time.Time `json:"last_attempt_at,omitempty"`
	// LastResponseCode is the HTTP status of the last answer (absent when
	// there was none: a timeout, a refused connection).
	LastResponseCode int `json:"last_response_code,omitempty"`
	// LastError says why the last attempt failed.
	LastError string `json:"last_error,omitempty"`
	// LastResponse is the start of the last answer's body (at most 4 KiB).
	LastResponse string     `json:"last_response,omitempty"`
	SettledAt    *time.Time `json:"settled_at,omitempty"`
}

// DeliveryPage is a page of an endpoint's deliveries, newest first.
type DeliveryPage struct {
	Deliveries []Delivery `json:"deliveries"`
	// NextBefore, when set, is the before of the next (older) page.
	NextBefore string `json:"next_before,omitempty"`
}

// DeliveriesQuery selects a page of deliveries.
type DeliveriesQuery struct {
	// Before starts the page after (older than) the delivery with this id;
	// empty starts at the newest.
	Before string
	// Limit is the page size: 0 means DefaultPageSize, more than
	// MaxPageSize is MaxPageSize, negative is InvalidArgument.
	Limit int
}

func view(r *record) Delivery {
	id := r.ID
	if id == "" {
		id = storage.Uint64Key(r.Seq) // stored before ids were random
	}
	d := Delivery{
		ID: id, EventID: r.EventID, EventType: r.Type, Subject: r.Subject,
		Status: r.Status, Redelivery: r.Redelivery, Attempts: r.Attempts, CreatedAt: r.CreatedAt,
		LastResponseCode: r.LastCode, LastError: r.LastError, LastResponse: r.LastResponse,
	}
	if !r.Waiting && !r.settled() && !r.NextAttempt.IsZero() {
		d.NextAttemptAt = timePtr(r.NextAttempt)
	}
	if !r.LastAttempt.IsZero() {
		d.LastAttemptAt = timePtr(r.LastAttempt)
	}
	if !r.SettledAt.IsZero() {
		d.SettledAt = timePtr(r.SettledAt)
	}
	return d
}

func timePtr(t time.Time) *time.Time { return &t }

// target returns a configured endpoint of site, or NotFound.
func (s *Service) target(site, id string) (*target, error) {
	t := s.endpoints[site][id]
	if t == nil {
		return nil, deliverykit.E(deliverykit.KindNotFound, "no such webhook endpoint")
	}
	return t, nil
}

// Endpoints lists the site's endpoints in id order.
func (s *Service) Endpoints(ctx context.Context, site string) ([]EndpointView, error) {
	ids := slices.Sorted(maps.Keys(s.endpoints[site]))
	out := make([]EndpointView, 0, len(ids))
	err := s.store.View(ctx, func(tx storage.Tx) error {
		out = out[:0]
		for _, id := range ids {
			v, err := s.endpointView(tx, site, s.endpoints[site][id])
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// Endpoint returns one of the site's endpoints.
func (s *Service) Endpoint(ctx context.Context, site, id string) (EndpointView, error) {
	t, err := s.target(site, id)
	if err != nil {
		return EndpointView{}, err
	}
	var v EndpointView
	err = s.store.View(ctx, func(tx storage.Tx) error {
		v, err = s.endpointView(tx, site, t)
		return err
	})
	return v, err
}

func (s *Service) endpointView(tx storage.Tx, site string, t *target) (EndpointView, error) {
	st, err := state(tx, site, t.ID)
	if err != nil {
		return EndpointView{}, err
	}
	v := EndpointView{ID: t.ID, URL: t.URL, Events: slices.Clone(t.Events), Secrets: len(t.Secrets), Enabled: !st.Disabled}
	if st.Disabled {
		v.DisabledAt, v.DisabledReason = timePtr(st.DisabledAt), st.Reason
	}
	return v, nil
}

// Enable lets a disabled endpoint receive events again, from now on:
// what happened while it was disabled is not sent (redeliver what is
// wanted). Enabling an enabled endpoint changes nothing.
func (s *Service) Enable(ctx context.Context, site, id string) (EndpointView, error) {
	t, err := s.target(site, id)
	if err != nil {
		return EndpointView{}, err
	}
	var v EndpointView
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		if err := states.Delete(tx, storage.Key(site, id), storage.AnyVersion); err != nil {
			return err
		}
		v, err = s.endpointView(tx, site, t)
		return err
	})
	return v, err
}

// Deliveries lists an endpoint's deliveries, newest first. Settled
// deliveries are kept for Options.Retention.
func (s *Service) Deliveries(ctx context.Context, site, id string, q DeliveriesQuery) (DeliveryPage, error) {
	if _, err := s.target(site, id); err != nil {
		return DeliveryPage{}, err
	}
	if q.Limit < 0 {
		return DeliveryPage{}, deliverykit.InvalidField("limit", "gte", "must not be negative")
	}
	limit := min(cmp.Or(q.Limit, DefaultPageSize), MaxPageSize)
	if len(q.Before) > maxIDBytes || strings.Contains(q.Before, storage.KeySep) {
		return DeliveryPage{}, errBefore
	}
	rg := storage.Range{Prefix: storage.KeyPrefix(site, id), Reverse: true, Limit: limit + 1}
	page := DeliveryPage{Deliveries: []Delivery{}}
	err := s.store.View(ctx, func(tx storage.Tx) error {
		page.Deliveries, page.NextBefore = page.Deliveries[:0], ""
		if q.Before != "" {
			seq, err := deliverySeq(tx, site, id, q.Before)
			if err != nil {
				return err
			}
			rg.After = deliveryKey(site, id, seq)
		}
		for it, err := range deliveries.Scan(tx, rg) {
			if err != nil {
				return err
			}
			if len(page.Deliveries) == limit {
				page.NextBefore = page.Deliveries[limit-1].ID
				break
			}
			page.Deliveries = append(page.Deliveries, view(&it.Value))
		}
		return nil
	})
	return page, err
}

// maxIDBytes bounds an id taken from a caller before it is looked up.
const maxIDBytes = 100

var errBefore = deliverykit.InvalidField("before", "format", "must be the id of a delivery")

// deliverySeq finds the seq of an endpoint's delivery by the id the list
// showed: a "dlv_" id through its index, or the seq itself, which was the
// id of deliveries stored before ids were random (their pages' cursors
// keep working).
func deliverySeq(tx storage.Tx, site, endpoint, id string) (uint64, error) {
	if strings.HasPrefix(id, DeliveryIDPrefix) {
		it, err := deliveryIDs.Get(tx, storage.Key(site, endpoint, id))
		if errors.Is(err, storage.ErrNotFound) {
			return 0, errBefore
		}
		return it.Value, err
	}
	seq, err := storage.ParseUint64Key(id)
	if err != nil || len(id) != len(storage.Uint64Key(0)) {
		return 0, errBefore
	}
	return seq, nil
}

// RedeliverLimit redeliveries per endpoint are accepted per
// RedeliverWindow: each stores a copy of the event's body for
// Options.Retention, so their number is bounded.
const (
	RedeliverLimit  = 10
	RedeliverWindow = time.Minute
)

// redeliverWindow counts an endpoint's redeliveries of the current window.
type redeliverWindow struct {
	Start time.Time `json:"start"`
	Count int       `json:"count"`
}

// redeliveries: site, endpoint → redeliverWindow.
var redeliveries = storage.Collection[redeliverWindow]{Name: "webhook.redeliveries"}

// Redeliver sends an event to an endpoint again, as a new delivery queued
// behind the endpoint's pending deliveries of the same subject, with the
// same body and webhook-id as before. The event must have been delivered
// (or tried) to the endpoint within Options.Retention; else NotFound. A
// disabled endpoint is FailedPrecondition: enable it first. While a
// redelivery of the event is pending, asking again answers that one and
// queues nothing. At most RedeliverLimit redeliveries per endpoint are
// queued per RedeliverWindow (of all the servers on one store); more is
// FailedPrecondition, saying when to try again.
func (s *Service) Redeliver(ctx context.Context, site, id, eventID string) (Delivery, error) {
	if _, err := s.target(site, id); err != nil {
		return Delivery{}, err
	}
	if eventID == "" || strings.Contains(eventID, storage.KeySep) {
		return Delivery{}, deliverykit.E(deliverykit.KindNotFound, "no delivery of this event to the endpoint")
	}
	now := s.opts.Clock.Now().UTC()
	var out Delivery
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		st, err := state(tx, site, id)
		if err != nil {
			return err
		}
		if st.Disabled {
			return deliverykit.E(deliverykit.KindFailedPrecondition, "the endpoint is disabled: enable it first")
		}
		seq, err := byEvent.Get(tx, storage.Key(site, id, eventID))
		if errors.Is(err, storage.ErrNotFound) {
			return deliverykit.E(deliverykit.KindNotFound, "no delivery of this event to the endpoint")
		}
		if err != nil {
			return err
		}
		prev, err := deliveries.Get(tx, deliveryKey(site, id, seq.Value))
		if err != nil {
			return err
		}
		p := prev.Value
		if p.Redelivery && !p.settled() {
			out = view(&p) // asked twice: one is enough
			return nil
		}
		if err := s.countRedelivery(tx, site, id, now); err != nil {
			return err
		}
		r := record{Site: site, Endpoint: id, EventID: p.EventID, Type: p.Type, Subject: p.Subject, Body: p.Body,
			Redelivery: true, Status: StatusPending, CreatedAt: now}
		if err := s.enqueue(tx, &r, now); err != nil {
			return err
		}
		out = view(&r)
		return nil
	})
	if err != nil {
		return Delivery{}, fmt.Errorf("webhook: redelivering event %s: %w", eventID, err)
	}
	s.wake.Signal()
	return out, nil
}

// countRedelivery counts one redelivery to an endpoint in the current
// window, or refuses it when the window's limit is reached.
func (s *Service) countRedelivery(tx storage.Tx, site, endpoint string, now time.Time) error {
	key := storage.Key(site, endpoint)
	w := redeliverWindow{Start: now}
	it, err := redeliveries.Get(tx, key)
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return err
	case now.Before(it.Value.Start.Add(RedeliverWindow)) && !now.Before(it.Value.Start):
		w = it.Value
	}
	if w.Count >= RedeliverLimit {
		wait := w.Start.Add(RedeliverWindow).Sub(now)
		return deliverykit.Errorf(deliverykit.KindFailedPrecondition,
			"the endpoint had %d redeliveries within %s, the limit: try again in %s", w.Count, RedeliverWindow, wait.Round(time.Second))
	}
	w.Count++
	_, err = redeliveries.Put(tx, key, w, storage.AnyVersion)
	return err
}
