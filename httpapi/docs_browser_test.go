package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// redocLogo is the image Redoc's sidebar links from its makers' site; the
// reference pages' policy blocks it and Redoc then leaves it out.
const redocLogo = "https://cdn.redoc.ly/redoc/logo-mini.svg"

// TestDocsReferenceInBrowser opens the reference list and every
// document's reference page in Chromium, saves a screenshot of each, and
// checks that Redoc rendered the document (its title and every
// operation's summary show), that no script failed, and that the pages
// asked nothing of any other origin. The one thing the policy blocks is
// the logo Redoc links from its own site, which it then hides.
func TestDocsReferenceInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	dir := screenshotDir(t)
	s, _ := newTestServer(t, docsTestServices(t))
	srv := httptest.NewServer(s.handler)
	defer srv.Close()

	var mu sync.Mutex
	var problems []string
	requests := map[network.RequestID]string{} // URLs by request
	blocked := map[network.RequestID]bool{}    // the requests the policy stopped
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests[ev.RequestID] = ev.Request.URL
		case *network.EventLoadingFailed:
			if ev.BlockedReason == network.BlockedReasonCsp {
				blocked[ev.RequestID] = true
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, "console error: "+strings.Join(args, " "))
			}
		case *log.EventEntryAdded:
			// The policy's own report of the logo it blocks is
			// expected (see below); anything else is a problem.
			if ev.Entry.Level == log.EntryLevelError && !strings.Contains(ev.Entry.Text, redocLogo) {
				problems = append(problems, "browser log: "+ev.Entry.Text)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Violations of the page's policy, recorded by the page itself (a
	// script added by the browser, which the policy does not govern).
	const recordViolations = `window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: recordViolations}); err != nil {
		t.Fatal(err)
	}

	shot := func(t *testing.T, name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// checkPage fails on what went wrong on the page. The reference
	// pages run Redoc, whose logo the policy blocks (which shows the
	// recording works).
	checkPage := func(t *testing.T, redoc bool) {
		t.Helper()
		violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__violations`))
		if err != nil {
			t.Fatal(err)
		}
		logo := false
		for _, v := range violations {
			if v != "img-src "+redocLogo {
				t.Errorf("the policy blocked %s", v)
			}
			logo = true
		}
		if logo != redoc {
			t.Errorf("the policy blocked Redoc's logo: %v, want %v", logo, redoc)
		}
		mu.Lock()
		defer mu.Unlock()
		for id, u := range requests {
			local := strings.HasPrefix(u, srv.URL+"/") || strings.HasPrefix(u, "blob:"+srv.URL+"/") || strings.HasPrefix(u, "data:")
			if !local && !(u == redocLogo && blocked[id]) {
				t.Errorf("the page requested %s (blocked by the policy: %v)", u, blocked[id])
			}
		}
		for _, p := range problems {
			t.Error(p)
		}
		clear(requests)
		clear(blocked)
		problems = nil
	}

	t.Run("list", func(t *testing.T) {
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(1280, 900),
			chromedp.Navigate(srv.URL+"/openapi/reference"),
			chromedp.WaitVisible(chromedp.CSS(`ul.docs`)),
		); err != nil {
			t.Fatal(err)
		}
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range apiDocuments {
			if info := apiDocumentInfos()[d.name]; !strings.Contains(text, d.label) || !strings.Contains(text, info.Title) {
				t.Errorf("the list does not show %s (%s)", d.label, info.Title)
			}
		}
		shot(t, "docs-list.png")
		checkPage(t, false)
	})
	for _, d := range apiDocuments {
		t.Run(d.name, func(t *testing.T) {
			if err := chromedp.Do(ctx,
				chromedp.Navigate(srv.URL+"/openapi/reference/"+d.name),
				chromedp.WaitVisible(chromedp.CSS(`#redoc .api-content h1`)),
			); err != nil {
				t.Fatal(err)
			}
			title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#redoc .api-content h1`)))
			if err != nil {
				t.Fatal(err)
			}
			text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#redoc .api-content").innerText`))
			if err != nil {
				t.Fatal(err)
			}
			info := apiDocumentInfos()[d.name]
			if !strings.HasPrefix(title, info.Title) {
				t.Errorf("title %q, want %q", title, info.Title)
			}
			var doc struct {
				Paths map[string]map[string]json.RawMessage
			}
			if err := json.Unmarshal(d.body, &doc); err != nil {
				t.Fatal(err)
			}
			for path, item := range doc.Paths {
				for method, raw := range item {
					var op struct{ Summary string }
					if json.Unmarshal(raw, &op) != nil || op.Summary == "" {
						continue // path-level parameters
					}
					// Redoc shows a summary as the operation's
					// heading; markdown may change its
					// punctuation, so the first words suffice.
					words := strings.Fields(op.Summary)
					if want := strings.Join(words[:min(4, len(words))], " "); !strings.Contains(text, want) {
						t.Errorf("%s %s: the page does not show %q", method, path, want)
					}
				}
			}
			shot(t, "docs-"+d.name+".png")
			checkPage(t, true)
		})
	}
}
