package httpapi

import (
	"context"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/internal/browsertest"
)

// browserTimeout bounds a whole browser test, Chromium's start included,
// so that a stalled browser fails the test instead of hanging the run.
const browserTimeout = 60 * time.Second

// newBrowser is a headless Chromium for one test (browsertest.New).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.New(t, browserTimeout)
}

// screenshotDir is where a browser test saves its screenshots
// (browsertest.ScreenshotDir).
func screenshotDir(t *testing.T) string { return browsertest.ScreenshotDir(t) }
