// Package browsertest starts headless Chromium for the module's browser
// tests: the pages, the widget and the demo shop are driven as a shopper's
// browser drives them.
package browsertest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is where Debian installs Chromium, here and in CI.
const ChromiumPath = "/usr/bin/chromium"

// New starts headless Chromium with a fresh profile for one test and
// returns a context driving its first tab, bounded by timeout so that a
// stalled browser fails the test instead of hanging the run; everything
// is shut down when the test ends. Without Chromium the test is skipped,
// unless DELIVERYKIT_REQUIRE_BROWSER=1 (as in CI) makes that a failure.
func New(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		if os.Getenv("DELIVERYKIT_REQUIRE_BROWSER") == "1" {
			t.Fatalf("DELIVERYKIT_REQUIRE_BROWSER=1 but %s is missing: %v", ChromiumPath, err)
		}
		t.Skipf("browser test skipped: %s is not installed (set DELIVERYKIT_REQUIRE_BROWSER=1 to make this a failure)", ChromiumPath)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	// The machines running these tests have no outside network: without
	// the disable-* flags Chromium stalls on its own background
	// connections. A small /dev/shm (containers) would crash its tabs.
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(ChromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	return bctx
}

// ScreenshotDir is where browser tests save what a person would see:
// $DELIVERYKIT_SCREENSHOTS when set (created if missing), else a
// temporary directory of the test.
func ScreenshotDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("DELIVERYKIT_SCREENSHOTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
