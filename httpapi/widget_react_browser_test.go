package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/deliverykit/deliverykit/checkout"
)

// reactFrontEnd is what a React front-end does with html_snippet: it sets
// it as a wrapper's innerHTML (scripts inserted so do not run), re-creates
// the script nodes under the widget's container only (replaceScriptNode
// below is the helper such front-ends carry), and at once, in the same
// task, subscribes through the widget's global. mount(n) does that for
// snippets[n] with the names of names[n].
const reactFrontEnd = `
window.events = {};
function isScriptNode(node) { return node.tagName === "SCRIPT"; }
function cloneScriptNode(node) {
  var script = document.createElement("script");
  script.text = node.innerHTML;
  for (var i = node.attributes.length - 1; i >= 0; i--) script.setAttribute(node.attributes[i].name, node.attributes[i].value);
  return script;
}
function replaceScriptNode(node) {
  if (isScriptNode(node)) {
    node.parentNode.replaceChild(cloneScriptNode(node), node);
  } else {
    var i = -1, children = node.childNodes;
    while (++i < children.length) replaceScriptNode(children[i]);
  }
  return node;
}
window.mount = function (n) {
  var wrapper = document.createElement("section");
  document.body.appendChild(wrapper);
  wrapper.innerHTML = snippets[n];
  replaceScriptNode(document.getElementById(names[n].container));
  var log = events[names[n].object] = [];
  window[names[n].object](function (api) {
    api.on("data_changed", function (data, meta) { log.push({data: data, meta: meta}); });
  });
};
`

// reactPage serves a merchant page that mounts the snippets as a React
// front-end does, under a Content-Security-Policy that allows the page's
// own script and the widget's bootstrap by their hashes and the widget's
// origin: the re-created bootstrap must match the documented hash. It
// returns the page's URL; mountNow lists the snippets the page mounts as
// it loads, the others are left for the test to mount.
func reactPage(t *testing.T, apiURL string, snippets []string, names []map[string]string, mountNow []int) string {
	t.Helper()
	sj, _ := json.Marshal(snippets)
	nj, _ := json.Marshal(names)
	script := "var snippets = " + string(sj) + ";\nvar names = " + string(nj) + ";\n" + reactFrontEnd
	for _, n := range mountNow {
		script += fmt.Sprintf("mount(%d);\n", n)
	}
	sum := sha256.Sum256([]byte(script))
	policy := fmt.Sprintf("script-src 'sha256-%s' %s %s; connect-src %s", base64.StdEncoding.EncodeToString(sum[:]),
		checkout.BootstrapScriptHash, apiURL, apiURL)
	page := `<!doctype html><html lang="sv"><head><meta charset="utf-8"><title>Kassa</title></head><body><h1>Checkout</h1><script>` +
		script + `</script></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", policy)
		fmt.Fprint(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// widgetOptions reads a session's widget state as its widget does: the
// chosen option and every option's price.
func widgetOptions(t *testing.T, apiURL, token string) (selected string, prices map[string]float64) {
	t.Helper()
	req, err := http.NewRequest("GET", apiURL+"/v1/siw/_/widget/state", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(widgetTokenHeader, token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st checkout.WidgetState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != 200 {
		t.Fatalf("widget state: %d %v", resp.StatusCode, err)
	}
	prices = map[string]float64{}
	for _, c := range st.Categories {
		for _, o := range c.Options {
			prices[o.ID] = float64(o.Price)
		}
	}
	return st.Selected, prices
}

// otherPrice is an option whose price is not the chosen one's.
func otherPrice(t *testing.T, selected string, prices map[string]float64) string {
	t.Helper()
	for id, p := range prices {
		if p != prices[selected] {
			return id
		}
	}
	t.Fatalf("every option costs %v: no choice changes the price", prices[selected])
	return ""
}

// TestWidgetReactFrontEnd: the snippet works for a front-end that inserts
// it with innerHTML and re-creates only the scripts under the container,
// then calls the global at once — with the default names, and with two
// widgets of different snippet_configuration on one page, the second
// mounted after the widget script has loaded. No script fails, each
// widget renders its options, and a choice that changes the price fires
// data_changed with meta.price_changed at its own widget's handlers only.
func TestWidgetReactFrontEnd(t *testing.T) {
	api := newWidgetAPI(t)
	doc := checkoutAPI(t)

	t.Run("default names", func(t *testing.T) {
		created := siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.create", siwCreate)
		names := []map[string]string{{"container": checkout.DefaultContainerID, "object": checkout.DefaultObjectID}}
		url := reactPage(t, api.URL, []string{created["html_snippet"].(string)}, names, []int{0})
		b := newReactBrowser(t)
		b.navigate(url, "#shipwallet-container input[type=radio]")
		b.chooseAnotherPrice(api.URL, created["token"].(string), "_sw", "#shipwallet-container")
		b.noProblems()
	})

	t.Run("two widgets", func(t *testing.T) {
		var snippets []string
		var tokens []string
		var names []map[string]string
		for n := 1; n <= 2; n++ {
			cfg := fmt.Sprintf(`"snippet_configuration": {"container_id": "widget-container-%d", "object_id": "widget_%d"}, "locales"`, n, n)
			created := siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.create", strings.Replace(siwCreate, `"locales"`, cfg, 1))
			snippets = append(snippets, created["html_snippet"].(string))
			tokens = append(tokens, created["token"].(string))
			names = append(names, map[string]string{"container": fmt.Sprintf("widget-container-%d", n), "object": fmt.Sprintf("widget_%d", n)})
		}
		url := reactPage(t, api.URL, snippets, names, []int{0})
		b := newReactBrowser(t)
		b.navigate(url, "#widget-container-1 input[type=radio]")
		// The widget script has loaded: the second snippet's bootstrap
		// hands its container to it at once.
		b.eval(`mount(1), true`)
		b.wait("#widget-container-2 input[type=radio]")
		if got := b.eval(`[document.querySelectorAll("#widget-container-1 .dk-widget, #widget-container-1.dk-widget").length,
			document.querySelectorAll("#widget-container-2.dk-widget").length, document.querySelectorAll(".dk-widget").length]`); fmt.Sprint(got) != "[1 1 2]" {
			t.Errorf("widgets per container: %v, want one each", got)
		}
		b.chooseAnotherPrice(api.URL, tokens[0], "widget_1", "#widget-container-1")
		if n := b.eval(`events.widget_2.length`); n != float64(1) {
			t.Errorf("widget_2's handler heard %v events after a choice in widget 1, want its initial load only", n)
		}
		b.chooseAnotherPrice(api.URL, tokens[1], "widget_2", "#widget-container-2")
		if n := b.eval(`events.widget_1.length`); n != float64(2) {
			t.Errorf("widget_1's handler heard %v events after a choice in widget 2, want 2", n)
		}
		b.noProblems()
	})
}

// reactBrowser is a browser tab that records the page's problems: its
// uncaught exceptions, console errors and the browser's error log (where a
// script the policy refused is reported).
type reactBrowser struct {
	t        *testing.T
	ctx      context.Context
	run      func(actions ...chromedp.Action[chromedp.Void]) error
	eval     func(expr string) any
	mu       sync.Mutex
	problems []string
}

func newReactBrowser(t *testing.T) *reactBrowser {
	t.Helper()
	ctx := newBrowser(t)
	b := &reactBrowser{t: t, ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			text := d.Text
			if d.Exception != nil {
				text += " " + d.Exception.Description
			}
			b.problems = append(b.problems, "exception: "+text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.problems = append(b.problems, "console error: "+strings.Join(args, " "))
			}
		case *log.EventEntryAdded:
			// The demo catalog's logo is on a host tests cannot reach;
			// the widget then shows the shop's name (its own test).
			if ev.Entry.Level == log.EntryLevelError && !strings.HasPrefix(ev.Entry.URL, "https://shop.example/") {
				b.problems = append(b.problems, "browser log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	b.run = func(actions ...chromedp.Action[chromedp.Void]) error { return chromedp.Do(ctx, actions...) }
	b.eval = func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v (page problems: %v)", expr, err, b.seen())
		}
		return v
	}
	return b
}

func (b *reactBrowser) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

func (b *reactBrowser) navigate(url, ready string) {
	b.t.Helper()
	if err := b.run(chromedp.Navigate(url)); err != nil {
		b.t.Fatal(err)
	}
	b.wait(ready)
}

// wait waits for an element to show, failing at once with the page's
// problems if it does not.
func (b *reactBrowser) wait(sel string) {
	b.t.Helper()
	if err := b.run(chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		b.t.Fatalf("waiting for %s: %v (page problems: %v)", sel, err, b.seen())
	}
}

// events waits until object's handler has heard n data_changed events and
// returns the last.
func (b *reactBrowser) events(object string, n int) map[string]any {
	b.t.Helper()
	cond := fmt.Sprintf(`(events[%q] || []).length >= %d`, object, n)
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		b.t.Fatalf("waiting for %s's data_changed #%d: %v (events %v, page problems %v)", object, n, err, b.eval(`JSON.stringify(events)`), b.seen())
	}
	e, _ := b.eval(fmt.Sprintf(`events[%q][%d]`, object, n-1)).(map[string]any)
	return e
}

// chooseAnotherPrice checks the initial data_changed of the widget in
// container, clicks an option of another price and checks the
// data_changed it fires.
func (b *reactBrowser) chooseAnotherPrice(apiURL, token, object, container string) {
	b.t.Helper()
	first := b.events(object, 1)
	if jsonPath(first, "meta.initial_load") != true {
		b.t.Errorf("%s: first data_changed %v, want initial_load", object, first["meta"])
	}
	selected, prices := widgetOptions(b.t, apiURL, token)
	pick := otherPrice(b.t, selected, prices)
	if err := b.run(chromedp.Click(chromedp.CSS(fmt.Sprintf(`%s input[value=%q]`, container, pick)))); err != nil {
		b.t.Fatal(err)
	}
	after := b.events(object, 2)
	if jsonPath(after, "meta.price_changed") != true || jsonPath(after, "meta.initial_load") != false || jsonPath(after, "data.price") != prices[pick] {
		b.t.Errorf("%s: data_changed after choosing %s (%v, was %v): %v", object, pick, prices[pick], prices[selected], after)
	}
}

func (b *reactBrowser) noProblems() {
	b.t.Helper()
	if p := b.seen(); len(p) > 0 {
		b.t.Errorf("the page had problems: %v", p)
	}
}
