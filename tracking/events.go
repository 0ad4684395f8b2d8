package tracking

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// parcelChange is one new step or alert of a parcel, written to the outbox
// as an event.ParcelChanged. Exactly one of Step and Alert is set.
type parcelChange struct {
	Site           string
	TosID          string
	ExternalID     string
	TrackingNumber string
	Step           Step
	Alert          AlertType
	// Time is when the step happened or the alert was raised.
	Time         time.Time
	DeliveryType DeliveryType
	// Receiver is the parcel receiver's contact, falling back to the
	// order receiver's.
	Receiver deliverykit.Contact
	// TrackingLink is the customer page of the order (without a locale:
	// the page speaks the order's Locale).
	TrackingLink string
	Locale       string
	Direction    DirectionType
	// ProductRef, Promise and the destination let a consumer measure
	// the order's promise (event.ParcelChanged).
	ProductRef  string
	Promise     *event.TimeRange
	Destination *Address
}

// event is c as the payload of its outbox event.
func (c *parcelChange) event() event.ParcelChanged {
	e := event.ParcelChanged{
		TosID: c.TosID, ExternalID: c.ExternalID, TrackingNumber: c.TrackingNumber,
		Step: string(c.Step), Alert: string(c.Alert), Time: c.Time.UTC(), DeliveryType: string(c.DeliveryType),
		Receiver: c.Receiver, TrackingLink: c.TrackingLink, Locale: c.Locale, Direction: string(c.Direction),
		ProductRef: c.ProductRef, Promise: c.Promise,
	}
	if d := c.Destination; d != nil {
		e.DestinationCountry, e.DestinationPostalCode = d.Country, d.PostalCode
	}
	return e
}

// Step sets of the sequence rules (see the package documentation).
var (
	returnOnlySteps = map[Step]bool{
		StepReturnRequested: true, StepReturnApproved: true, StepReturnDeclined: true,
		StepReturnCompleted: true, StepReplacementSent: true, StepReturnCancelled: true,
	}
	outboundOnlySteps = map[Step]bool{
		StepConfirmedByMerchant: true, StepPreparedByMerchant: true, StepAwaitingSupplier: true,
		StepLinehaulToCarrier: true, StepDeliveredToPickupPoint: true, StepDeliveredToConsumer: true,
	}
)

// finalStep reports whether no step may follow s on a parcel of direction d.
func finalStep(d DirectionType, s Step) bool {
	switch s {
	case StepTerminated, StepReturnDeclined, StepReturnCancelled, StepReplacementSent, StepDeliveredToConsumer:
		return true
	case StepDeliveredToMerchant:
		// A returned parcel may still be completed and replaced.
		return d == DirectionOutbound
	}
	return false
}

// formatTime is the one way times are written: UTC, RFC 3339, fractional
// seconds only when present.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// RecordEvent records a carrier event on the site's parcel with the
// tracking number. A step is placed in the history by its time (carriers
// deliver out of order); an event already recorded (same step or alert at
// the same instant) is ignored. An event that breaks the step sequence is
// FailedPrecondition and changes nothing. New steps and alerts are passed
// to the outbox in the same transaction (event.ParcelChanged).
func (s *Service) RecordEvent(ctx context.Context, site string, ev Event) error {
	if err := checkSite(site, &ev.SiteID); err != nil {
		return err
	}
	var extra []deliverykit.FieldViolation
	if ev.Step == "" && ev.Alert == "" && ev.Exception == "" {
		extra = append(extra, violation("step", "required_without", "step, alert or exception is required"))
	}
	if ev.EstimatedTime != nil {
		extra = append(extra, rangeOrder("estimated_time", ev.EstimatedTime.Start, ev.EstimatedTime.End)...)
	}
	if err := check(&ev, extra); err != nil {
		return err
	}
	at, _ := parseTime(ev.Time)
	carrier := ""
	if ev.CarrierProductRef != "" {
		p, ok := s.opts.Products.Product(site, ev.CarrierProductRef)
		if !ok {
			return deliverykit.InvalidField("carrier_product_ref", "known", "is not a carrier product of the site's catalog")
		}
		carrier = p.CarrierID
	}
	now := s.opts.Clock.Now().UTC()
	return s.updateWithToken(ctx, "", func(tx storage.Tx, fresh string) error {
		p, err := s.eventParcel(tx, site, ev.TrackingNumber, carrier)
		if err != nil {
			return err
		}
		rec := p.Value
		ord, err := orders.Get(tx, storage.Key(site, rec.TosID))
		if err != nil {
			return err
		}
		if len(rec.Alerts) >= MaxAlerts && (ev.Alert != "" || ev.EstimatedTime != nil) {
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the parcel already has %d alerts, the most kept for one parcel", MaxAlerts)
		}
		if len(rec.Exceptions) >= MaxExceptions && len(eventExceptions(&ev)) > 0 {
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the parcel already has %d exceptions, the most kept for one parcel", MaxExceptions)
		}
		changes, changed, err := applyEvent(&rec, &ord.Value, &ev, at, s.change(site, &ord.Value, &rec))
		if err != nil {
			return err
		}
		if !changed {
			return nil
		}
		rec.LastEventAt = now
		if _, err = parcels.Put(tx, p.Key, rec, storage.VersionIs(p.Version)); err != nil {
			return err
		}
		// The order's retention counts from its last event; its entry
		// moves at most once a day (activityStep) to spare a write of the
		// order per event.
		o := ord.Value
		moved, err := o.activeSince(tx, ord.Key, now)
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			if moved {
				_, err = orders.Put(tx, ord.Key, o, storage.VersionIs(ord.Version))
			}
			return err
		}
		// The notifications of the changes carry the link: keep it working
		// for another LinkLifetime (a new token when it expired).
		_, replaced, err := s.keepLink(tx, site, &o, now, false, fresh)
		if err != nil {
			return err
		}
		if replaced || moved {
			if _, err := orders.Put(tx, ord.Key, o, storage.VersionIs(ord.Version)); err != nil {
				return err
			}
		}
		return s.emitChanges(tx, site, o.Token, changes)
	})
}

// applyEvent records ev on the parcel rec of order o and returns the
// changes it makes (from base) and whether rec changed. It has no effect
// outside rec, so the transaction that calls it may run more than once.
func applyEvent(rec *parcelRecord, o *orderRecord, ev *Event, at time.Time, base parcelChange) ([]parcelChange, bool, error) {
	var changes []parcelChange
	changed := false
	if ev.Step != "" {
		ok, err := addStep(rec, ProgressItem{Step: ev.Step, Time: formatTime(at), EstimatedTime: ev.EstimatedTime})
		if err != nil {
			return nil, false, err
		}
		if ok {
			changed = true
			c := base
			c.Step, c.Time = ev.Step, at
			changes = append(changes, c)
		}
	}
	// The estimated_time of an awaiting-supplier or linehaul alert is
	// that alert's payload (when the goods or the linehaul are expected),
	// not the parcel's delivery estimate.
	if ev.EstimatedTime != nil && (ev.EstimatedTime.Start != "" || ev.EstimatedTime.End != "") && !payloadAlert(ev.Alert) {
		prev := currentEstimate(rec, o)
		next := normalRange(ev.EstimatedTime)
		if prev == nil || *prev != *next {
			rec.Estimate = next
			changed = true
			if prev != nil && addAlert(rec, Alert{Type: AlertEstimatedDeliveryTimeUpdated, CreatedAt: formatTime(at)}, nil) {
				c := base
				c.Alert, c.Time = AlertEstimatedDeliveryTimeUpdated, at
				changes = append(changes, c)
			}
		}
	}
	if ev.Alert != "" && addAlert(rec, Alert{Type: ev.Alert, CreatedAt: formatTime(at)}, ev.EstimatedTime) {
		changed = true
		c := base
		c.Alert, c.Time = ev.Alert, at
		changes = append(changes, c)
	}
	for _, x := range eventExceptions(ev) {
		if addException(rec, ParcelException{CreatedAt: formatTime(at), Status: x}) {
			changed = true
		}
	}
	return changes, changed, nil
}

// payloadAlert reports whether an event's estimated_time is the payload of
// its alert rather than a delivery estimate.
func payloadAlert(a AlertType) bool {
	return a == AlertAwaitingSupplier || a == AlertLinehaulToCarrier
}

// emitChanges writes the parcel changes to the outbox, with the link of
// the order's token.
func (s *Service) emitChanges(tx storage.Tx, site, token string, changes []parcelChange) error {
	for i := range changes {
		changes[i].TrackingLink = s.portalLink(token, "")
		ev, err := event.New("", site, changes[i].TrackingNumber, changes[i].Time, changes[i].event())
		if err != nil {
			return err
		}
		if err := outbox.Add(tx, ev); err != nil {
			return err
		}
	}
	return nil
}

// eventParcel finds the parcel an event is about.
func (s *Service) eventParcel(tx storage.Tx, site, number, carrier string) (storage.Item[parcelRecord], error) {
	notFound := &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "parcel not found",
		Violations: []deliverykit.FieldViolation{violation("tracking_number", "exists", "names no parcel of the site")}}
	if carrier != "" {
		p, err := parcels.Get(tx, parcelKey(site, number, carrier))
		if errors.Is(err, storage.ErrNotFound) {
			return p, notFound
		}
		return p, err
	}
	ps, err := parcelsByNumber(tx, site, number)
	switch {
	case err != nil:
		return storage.Item[parcelRecord]{}, err
	case len(ps) == 0:
		return storage.Item[parcelRecord]{}, notFound
	case len(ps) > 1:
		return storage.Item[parcelRecord]{}, deliverykit.InvalidField("carrier_product_ref", "required", "is required: several carriers of the site use this tracking number")
	}
	return ps[0], nil
}

func (s *Service) change(site string, o *orderRecord, p *parcelRecord) parcelChange {
	c := parcelChange{
		Site: site, TosID: o.TosID, ExternalID: o.Request.ExternalID,
		TrackingNumber: p.Request.TrackingNumber, DeliveryType: p.Request.DeliveryType,
		TrackingLink: s.portalLink(o.Token, ""), Locale: o.Request.Locale, Direction: p.Request.DirectionType,
	}
	if r := o.Request.Receiver; r != nil {
		c.Receiver = deliverykit.Contact{Name: r.Name, Email: r.Email, Phone: r.PhoneNumber}
	}
	c.ProductRef, c.Destination = p.Request.CarrierProductRef, parcelDestination(o, p)
	if pr := o.Request.Promises; pr != nil && pr.EstimatedDeliveryTime != nil {
		start, ok1 := parseTime(pr.EstimatedDeliveryTime.Start)
		end, ok2 := parseTime(pr.EstimatedDeliveryTime.End)
		if ok1 && ok2 {
			c.Promise = &event.TimeRange{Earliest: start.UTC(), Latest: end.UTC()}
		}
	}
	if r := p.Request.Receiver; r != nil {
		c.Receiver.Name = r.Name
		if r.Email != "" {
			c.Receiver.Email = r.Email
		}
		if r.PhoneNumber != "" {
			c.Receiver.Phone = r.PhoneNumber
		}
	}
	return c
}

// parcelDestination is where parcel p of order o goes: its pickup
// point's address, else its receiver's, else the order's destination; nil
// when none is known.
func parcelDestination(o *orderRecord, p *parcelRecord) *Address {
	if r := p.Request.Receiver; r != nil && r.Destination != nil {
		if pk := r.Destination.Pickup; pk != nil && pk.Address != nil {
			return pk.Address
		}
		if a := r.Destination.Address; a != nil {
			return a
		}
	}
	if d := o.Request.Destination; d != nil {
		return d.Address
	}
	return nil
}

// MaxProgressItems bounds a parcel's history. Real parcels see tens of
// steps; the bound keeps a misbehaving carrier feed from growing one record
// (rewritten on every event) without limit.
const MaxProgressItems = 500

// MaxAlerts bounds a parcel's alerts for the same reason.
const MaxAlerts = 200

// addStep places item in rec's history by time. It returns false for a
// duplicate and an error for a step the sequence rules refuse.
func addStep(rec *parcelRecord, item ProgressItem) (bool, error) {
	d := rec.Request.DirectionType
	switch {
	case d == DirectionOutbound && returnOnlySteps[item.Step]:
		return false, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "step %s is only for RETURN parcels; this parcel is OUTBOUND", item.Step)
	case d == DirectionReturn && outboundOnlySteps[item.Step]:
		return false, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "step %s is only for OUTBOUND parcels; this parcel is RETURN", item.Step)
	}
	at, _ := parseTime(item.Time)
	pos := len(rec.Progress)
	for i, p := range rec.Progress {
		t, _ := parseTime(p.Time)
		if t.Equal(at) && p.Step == item.Step {
			return false, nil
		}
		if t.After(at) && pos == len(rec.Progress) {
			pos = i
		}
	}
	if pos > 0 {
		if prev := rec.Progress[pos-1]; finalStep(d, prev.Step) {
			return false, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the parcel reached the final step %s at %s; no step may follow it", prev.Step, prev.Time)
		}
	}
	if len(rec.Progress) >= MaxProgressItems {
		return false, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the parcel already has %d progress steps, the most kept for one parcel", MaxProgressItems)
	}
	if pos < len(rec.Progress) && finalStep(d, item.Step) {
		return false, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "final step %s cannot precede the recorded step %s at %s", item.Step, rec.Progress[pos].Step, rec.Progress[pos].Time)
	}
	rec.Progress = slices.Insert(rec.Progress, pos, item)
	return true, nil
}

// addAlert adds an alert with its payload unless the same type was raised
// at the same instant. Alerts stay sorted by created_at.
func addAlert(rec *parcelRecord, a Alert, est *DateTimeRange) bool {
	for _, x := range rec.Alerts {
		if x.Type == a.Type && x.CreatedAt == a.CreatedAt {
			return false
		}
	}
	setPayload(&a, est)
	pos := len(rec.Alerts)
	at, _ := parseTime(a.CreatedAt)
	for i, x := range rec.Alerts {
		if t, _ := parseTime(x.CreatedAt); t.After(at) {
			pos = i
			break
		}
	}
	rec.Alerts = slices.Insert(rec.Alerts, pos, a)
	return true
}

// setPayload sets the one payload object named after the alert type.
func setPayload(a *Alert, est *DateTimeRange) {
	empty := &struct{}{}
	estimate := func() *EstimatePayload {
		p := &EstimatePayload{}
		if est != nil {
			r := normalRange(est)
			p.EstimatedTimeRange = r
			p.EstimatedTime = &EstimatedTime{Earliest: r.Start, Latest: r.End}
		}
		return p
	}
	switch a.Type {
	case AlertAwaitingSupplier:
		a.AwaitingSupplier = estimate()
	case AlertLinehaulToCarrier:
		a.Linehaul = estimate()
	case AlertDeliveryAttemptFailed:
		a.DeliveryAttemptFailed = empty
	case AlertDeliveryDelayed:
		a.DeliveryDelayed = empty
	case AlertDeliveryDelayedFromCarrier:
		a.DeliveryDelayedFromCarrier = empty
	case AlertEstimatedDeliveryTimeUpdated:
		a.EstimatedDeliveryTimeUpdated = empty
	case AlertOutForDelivery:
		a.OutForDelivery = empty
	case AlertSubmissionDelayed:
		a.SubmissionDelayed = empty
	}
}

// normalRange rewrites a validated range's ends in the canonical format so
// that equal instants compare equal.
func normalRange(r *DateTimeRange) *DateTimeRange {
	out := &DateTimeRange{}
	if t, ok := parseTime(r.Start); ok {
		out.Start = formatTime(t)
	}
	if t, ok := parseTime(r.End); ok {
		out.End = formatTime(t)
	}
	return out
}

// currentEstimate is the carrier's latest estimate, else the merchant's
// promise, else nil.
func currentEstimate(p *parcelRecord, o *orderRecord) *DateTimeRange {
	if p.Estimate != nil {
		return p.Estimate
	}
	if pr := o.Request.Promises; pr != nil && pr.EstimatedDeliveryTime != nil {
		return normalRange(&DateTimeRange{Start: pr.EstimatedDeliveryTime.Start, End: pr.EstimatedDeliveryTime.End})
	}
	return nil
}
