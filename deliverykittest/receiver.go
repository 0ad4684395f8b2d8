package deliverykittest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/webhook"
)

// WebhookDelivery is one request the kit's webhook endpoint received.
type WebhookDelivery struct {
	// Site is the site whose endpoint received it.
	Site string
	// ID is the webhook-id header: the event's id, the same on every
	// attempt.
	ID string
	// Type, Timestamp and Data are the body's; Data is the event's
	// payload with "site" and "subject" added.
	Type      event.Type
	Timestamp time.Time
	Subject   string
	Data      json.RawMessage
	// Body is the request body as received.
	Body []byte
	// Signature is the webhook-signature header; SignatureErr is nil
	// when it verified against WebhookSecret at the kit's time
	// (webhook.Verify), else why not.
	Signature    string
	SignatureErr error
}

// Decode reads the delivery's data as the payload type of its event, T,
// with the subject: what a receiver of that type decodes.
func Decode[T event.Payload](d WebhookDelivery) (T, error) {
	var p T
	if d.Type != p.EventType() {
		return p, deliverykit.Errorf(deliverykit.KindInvalidArgument, "delivery %s is a %s, not a %s", d.ID, d.Type, p.EventType())
	}
	err := json.Unmarshal(d.Data, &p)
	return p, err
}

// maxBody bounds what the receiver reads of a delivery.
const maxBody = 1 << 20

// receiverHost is the host of the kit's endpoint URLs: a loopback
// address, as the configuration allows http only for one. Nothing
// listens there; the webhook sender's transport serves the requests in
// process.
const receiverHost = "http://127.0.0.1"

// receiver is the kit's webhook endpoint: a handler that keeps what it
// receives. It answers 204 whatever the signature (a bad one is recorded),
// so that a test sees every delivery once.
type receiver struct {
	clock deliverykit.Clock
	// clocks are the test sites' (Kit.NewSite): a delivery's timestamp
	// is its site's time.
	clocks sync.Map
	mu     sync.Mutex
	got    []WebhookDelivery
}

func (r *receiver) url(site string) string { return receiverHost + "/" + site }

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) { r.serve(w, req) }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	b, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
	if err != nil {
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	d := WebhookDelivery{Site: strings.TrimPrefix(req.URL.Path, "/"), ID: req.Header.Get(webhook.HeaderID), Body: b,
		Signature: req.Header.Get(webhook.HeaderSignature)}
	var body webhook.Body
	if err := json.Unmarshal(b, &body); err == nil {
		d.Type, d.Timestamp, d.Data = body.Type, body.Timestamp, body.Data
		var head struct {
			Subject string `json:"subject"`
			Site    string `json:"site"`
		}
		if json.Unmarshal(body.Data, &head) == nil {
			d.Subject = head.Subject
			if testmode.IsTestSite(head.Site) {
				d.Site = head.Site // on its parent's endpoint
			}
		}
	}
	clock := r.clock
	if c, ok := r.clocks.Load(d.Site); ok {
		clock = c.(deliverykit.Clock)
	}
	d.SignatureErr = webhook.Verify(b, req.Header, clock.Now(), WebhookSecret)
	r.mu.Lock()
	r.got = append(r.got, d)
	r.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) received() []WebhookDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]WebhookDelivery(nil), r.got...)
}
