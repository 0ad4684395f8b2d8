package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The headers of a delivery (Standard Webhooks).
const (
	// HeaderID is the message id: the event's id, the same on every
	// attempt and redelivery, so a receiver applies an event once.
	HeaderID = "webhook-id"
	// HeaderTimestamp is when the attempt was signed, in Unix seconds.
	HeaderTimestamp = "webhook-timestamp"
	// HeaderSignature is "v1,<base64 signature>", one per secret,
	// separated by spaces.
	HeaderSignature = "webhook-signature"
)

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock for Verify to accept it: an older request is a replay.
const DefaultTolerance = 5 * time.Minute

// Errors of Verify; match them with errors.Is.
var (
	// ErrMissingHeaders: a webhook header is missing or malformed.
	ErrMissingHeaders = errors.New("webhook: missing or malformed webhook-id, webhook-timestamp or webhook-signature")
	// ErrTimestamp: the timestamp is outside the tolerance (a replay, or
	// a clock far off).
	ErrTimestamp = errors.New("webhook: timestamp outside the tolerance")
	// ErrSignature: no signature matches any of the secrets.
	ErrSignature = errors.New("webhook: no signature matches")
)

// Sign returns the webhook-signature header of a message: "v1,<base64 of
// HMAC-SHA256 of id.timestamp.body>" per secret, space-separated, with
// each secret's bytes (the base64 after "whsec_").
func Sign(secrets []string, id string, at time.Time, body []byte) (string, error) {
	ws, err := signers(secrets)
	if err != nil {
		return "", fmt.Errorf("webhook: %w", err)
	}
	return sign(ws, id, at, body)
}

func sign(ws []*standardwebhooks.Webhook, id string, at time.Time, body []byte) (string, error) {
	var b strings.Builder
	for i, wh := range ws {
		s, err := wh.Sign(id, at, body)
		if err != nil {
			return "", fmt.Errorf("webhook: %w", err)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// Verify checks a delivery as its receiver: body must be the request body
// exactly as received (before any JSON decoding), header the request's
// headers, now the receiver's clock, and secrets the endpoint's secret(s)
// ("whsec_…"). It returns nil when a signature matches one of the secrets
// and the timestamp is within DefaultTolerance of now; otherwise an error
// matching ErrMissingHeaders, ErrTimestamp or ErrSignature.
//
// Receivers should answer 2xx quickly after verifying and apply the event
// once per webhook-id: a delivery may come more than once.
func Verify(body []byte, header http.Header, now time.Time, secrets ...string) error {
	if header.Get(HeaderID) == "" || header.Get(HeaderSignature) == "" {
		return ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(header.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return ErrMissingHeaders
	}
	at := time.Unix(ts, 0)
	if d := now.Sub(at); d > DefaultTolerance || d < -DefaultTolerance {
		return fmt.Errorf("%w: signed at %s, now %s", ErrTimestamp, at.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if len(secrets) == 0 {
		return fmt.Errorf("%w: no secret given", ErrSignature)
	}
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			return fmt.Errorf("webhook: secret: %w", err)
		}
		// The time was checked above against the caller's clock; the
		// library's own check reads the system clock.
		if wh.VerifyIgnoringTimestamp(body, header) == nil {
			return nil
		}
	}
	return ErrSignature
}
