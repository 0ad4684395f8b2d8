package webhook

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// Body is the JSON body of a delivery (the Standard Webhooks payload
// structure): the event type, when the event happened, and the event's
// payload with the site and the subject added.
type Body struct {
	Type      event.Type      `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// body renders e's delivery body. The payload's members come after "site"
// and "subject" in the order the producer wrote them; a payload that is
// not a JSON object is InvalidArgument (no attempt could ever deliver it).
func body(e event.Event) ([]byte, error) {
	p := bytes.TrimSpace(e.Payload)
	if len(p) < 2 || p[0] != '{' || !json.Valid(p) {
		return nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "webhook: event %s: the payload is not a JSON object", e.ID)
	}
	head, err := json.Marshal(struct {
		Site    string `json:"site"`
		Subject string `json:"subject"`
	}{e.Site, e.Subject})
	if err != nil {
		return nil, err
	}
	// head is {"site":…,"subject":…}; the payload's members follow it.
	data := make([]byte, 0, len(head)+len(p))
	data = append(data, head[:len(head)-1]...)
	if rest := bytes.TrimSpace(p[1:]); rest[0] != '}' {
		data = append(data, ',')
		data = append(data, rest...)
	} else {
		data = append(data, '}')
	}
	return json.Marshal(Body{Type: e.Type, Timestamp: e.Time.UTC(), Data: data})
}
