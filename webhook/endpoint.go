package webhook

import (
	"encoding/base64"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Limits of an endpoint's configuration.
const (
	// MaxEndpoints is the most endpoints one site may configure.
	MaxEndpoints = 16
	// MaxURLLength is the longest endpoint URL, in characters.
	MaxURLLength = 2048
	// MaxSecrets is how many secrets an endpoint may have at once: the
	// current one and, during a rotation, the next.
	MaxSecrets = 2
	// MinSecretBytes and MaxSecretBytes bound a secret's decoded length
	// (the scheme asks for 24 to 64 random bytes).
	MinSecretBytes = 24
	MaxSecretBytes = 64
)

// SecretPrefix starts every secret: "whsec_" then the standard base64 of
// the secret's bytes.
const SecretPrefix = "whsec_"

// Endpoint is a receiver of a site's webhooks, as configured:
//
//	{"id": "erp", "url": "https://erp.example.com/hooks/delivery",
//	 "secrets": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
//	 "events": ["parcel.changed", "return.created"]}
type Endpoint struct {
	// ID names the endpoint in the API (deliveries, redelivery): 1-64
	// lower-case letters, digits, '-' or '_'.
	ID string `json:"id"`
	// URL receives a POST per event. It must be https, except for a
	// loopback host (localhost, 127.0.0.1, [::1]) during development;
	// loopback and other private addresses are refused when the request
	// is made unless Options.AllowPrivate is set.
	URL string `json:"url"`
	// Secrets sign every request: one, or two while the receiver moves
	// from the first to the second (both signatures are sent). Each is
	// "whsec_" followed by the standard base64 of 24 to 64 random bytes.
	Secrets []string `json:"secrets"`
	// Events lists the event types the endpoint receives (event.Types).
	Events []event.Type `json:"events"`
}

// Wants reports whether the endpoint subscribed to t.
func (e Endpoint) Wants(t event.Type) bool { return slices.Contains(e.Events, t) }

var endpointID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// DefaultPorts are the ports a webhook URL may name without an allow-list:
// HTTPS, HTTP and HTTPS's usual alternative. Other ports (a database's, an
// admin console's) are where a URL aimed inside a network would point.
var DefaultPorts = []int{443, 80, 8443}

// Validate checks a site's endpoints and returns an InvalidArgument error
// listing every problem, with fields named "webhooks[i].…". A URL's port
// must be one of DefaultPorts or allowPorts; a loopback host (development,
// see Options.AllowPrivate) may use any.
func Validate(endpoints []Endpoint, allowPorts ...int) error {
	vs := violations(endpoints)
	for i, e := range endpoints {
		if rule, msg := checkPort(e.URL, allowPorts); rule != "" {
			vs = append(vs, deliverykit.FieldViolation{Field: fmt.Sprintf("webhooks[%d].url", i), Rule: rule, Message: msg})
		}
	}
	if len(vs) > 0 {
		return deliverykit.Invalid(vs...)
	}
	return nil
}

// checkPort returns the rule and message the port of a valid URL breaks,
// or "" (also for an invalid URL, which checkURL reports).
func checkPort(raw string, allow []int) (rule, msg string) {
	u, err := url.Parse(raw)
	if err != nil || u.Port() == "" || loopbackHost(u.Hostname()) {
		return "", ""
	}
	p, err := strconv.Atoi(u.Port())
	if err == nil && (slices.Contains(DefaultPorts, p) || slices.Contains(allow, p)) {
		return "", ""
	}
	return "port", "the port must be 443, 80 or 8443, or one the configuration allows (webhook_ports)"
}

func violations(endpoints []Endpoint) []deliverykit.FieldViolation {
	var vs []deliverykit.FieldViolation
	bad := func(field, rule, msg string) {
		vs = append(vs, deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg})
	}
	if len(endpoints) > MaxEndpoints {
		bad("webhooks", "max", fmt.Sprintf("must have at most %d entries", MaxEndpoints))
		return vs
	}
	ids := map[string]int{}
	for i, e := range endpoints {
		p := fmt.Sprintf("webhooks[%d]", i)
		switch {
		case e.ID == "":
			bad(p+".id", "required", "is required")
		case !endpointID.MatchString(e.ID):
			bad(p+".id", "format", "must be 1-64 lower-case letters, digits, '-' or '_', starting with a letter or digit")
		default:
			if j, dup := ids[e.ID]; dup {
				bad(p+".id", "unique", fmt.Sprintf("is already the id of webhooks[%d]", j))
			}
			ids[e.ID] = i
		}
		if rule, msg := checkURL(e.URL); rule != "" {
			bad(p+".url", rule, msg)
		}
		switch {
		case len(e.Secrets) == 0:
			bad(p+".secrets", "required", "at least one secret is required")
		case len(e.Secrets) > MaxSecrets:
			bad(p+".secrets", "max", fmt.Sprintf("must have at most %d entries (the current secret and the next)", MaxSecrets))
		default:
			seen := map[string]bool{}
			for k, s := range e.Secrets {
				f := fmt.Sprintf("%s.secrets[%d]", p, k)
				if msg := checkSecret(s); msg != "" {
					bad(f, "secret", msg)
					continue
				}
				if seen[s] {
					bad(f, "unique", "is the same secret twice")
				}
				seen[s] = true
			}
		}
		if len(e.Events) == 0 {
			bad(p+".events", "required", "at least one event type is required")
		}
		if len(e.Events) > len(event.Types) {
			bad(p+".events", "max", fmt.Sprintf("must have at most %d entries", len(event.Types)))
			continue
		}
		seen := map[event.Type]bool{}
		for k, t := range e.Events {
			f := fmt.Sprintf("%s.events[%d]", p, k)
			switch {
			case !event.Known(t):
				bad(f, "oneof", "must be one of "+typeList())
			case seen[t]:
				bad(f, "unique", "is listed twice")
			}
			seen[t] = true
		}
	}
	return vs
}

func typeList() string {
	s := make([]string, len(event.Types))
	for i, t := range event.Types {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// checkURL returns the rule and message a URL breaks, or "".
func checkURL(raw string) (rule, msg string) {
	if raw == "" {
		return "required", "is required"
	}
	if utf8.RuneCountInString(raw) > MaxURLLength {
		return "max", fmt.Sprintf("must be at most %d characters long", MaxURLLength)
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "url", "must not contain spaces or control characters"
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return "url", "must be an absolute URL with a host"
	}
	if u.User != nil {
		return "url", "must not carry user information (use the secrets to authenticate)"
	}
	if u.Fragment != "" {
		return "url", "must not have a fragment"
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !loopbackHost(u.Hostname()) {
			return "https", "must be https (http only for a loopback host during development)"
		}
	default:
		return "https", "must be https"
	}
	return "", ""
}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// checkSecret returns why s is not a usable secret, or "".
func checkSecret(s string) string {
	b64, ok := strings.CutPrefix(s, SecretPrefix)
	if !ok {
		return "must start with " + SecretPrefix
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "must be " + SecretPrefix + " followed by standard base64"
	}
	if len(key) < MinSecretBytes || len(key) > MaxSecretBytes {
		return fmt.Sprintf("must hold %d to %d bytes (it holds %d)", MinSecretBytes, MaxSecretBytes, len(key))
	}
	return ""
}

// signers makes the signers of an endpoint's secrets. The secrets must be
// valid.
func signers(secrets []string) ([]*standardwebhooks.Webhook, error) {
	out := make([]*standardwebhooks.Webhook, 0, len(secrets))
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			return nil, err
		}
		out = append(out, wh)
	}
	return out, nil
}
