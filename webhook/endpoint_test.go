package webhook

import (
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	ok := Endpoint{ID: "erp", URL: "https://erp.example.com/hooks", Secrets: []string{secretA}, Events: []event.Type{event.TypeParcelChanged}}
	with := func(f func(*Endpoint)) []Endpoint {
		e := ok
		e.Secrets = append([]string(nil), ok.Secrets...)
		e.Events = append([]event.Type(nil), ok.Events...)
		f(&e)
		return []Endpoint{e}
	}
	many := make([]Endpoint, MaxEndpoints+1)
	for i := range many {
		many[i] = ok
	}
	tests := []struct {
		name      string
		endpoints []Endpoint
		want      []string // field: rule
	}{
		{"valid", []Endpoint{ok}, nil},
		{"none", nil, nil},
		{"two secrets", with(func(e *Endpoint) { e.Secrets = []string{secretA, secretB} }), nil},
		{"every type", with(func(e *Endpoint) { e.Events = event.Types }), nil},
		{"http on 127.0.0.1", with(func(e *Endpoint) { e.URL = "http://127.0.0.1:9000/hooks" }), nil},
		{"http on localhost", with(func(e *Endpoint) { e.URL = "http://localhost:9000/hooks" }), nil},
		{"http on [::1]", with(func(e *Endpoint) { e.URL = "http://[::1]:9000/hooks" }), nil},
		{"too many", many, []string{"webhooks: max"}},
		{"no id", with(func(e *Endpoint) { e.ID = "" }), []string{"webhooks[0].id: required"}},
		{"bad id", with(func(e *Endpoint) { e.ID = "ERP/1" }), []string{"webhooks[0].id: format"}},
		{"duplicate id", append([]Endpoint{ok}, ok), []string{"webhooks[1].id: unique"}},
		{"no url", with(func(e *Endpoint) { e.URL = "" }), []string{"webhooks[0].url: required"}},
		{"http elsewhere", with(func(e *Endpoint) { e.URL = "http://erp.example.com/hooks" }), []string{"webhooks[0].url: https"}},
		{"http on a private address", with(func(e *Endpoint) { e.URL = "http://10.0.0.5/hooks" }), []string{"webhooks[0].url: https"}},
		{"other scheme", with(func(e *Endpoint) { e.URL = "ftp://erp.example.com/hooks" }), []string{"webhooks[0].url: https"}},
		{"relative", with(func(e *Endpoint) { e.URL = "/hooks" }), []string{"webhooks[0].url: url"}},
		{"user information", with(func(e *Endpoint) { e.URL = "https://shop@evil.example/hooks" }), []string{"webhooks[0].url: url"}},
		{"fragment", with(func(e *Endpoint) { e.URL = "https://erp.example.com/hooks#x" }), []string{"webhooks[0].url: url"}},
		{"space", with(func(e *Endpoint) { e.URL = "https://erp.example.com/ho oks" }), []string{"webhooks[0].url: url"}},
		{"long url", with(func(e *Endpoint) { e.URL = "https://erp.example.com/" + strings.Repeat("a", MaxURLLength) }), []string{"webhooks[0].url: max"}},
		{"no secret", with(func(e *Endpoint) { e.Secrets = nil }), []string{"webhooks[0].secrets: required"}},
		{"three secrets", with(func(e *Endpoint) { e.Secrets = []string{secretA, secretB, vectorSecret} }), []string{"webhooks[0].secrets: max"}},
		{"no prefix", with(func(e *Endpoint) { e.Secrets = []string{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"} }), []string{"webhooks[0].secrets[0]: secret"}},
		{"not base64", with(func(e *Endpoint) { e.Secrets = []string{"whsec_not base64!"} }), []string{"webhooks[0].secrets[0]: secret"}},
		{"short secret", with(func(e *Endpoint) { e.Secrets = []string{"whsec_c2hvcnQ="} }), []string{"webhooks[0].secrets[0]: secret"}},
		{"same secret twice", with(func(e *Endpoint) { e.Secrets = []string{secretA, secretA} }), []string{"webhooks[0].secrets[1]: unique"}},
		{"no events", with(func(e *Endpoint) { e.Events = nil }), []string{"webhooks[0].events: required"}},
		{"unknown event", with(func(e *Endpoint) { e.Events = []event.Type{"parcel.exploded"} }), []string{"webhooks[0].events[0]: oneof"}},
		{"event twice", with(func(e *Endpoint) { e.Events = []event.Type{event.TypeParcelChanged, event.TypeParcelChanged} }), []string{"webhooks[0].events[1]: unique"}},
		{"too many events", with(func(e *Endpoint) { e.Events = append(event.Types, event.TypeParcelChanged) }), []string{"webhooks[0].events: max"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range deliverykit.ViolationsOf(Validate(tt.endpoints)) {
				got = append(got, v.Field+": "+v.Rule)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRefusesInvalidEndpoints(t *testing.T) {
	_, err := New(backends[0].open(t), Options{Endpoints: map[string][]Endpoint{
		"site-b": {{ID: "x", URL: "http://erp.example.com", Secrets: []string{secretA}, Events: event.Types}},
		"site-a": {{ID: "", URL: "https://erp.example.com", Secrets: []string{secretA}, Events: event.Types}},
	}})
	var got []string
	for _, v := range deliverykit.ViolationsOf(err) {
		got = append(got, v.Field+": "+v.Rule)
	}
	if diff := cmp.Diff([]string{"site-a.webhooks[0].id: required", "site-b.webhooks[0].url: https"}, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}
