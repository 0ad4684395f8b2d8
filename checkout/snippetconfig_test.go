package checkout

import (
	"errors"
	"strings"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

// snippetViolation is what a request with a snippet_configuration gets
// back: the field named, or nothing.
type snippetViolation struct{ Field, Rule string }

func snippetViolations(err error) []snippetViolation {
	var out []snippetViolation
	for _, v := range deliverykit.ViolationsOf(err) {
		out = append(out, snippetViolation{v.Field, v.Rule})
	}
	return out
}

// The names a session may give its container and global: safe HTML ids and
// JavaScript identifiers that are no reserved word and no global the page
// relies on; anything else is InvalidArgument naming the field, on every
// request that takes a configuration.
func TestSnippetConfigurationValidation(t *testing.T) {
	containerBad := []snippetViolation{{"snippet_configuration.container_id", "checkout_html_id"}}
	objectBad := []snippetViolation{{"snippet_configuration.object_id", "checkout_js_name"}}
	for _, tc := range []struct {
		name string
		cfg  SnippetConfiguration
		want []snippetViolation
	}{
		{"empty: the defaults", SnippetConfiguration{}, nil},
		{"the defaults spelled out", SnippetConfiguration{ContainerID: "shipwallet-container", ObjectID: "_sw"}, nil},
		{"two widgets' names", SnippetConfiguration{ContainerID: "widget-container-1", ObjectID: "widget_1"}, nil},
		{"dollar and underscore", SnippetConfiguration{ContainerID: "W_2", ObjectID: "$dk_2"}, nil},
		{"64 characters", SnippetConfiguration{ContainerID: "a" + strings.Repeat("b", 63), ObjectID: "a" + strings.Repeat("b", 63)}, nil},
		{"on without a lower-case rest", SnippetConfiguration{ObjectID: "onDelivery"}, nil},
		{"65 characters", SnippetConfiguration{ContainerID: strings.Repeat("a", 65), ObjectID: strings.Repeat("a", 65)},
			[]snippetViolation{{"snippet_configuration.container_id", "max"}, {"snippet_configuration.object_id", "max"}}},
		{"id starting with a digit", SnippetConfiguration{ContainerID: "1widget"}, containerBad},
		{"id starting with a dash", SnippetConfiguration{ContainerID: "-widget"}, containerBad},
		{"id with a quote", SnippetConfiguration{ContainerID: `w"><script>`}, containerBad},
		{"id with a space", SnippetConfiguration{ContainerID: "widget 1"}, containerBad},
		{"id with a dot", SnippetConfiguration{ContainerID: "widget.1"}, containerBad},
		{"id not ASCII", SnippetConfiguration{ContainerID: "widgetö"}, containerBad},
		{"object with a dash", SnippetConfiguration{ObjectID: "widget-1"}, objectBad},
		{"object starting with a digit", SnippetConfiguration{ObjectID: "1widget"}, objectBad},
		{"object with a dot", SnippetConfiguration{ObjectID: "a.b"}, objectBad},
		{"object with a call", SnippetConfiguration{ObjectID: "alert(1)"}, objectBad},
		{"reserved word", SnippetConfiguration{ObjectID: "function"}, objectBad},
		{"reserved word: class", SnippetConfiguration{ObjectID: "class"}, objectBad},
		{"window", SnippetConfiguration{ObjectID: "window"}, objectBad},
		{"document", SnippetConfiguration{ObjectID: "document"}, objectBad},
		{"eval", SnippetConfiguration{ObjectID: "eval"}, objectBad},
		{"constructor", SnippetConfiguration{ObjectID: "constructor"}, objectBad},
		{"__proto__", SnippetConfiguration{ObjectID: "__proto__"}, objectBad},
		{"location", SnippetConfiguration{ObjectID: "location"}, objectBad},
		{"fetch", SnippetConfiguration{ObjectID: "fetch"}, objectBad},
		{"the widget's own global", SnippetConfiguration{ObjectID: "deliverykitCheckout"}, objectBad},
		{"an event handler property", SnippetConfiguration{ObjectID: "onload"}, objectBad},
		{"another event handler property", SnippetConfiguration{ObjectID: "onerror"}, objectBad},
		{"both", SnippetConfiguration{ContainerID: "#c", ObjectID: "top"}, append(containerBad, objectBad...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			cfg := tc.cfg
			create := createRequest()
			create.SnippetConfiguration = &cfg
			v, err := f.svc.Create(ctx, "demo-site", create)
			if diff := cmp.Diff(tc.want, snippetViolations(err)); diff != "" {
				t.Fatalf("create: violations (-want +got):\n%s", diff)
			}
			if tc.want != nil && !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Errorf("create: %v, want InvalidArgument", err)
			}
			if tc.want == nil {
				container, object := cfg.names()
				if !strings.Contains(v.HTMLSnippet, `<div id="`+container+`"`) || !strings.Contains(v.HTMLSnippet, `data-deliverykit-object="`+object+`"`) {
					t.Errorf("create's snippet does not carry %s / %s: %s", container, object, v.HTMLSnippet)
				}
				return
			}
			// The other requests that take a configuration check it alike.
			plain, err := f.svc.Create(ctx, "demo-site", createRequest())
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.svc.Update(ctx, "demo-site", UpdateRequest{ID: plain.Session.ID, SnippetConfiguration: &cfg})
			if diff := cmp.Diff(tc.want, snippetViolations(err)); diff != "" {
				t.Errorf("update: violations (-want +got):\n%s", diff)
			}
			_, err = f.svc.CreateFromOrder(ctx, "demo-site", CreateFromOrderRequest{TosID: "tos_x", SnippetConfiguration: &cfg})
			if diff := cmp.Diff(tc.want, snippetViolations(err)); diff != "" {
				t.Errorf("createFromOrder: violations (-want +got):\n%s", diff)
			}
			_, err = f.svc.CreateCheckout(ctx, "demo-site", CheckoutCreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK",
				Locales: []string{"sv-SE"}, Cart: gen2Request().Cart, SnippetConfiguration: &cfg})
			if diff := cmp.Diff(tc.want, snippetViolations(err)); diff != "" {
				t.Errorf("newer generation's create: violations (-want +got):\n%s", diff)
			}
			_, err = f.svc.UpdateCheckout(ctx, "demo-site", CheckoutUpdateRequest{CheckoutSessionID: plain.Session.ID, SnippetConfiguration: &cfg})
			if diff := cmp.Diff(tc.want, snippetViolations(err)); diff != "" {
				t.Errorf("newer generation's update: violations (-want +got):\n%s", diff)
			}
		})
	}
}

// A session's configuration is in every snippet it answers: create, get,
// update (which may replace it), the newer generation's get and pull, and
// a session created from its order (unless that names its own).
func TestSnippetConfigurationEchoed(t *testing.T) {
	f := newFixture(t)
	one := SnippetConfiguration{ContainerID: "widget-container-1", ObjectID: "widget_1"}
	two := SnippetConfiguration{ContainerID: "widget-container-2", ObjectID: "widget_2"}
	req := createRequest()
	req.SnippetConfiguration = &one
	created, err := f.svc.Create(ctx, "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	id := created.Session.ID
	names := func(snippet string) SnippetConfiguration {
		t.Helper()
		var got SnippetConfiguration
		for _, attr := range []struct {
			name string
			to   *string
		}{{` id="`, &got.ContainerID}, {` data-deliverykit-object="`, &got.ObjectID}} {
			_, rest, ok := strings.Cut(snippet, attr.name)
			if !ok {
				t.Fatalf("no%s in %s", attr.name, snippet)
			}
			*attr.to, _, _ = strings.Cut(rest, `"`)
		}
		return got
	}
	step := func(name string, snippet string, err error, want SnippetConfiguration) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, names(snippet)); diff != "" {
			t.Errorf("%s: snippet names (-want +got):\n%s", name, diff)
		}
	}
	step("create", created.HTMLSnippet, nil, one)
	got, err := f.svc.Get(ctx, "demo-site", id)
	step("get", got.HTMLSnippet, err, one)
	// An update without a configuration keeps it.
	updated, err := f.svc.Update(ctx, "demo-site", UpdateRequest{ID: id, ExternalID: "web-1"})
	step("update without", updated.HTMLSnippet, err, one)
	cv, err := f.svc.GetCheckout(ctx, "demo-site", id, "")
	step("newer generation's get", cv.HTMLSnippet, err, one)
	cv, err = f.svc.PullCheckout(ctx, "demo-site", id)
	step("newer generation's pull", cv.HTMLSnippet, err, one)
	updated, err = f.svc.Update(ctx, "demo-site", UpdateRequest{ID: id, SnippetConfiguration: &two})
	step("update with", updated.HTMLSnippet, err, two)
	got, err = f.svc.Get(ctx, "demo-site", id)
	step("get after the update", got.HTMLSnippet, err, two)
	cv, err = f.svc.UpdateCheckout(ctx, "demo-site", CheckoutUpdateRequest{CheckoutSessionID: id, SnippetConfiguration: &SnippetConfiguration{}})
	step("newer generation's update to the defaults", cv.HTMLSnippet, err, SnippetConfiguration{ContainerID: DefaultContainerID, ObjectID: DefaultObjectID})
	if _, err := f.svc.Update(ctx, "demo-site", UpdateRequest{ID: id, SnippetConfiguration: &one}); err != nil {
		t.Fatal(err)
	}
	done, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: id, Customer: &Customer{Email: "e@example.com", Address: &CustomerAddress{Name: "Eva", PostalCode: "111 57", Country: "SE"}}})
	if err != nil {
		t.Fatal(err)
	}
	clone, err := f.svc.CreateFromOrder(ctx, "demo-site", CreateFromOrderRequest{TosID: done.TosID, ExternalID: "web-2"})
	step("createFromOrder without", clone.HTMLSnippet, err, one)
	clone, err = f.svc.CreateFromOrder(ctx, "demo-site", CreateFromOrderRequest{TosID: done.TosID, ExternalID: "web-3", SnippetConfiguration: &two})
	step("createFromOrder with", clone.HTMLSnippet, err, two)
	cc, err := f.svc.CreateCheckout(ctx, "demo-site", CheckoutCreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK",
		Locales: []string{"sv-SE"}, Cart: gen2Request().Cart, SnippetConfiguration: &two})
	step("newer generation's create", cc.HTMLSnippet, err, two)
}

// A record written before sessions had a configuration (schema 3, without
// the member) reads with the default names, and the defaults are not
// written: such a record stored again is unchanged but for its schema.
func TestSnippetRecordWithoutConfiguration(t *testing.T) {
	old := []byte(`{"schema":3,"id":"siw_000001","site":"demo-site","status":"ACTIVE","country":"SE","currency":"SEK",` +
		`"cart":{"total_value":100},"options_for":{"country":"SE"},"widget_token":"wt_000002","created_at":"2026-11-19T10:00:00Z",` +
		`"updated_at":"2026-11-19T10:00:00Z","expires_at":"2026-11-19T11:00:00Z","revision":1}`)
	var rec storedSession
	if err := gojson.Unmarshal(old, &rec); err != nil {
		t.Fatal(err)
	}
	r, err := loadStoredSession(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if r.Snippet != (SnippetConfiguration{}) {
		t.Errorf("configuration read from a record without one: %+v", r.Snippet)
	}
	container, object := r.Snippet.names()
	if container != DefaultContainerID || object != DefaultObjectID {
		t.Errorf("names %q, %q, want the defaults", container, object)
	}
	b, err := gojson.Marshal(storeSession(&r))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(old), `"schema":3`, `"schema":4`, 1)
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("stored again (-old with schema 4 +now):\n%s", diff)
	}
	// A configuration is stored and read back.
	r.Snippet = SnippetConfiguration{ContainerID: "widget-container-1", ObjectID: "widget_1"}
	b, err = gojson.Marshal(storeSession(&r))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"snippet_configuration":{"container_id":"widget-container-1","object_id":"widget_1"}`) {
		t.Errorf("stored as %s", b)
	}
	var again storedSession
	if err := gojson.Unmarshal(b, &again); err != nil {
		t.Fatal(err)
	}
	back, err := loadStoredSession(&again)
	if err != nil {
		t.Fatal(err)
	}
	if back.Snippet != r.Snippet {
		t.Errorf("read back %+v, want %+v", back.Snippet, r.Snippet)
	}
}
