package reliability

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage"
)

// The fuzz targets below send arbitrary bodies and query strings to every
// endpoint that decodes client input, through the whole stack: the lenient
// JSON decoding, the area's validation, the service and the store. The
// property: never a 5xx (which is also what a panic or an error that is not
// a *deliverykit.Error of a client kind becomes), and a refusal is a 4xx in
// the area's error shape that committed no write. Inputs may name the
// fixture's records with placeholders ({{checkout}}, {{session}}, …) so the
// fuzzer reaches past "not found".
//
// Seed corpora are committed under testdata/fuzz/<FuzzName>/; plain
// `go test` runs them as regression tests. .ci/fuzz.sh fuzzes each target
// briefly.

// fuzzWorld is one fuzzing process's world: built on first use, then
// shared by every input the process runs.
type fuzzWorld struct {
	e *env
	f fixture
	r *strings.Replacer
}

var worlds = map[string]*fuzzWorld{}

func world(t *testing.T, name string) *fuzzWorld {
	if w, ok := worlds[name]; ok {
		w.e.t = t
		return w
	}
	e := newEnv(t, nil)
	f := seed(e)
	w := &fuzzWorld{e: e, f: f, r: strings.NewReplacer(
		"{{checkout}}", f.checkoutID, "{{completed}}", f.completedID, "{{widget}}", f.widgetToken,
		"{{tos}}", f.tosID, "{{tn}}", f.trackingNumber, "{{open_tn}}", f.openParcel, "{{token}}", f.trackingToken,
		"{{ntf}}", f.notificationID, "{{session}}", f.sessionName, "{{done_session}}", f.doneSession,
		"{{order}}", f.returnsOrderID, "{{return}}", f.returnID, "{{refund}}", f.refundID,
		"{{shipment}}", f.shipmentID, "{{delivery}}", f.deliveryID, "{{booked}}", f.bookedID, "{{booked_tn}}", f.bookedTN,
	)}
	worlds[name] = w
	return w
}

// fuzzEndpoint fuzzes the body of one endpoint.
func fuzzEndpoint(f *testing.F, method, path string, header func(fixture) map[string]string, st style) {
	f.Fuzz(func(t *testing.T, body []byte) {
		w := world(t, f.Name())
		target := w.r.Replace(path)
		send(t, w, method, target, header(w.f), st, w.r.Replace(string(body)))
	})
}

// fuzzQuery fuzzes the query string of one endpoint.
func fuzzQuery(f *testing.F, method, path string, header func(fixture) map[string]string, st style) {
	f.Fuzz(func(t *testing.T, query string) {
		if !sendable(query) {
			return // not a request target a client can send
		}
		w := world(t, f.Name())
		send(t, w, method, w.r.Replace(path)+"?"+w.r.Replace(query), header(w.f), st, "")
	})
}

// sendable: s can follow "?" in an HTTP request line (visible ASCII, no
// fragment, valid escapes).
func sendable(s string) bool {
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || c == '#' {
			return false
		}
	}
	_, err := url.ParseQuery(s)
	return err == nil
}

func send(t *testing.T, w *fuzzWorld, method, target string, header map[string]string, st style, body string) {
	before := w.e.store.writes.Load()
	r := w.e.do(method, target, header, body)
	switch {
	case r.status >= 500:
		t.Fatalf("%s %s %q: %d %s\nlog:\n%s", method, target, body, r.status, r.raw, lastLines(w.e.log.String(), 20))
	case r.status >= 400:
		checkShape(t, method+" "+target, st, target, r)
		if n := w.e.store.writes.Load() - before; n != 0 {
			t.Fatalf("%s %s %q: refused with %d but committed %d writes", method, target, body, r.status, n)
		}
	case r.body == nil:
		t.Fatalf("%s %s %q: %d, body not a JSON object: %s", method, target, body, r.status, r.raw)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func rest(fixture) map[string]string   { return site1.rest }
func rpc(fixture) map[string]string    { return site1.rpc }
func spring(fixture) map[string]string { return site1.spring }
func public(fixture) map[string]string { return nil }
func widget(f fixture) map[string]string {
	return map[string]string{"X-Widget-Token": f.widgetToken}
}

func FuzzTrackingOrder(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/delivery_tracking/order", rest, styleREST)
}
func FuzzTrackingParcel(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/delivery_tracking/parcel", rest, styleREST)
}
func FuzzTrackingLink(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/delivery_tracking/generate_tracking_page_link", rest, styleREST)
}
func FuzzTrackingEvent(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/delivery_tracking/parcel.event", rest, styleREST)
}
func FuzzTrackingParcelsQuery(f *testing.F) {
	fuzzQuery(f, "GET", "/v1/delivery_tracking/parcels", rest, styleREST)
}
func FuzzTrackingOrdersQuery(f *testing.F) {
	fuzzQuery(f, "GET", "/v1/delivery_tracking/orders", rest, styleREST)
}
func FuzzNotifyRetrigger(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/delivery_tracking/notification.retrigger", rest, styleREST)
}
func FuzzCheckoutCreate(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/siw/session.create", rest, styleREST)
}
func FuzzCheckoutUpdate(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/siw/session.update", rest, styleREST)
}
func FuzzCheckoutComplete(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/siw/session.complete", rest, styleREST)
}
func FuzzWidgetSelect(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/siw/_/widget/select", widget, styleREST)
}
func FuzzSessionCreate(f *testing.F) {
	fuzzEndpoint(f, "POST", "/delivery/v1/sessions", rpc, styleRPC)
}
func FuzzSessionPatch(f *testing.F) {
	fuzzEndpoint(f, "PATCH", "/delivery/v1/{{session}}", rpc, styleRPC)
}
func FuzzSessionComplete(f *testing.F) {
	fuzzEndpoint(f, "POST", "/delivery/v1/{{session}}:complete", rpc, styleRPC)
}
func FuzzReturnsImportOrder(f *testing.F) {
	fuzzEndpoint(f, "POST", "/returns/merchant/order", spring, styleSpring)
}
func FuzzReturnsItemsReturned(f *testing.F) {
	fuzzEndpoint(f, "POST", "/returns/merchant/items/returned", spring, styleSpring)
}
func FuzzReturnsCustomerReturn(f *testing.F) {
	fuzzEndpoint(f, "POST", "/returns/customer/return", public, styleSpring)
}
func FuzzReturnsListQuery(f *testing.F) {
	fuzzQuery(f, "GET", "/returns/merchant/return", spring, styleSpring)
}
func FuzzReturnsRefundsQuery(f *testing.F) {
	fuzzQuery(f, "GET", "/returns/merchant/refund/transaction", spring, styleSpring)
}

// isClientError: err is a *deliverykit.Error of a kind a client causes.
func isClientError(err error) bool {
	var de *deliverykit.Error
	return errors.As(err, &de) && de.Kind != deliverykit.KindInternal
}

// FuzzParsePageQuery: the returns sort/page parser either accepts a query
// (and then its numbers are in range) or refuses it with InvalidArgument
// naming a parameter.
func FuzzParsePageQuery(f *testing.F) {
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		pr, err := returns.ParsePageQuery(q)
		if err != nil {
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument || len(deliverykit.ViolationsOf(err)) == 0 {
				t.Fatalf("ParsePageQuery(%q): %v", query, err)
			}
			for _, v := range deliverykit.ViolationsOf(err) {
				if v.Field == "" {
					t.Fatalf("ParsePageQuery(%q): a violation without a field: %v", query, err)
				}
			}
			return
		}
		if pr.Page < 0 || pr.Size < 0 {
			t.Fatalf("ParsePageQuery(%q) = %+v: negative page or size", query, pr)
		}
		for _, s := range pr.Sort {
			if s.Field == "" || (s.Direction != returns.Asc && s.Direction != returns.Desc) {
				t.Fatalf("ParsePageQuery(%q): sort %+v", query, s)
			}
		}
	})
}

// FuzzParseLocales: a locale is accepted only in the lc-CC form with a
// region, and a refusal names the list element.
func FuzzParseLocales(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b string) {
		tags, err := options.ParseLocales("locales", []string{a, b})
		if err != nil {
			if !isClientError(err) || len(deliverykit.ViolationsOf(err)) != 1 || !strings.HasPrefix(deliverykit.ViolationsOf(err)[0].Field, "locales[") {
				t.Fatalf("ParseLocales(%q, %q): %v", a, b, err)
			}
			return
		}
		if len(tags) != 2 {
			t.Fatalf("ParseLocales(%q, %q) = %v", a, b, tags)
		}
		for _, tag := range tags {
			if _, conf := tag.Region(); conf == 0 {
				t.Fatalf("ParseLocales(%q, %q): %v has no region", a, b, tag)
			}
		}
	})
}

// FuzzConfigParse: the configuration and catalog loader refuses bad input
// with an InvalidArgument naming the field, and what it accepts is valid
// and survives a round trip through JSON.
func FuzzConfigParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse(bytes.NewReader(data))
		if err != nil {
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("Parse: %v", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		cfg.Keyring()
		cfg.Catalogs()
		out, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		if _, err := config.Parse(bytes.NewReader(out)); err != nil {
			t.Fatalf("a parsed configuration does not parse again: %v\n%s", err, out)
		}
	})
}

// FuzzStorageKeys: integer keys sort as their numbers and parse back;
// composite keys of one tenant never fall under another tenant's prefix.
func FuzzStorageKeys(f *testing.F) {
	f.Fuzz(func(t *testing.T, a, b uint64, siteA, siteB, id string) {
		ka, kb := storage.Uint64Key(a), storage.Uint64Key(b)
		if (a < b) != (ka < kb) || (a == b) != (ka == kb) {
			t.Fatalf("Uint64Key order: %d %d → %q %q", a, b, ka, kb)
		}
		if n, err := storage.ParseUint64Key(ka); err != nil || n != a {
			t.Fatalf("ParseUint64Key(%q) = %d, %v", ka, n, err)
		}
		if siteA == "" || siteB == "" || siteA == siteB || strings.Contains(siteA+siteB, storage.KeySep) {
			return
		}
		if strings.HasPrefix(storage.Key(siteA, id), storage.KeyPrefix(siteB)) {
			t.Fatalf("key of %q under %q's prefix", siteA, siteB)
		}
	})
}

func FuzzShipmentCreate(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/som/shipments.create", rest, styleREST)
}
func FuzzShipmentUpdate(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/som/shipments.update", rest, styleREST)
}
func FuzzShipmentAddParcel(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/som/shipments.addParcel", rest, styleREST)
}
func FuzzShipmentBookPickup(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/som/deliveries.bookPickup", rest, styleREST)
}
func FuzzShipmentDeliveryCancel(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/som/deliveries.cancel", rest, styleREST)
}
func FuzzShipmentConfirmPickup(f *testing.F) {
	fuzzEndpoint(f, "POST", "/v1/som/deliveries.confirmPickup", rest, styleREST)
}
func FuzzShipmentGetQuery(f *testing.F) {
	fuzzQuery(f, "GET", "/v1/som/shipments.get", rest, styleREST)
}
