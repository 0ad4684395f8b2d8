package notify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	outboxevent "github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// Dispatch sends the notifications due at the clock's time, at most
// Options.Batch of them, and returns how many were sent successfully. Each
// one is first claimed (its next attempt moved ClaimTimeout ahead, so a
// concurrent dispatcher skips it), then sent outside any transaction, then
// marked TRIGGERED, or FAILED with the next attempt after a backoff. A send
// cut short by a crash is retried when the claim expires: delivery is at
// least once and a notification is never lost.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	now := s.opts.Clock.Now().UTC()
	return queue.Drain(ctx, s.store, due, now, s.opts.Batch, func(e queue.Entry[marker]) ([2]string, bool) {
		site, id, ok := strings.Cut(e.ID, storage.KeySep)
		return [2]string{site, id}, ok && !strings.Contains(id, storage.KeySep)
	}, func(r [2]string) (int, error) { return queue.One(s.send(ctx, r[0], r[1], now)) })
}

// Step is one round of the background work that wiring.Services.Run
// runs every interval: RemindPickups at the clock's time, then Dispatch.
// It returns how many reminders were queued and notifications sent; a
// failure of the reminders does not hold the sends up, and the first
// error is returned.
func (s *Service) Step(ctx context.Context) (int, error) {
	reminded, rerr := s.RemindPickups(ctx, s.opts.Clock.Now().UTC())
	sent, err := s.Dispatch(ctx)
	if rerr != nil {
		return reminded + sent, fmt.Errorf("pickup reminders: %w", rerr)
	}
	return reminded + sent, err
}

// send claims, sends and settles one notification. It reports whether the
// send succeeded; a notification that is not open or not due is skipped.
func (s *Service) send(ctx context.Context, site, id string, now time.Time) (bool, error) {
	q := s.queue()
	claimed, version, ok, err := q.Take(ctx, s.store, storage.Key(site, id), now, func(_ storage.Tx, r *record, _ uint64) (bool, error) {
		return r.open(), nil
	})
	if err != nil || !ok {
		return false, err
	}
	sender := s.opts.Senders[claimed.Channel]
	tag := i18n.Match(claimed.Locale)
	base, _ := tag.Base()
	lang := base.String()
	var sendErr error
	if sender == nil {
		sendErr = fmt.Errorf("%w %s", errNoSender, claimed.Channel)
	} else {
		subject, body := text(tag, claimed.Name, claimed.TrackingNumber, claimed.TrackingLink)
		sendErr = sender.Send(ctx, Message{
			NotificationID: claimed.ID, Site: claimed.Site, Name: claimed.Name, Channel: claimed.Channel,
			Recipient: claimed.Recipient, ReceiverName: claimed.ReceiverName, ExternalID: claimed.ExternalID,
			TrackingNumber: claimed.TrackingNumber, TrackingLink: claimed.TrackingLink, Subject: subject, Body: body,
			Language: lang,
		})
	}
	// Settled even when the caller's context ended meanwhile: the send
	// happened. One cancelled or changed while being sent is left as is.
	_, err = q.Settle(ctx, s.store, storage.Key(site, id), version, func(tx storage.Tx, r *record, v uint64) error {
		old := dueKey(r)
		if sendErr == nil {
			r.Status, r.TriggeredAt, r.LastError = StatusTriggered, now, ""
		} else {
			r.Attempts++
			r.Status, r.LastError = StatusFailed, sendErr.Error()
			r.NextAttempt = now.Add(q.Policy.Backoff(r.Attempts))
			if q.Policy.Exhausted(r.Attempts) {
				// Every attempt failed: FAILED for good, until
				// retriggered.
				r.NextAttempt = time.Time{}
			}
		}
		if _, err := putDue(tx, r, old, now, storage.VersionIs(v)); err != nil {
			return err
		}
		return emitSettled(tx, r, lang, sendErr, now)
	})
	return sendErr == nil && err == nil, err
}

// errNoSender is the failure of a notification whose channel has no
// Sender.
var errNoSender = errors.New("no sender for channel")

// emitSettled writes the outcome of a send of r, which the caller has just
// settled in tx, as an event.NotificationSent or, after a failed attempt,
// an event.NotificationFailed (every failed attempt: the notification is
// FAILED and retried, and Attempts counts the failures). The subject is
// the parcel's tracking number, so that the merchant's webhooks get the
// notification after the parcel change that caused it; a notification
// about no parcel has its order's external id. The payload carries no
// recipient address and no error text of the sender, which may quote it:
// publicReason says what went wrong.
func emitSettled(tx storage.Tx, r *record, lang string, sendErr error, now time.Time) error {
	p := outboxevent.NotificationSettled{
		NotificationID: r.ID, Name: string(r.Name), Channel: string(r.Channel), ExternalID: r.ExternalID,
		TrackingNumber: r.TrackingNumber, Language: lang, Attempts: r.Attempts, At: now,
	}
	var payload outboxevent.Payload
	if sendErr == nil {
		p.Attempts++ // the failures before, and this send
		payload = outboxevent.NotificationSent(p)
	} else {
		p.Error = publicReason(sendErr)
		payload = outboxevent.NotificationFailed(p)
	}
	ev, err := outboxevent.New("", r.Site, cmp.Or(r.TrackingNumber, r.ExternalID), now, payload)
	if err != nil {
		return err
	}
	return outbox.Add(tx, ev)
}

// publicReason describes a failed send to the merchant in a fixed
// sentence per kind of failure. A Sender's own error text is kept for the
// operator only (the record's last error): it may quote the recipient's
// address, which is personal data, or the mail server's internals.
func publicReason(err error) string {
	var reply *textproto.Error
	switch {
	case errors.Is(err, errNoSender):
		return "no sender is configured for the channel"
	case errors.Is(err, errBadRecipient):
		return "the recipient address is not valid"
	case errors.Is(err, context.DeadlineExceeded):
		return "the send timed out"
	case errors.Is(err, context.Canceled):
		return "the send was interrupted"
	case errors.As(err, &reply) && reply.Code >= 500:
		return "the mail server refused the message (reply " + strconv.Itoa(reply.Code) + ")"
	case errors.As(err, &reply):
		return "the mail server deferred the message (reply " + strconv.Itoa(reply.Code) + ")"
	}
	return "the sender could not deliver the message"
}

// LogSender is the default Sender: it logs each message (without the
// recipient's address, which is personal data) and keeps it in memory for
// inspection. It never fails.
type LogSender struct {
	log  *slog.Logger
	mu   sync.Mutex
	sent []Message
}

// NewLogSender returns a LogSender logging to log (slog.Default() if nil).
func NewLogSender(log *slog.Logger) *LogSender { return &LogSender{log: cmp.Or(log, slog.Default())} }

// Send implements Sender.
func (l *LogSender) Send(ctx context.Context, m Message) error {
	l.mu.Lock()
	l.sent = append(l.sent, m)
	l.mu.Unlock()
	l.log.InfoContext(ctx, "notification sent", "id", m.NotificationID, "site", m.Site,
		"name", string(m.Name), "channel", string(m.Channel), "tracking_number", m.TrackingNumber)
	return nil
}

// Sent returns a copy of the messages sent so far.
func (l *LogSender) Sent() []Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Message(nil), l.sent...)
}
