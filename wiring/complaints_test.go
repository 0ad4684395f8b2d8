package wiring_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestComplaintsFromTheConfiguration checks what wiring passes to
// returns: the catalog's reasons (the demo's "size"/"too-small" and
// "damaged"), photos kept in the store by default, and download URLs
// signed with the configuration's returns.image_url_secret, so that every
// server of a deployment accepts them.
func TestComplaintsFromTheConfiguration(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	store := memory.New()
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	rs := svcs.Returns
	if _, err := rs.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "1", SKU: "TENT", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "100.00"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := rs.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "1", Quantity: 1, ReasonID: "size", SubReasonID: "too-small",
			Complaint: &returns.ComplaintInput{ReasonID: "damaged"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if rr := ret.Items[0].ReturnReasons[0]; rr.Reason != "Wrong size" || rr.SubReason != "Too small" {
		t.Errorf("reasons %+v", rr)
	}
	token := strings.TrimPrefix(ret.StatusURL, "http://shop.test"+returns.StatusPagePath)
	ret, err = rs.AddComplaintPhotos(ctx, token, 1, returns.ComplaintUpload{Images: []returns.UploadedImage{{Field: "image[0]", Data: []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")}}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(ret.Items[0].CustomerComplaint.Image.DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	exp, _ := strconv.ParseInt(u.Query().Get("expires"), 10, 64)
	m := hmac.New(sha256.New, cfg.ImageURLSecret())
	m.Write([]byte(u.Path + "\x00" + strconv.FormatInt(exp, 10)))
	if got, want := u.Query().Get("signature"), base64.RawURLEncoding.EncodeToString(m.Sum(nil)); got != want {
		t.Errorf("signature %s, want the configured secret's %s", got, want)
	}
	// The photo is in the store: another service on the same store and
	// configuration (a second server) serves it.
	other, err := wiring.New(store, cfg, wiring.Options{Clock: clock, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	uuid := strings.TrimPrefix(u.Path, returns.ComplaintImagePath)
	if img, err := other.Returns.ComplaintPhoto(ctx, uuid, u.Query().Get("expires"), u.Query().Get("signature")); err != nil || img.ContentType != "image/gif" {
		t.Errorf("second server: %v %v", img.ContentType, err)
	}
}
