package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPhotoDir runs the server with -photo-dir and walks a complaint over
// HTTP: the demo catalog's reasons, a photo upload under the status link,
// the photo's signed URL, and the photo as a file in the directory.
func TestPhotoDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "photos")
	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "off", "-photo-dir", dir}, io.Discard, hooks{listening: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("run returned before listening: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	do := func(method, url, contentType, key string, body io.Reader, want int) map[string]any {
		t.Helper()
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d: %s", method, url, resp.StatusCode, want, b)
		}
		var out map[string]any
		json.Unmarshal(b, &out)
		return out
	}
	do("POST", base+"/returns/merchant/order", "application/json", "demo-key", strings.NewReader(`{"foreignId":"A-1","currencyCode":"SEK",
	  "email":"anna@example.com","items":[{"foreignLineItemId":"1","sku":"TENT","quantity":1,"purchasePriceAmount":{"amount":100.00}}]}`), 201)
	ret := do("POST", base+"/returns/customer/return", "application/json", "", strings.NewReader(`{"siteId":"demo-site","foreignOrderId":"A-1",
	  "email":"anna@example.com","items":[{"foreignLineItemId":"1","quantity":1,"reasonId":"size","subReasonId":"too-small",
	  "complaint":{"reasonId":"damaged"}}]}`), 201)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("image", "photo.gif")
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	part.Write(gif)
	w.Close()
	item := do("POST", ret["statusUrl"].(string)+"/items/1/complaint", w.FormDataContentType(), "", &body, 201)
	image, _ := item["customerComplaint"].(map[string]any)["image"].(map[string]any)
	uuid, _ := image["uuid"].(string)
	if got := get(t, image["downloadUrl"].(string), nil); got != 200 {
		t.Errorf("downloadUrl: %d", got)
	}
	if got := get(t, strings.Replace(image["downloadUrl"].(string), "expires=", "expires=1", 1), nil); got != 403 {
		t.Errorf("altered downloadUrl: %d", got)
	}
	stored, err := os.ReadFile(filepath.Join(dir, uuid[:2], uuid))
	if err != nil || !bytes.Equal(stored, gif) {
		t.Errorf("the photo in -photo-dir: %v", err)
	}
	r := do("GET", base+"/returns/merchant/return/"+strconv.Itoa(int(ret["id"].(float64))), "", "demo-key", nil, 200)
	reasons, _ := r["items"].([]any)[0].(map[string]any)["returnReasons"].([]any)
	if len(reasons) != 1 || reasons[0].(map[string]any)["subReason"] != "Too small" {
		t.Errorf("returnReasons %v", reasons)
	}
}
