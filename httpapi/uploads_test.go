package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// newUploadsServer is newComplaintsServer with upload limits and a photo
// store of the test's, and a return whose line 1 has a complaint; it
// answers the line's upload path.
func newUploadsServer(t *testing.T, lim UploadLimits, blobs returns.Blobs) (*server, string) {
	t.Helper()
	svc := returns.New(memory.New(), returns.Options{
		Clock: deliverykit.NewManualClock(testTime), IDs: &deliverykit.SequentialIDs{},
		Policies: returns.StaticPolicies{"demo-site": {WindowDays: 30}},
		Reasons:  complaintReasons, Blobs: blobs,
		PublicURL: "http://127.0.0.1:8080", ImageURLSecret: bytes.Repeat([]byte{7}, 32),
	})
	ctx := t.Context()
	if _, err := svc.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "L1", SKU: "X", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "10"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1, Complaint: &returns.ComplaintInput{ReasonID: "damaged"}}}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, Options{Returns: svc, Uploads: lim})
	return s, strings.TrimPrefix(ret.StatusURL, "http://127.0.0.1:8080") + "/items/1/complaint"
}

// readRecorder is a body that records whether it was read.
type readRecorder struct {
	r    io.Reader
	read bool
}

func (b *readRecorder) Read(p []byte) (int, error) {
	b.read = true
	return b.r.Read(p)
}

// TestUploadRefusedBeforeBody: an upload nobody wants is answered without
// a byte of its body read, and the connection is not kept for the rest
// of it: a stranger's token, an unknown line, an address with its uploads
// in progress, a full budget.
func TestUploadRefusedBeforeBody(t *testing.T) {
	s, path := newUploadsServer(t, UploadLimits{}, &returns.MemoryBlobs{})
	ct, body := multipartBody(t, nil, formFile{"image", "a.png", "image/png", testPNG(t, 8, 8)})
	tests := []struct {
		name        string
		target      string
		hold        func() (undo func())
		status      int
		retryAfter  string
		messagePart string
	}{
		{name: "unknown token", target: returns.StatusPagePath + "rt_unknown/items/1/complaint", status: 404, messagePart: "not found"},
		{name: "unknown line", target: strings.Replace(path, "/items/1/", "/items/9/", 1), status: 404, messagePart: "not found"},
		{name: "address has its uploads in progress", target: path, status: 429, retryAfter: "5", messagePart: "too many uploads from this address",
			hold: func() func() {
				key := addressKey(parseAddr("192.0.2.1"))
				s.uploads.enter(key)
				s.uploads.enter(key)
				return func() { s.uploads.leave(key); s.uploads.leave(key) }
			}},
		{name: "budget full", target: path, status: 503, retryAfter: "5", messagePart: "too many uploads in progress",
			hold: func() func() {
				s.uploads.reserve(s.uploads.budget - int64(body.Len()) + 1)
				return func() { s.uploads.release(s.uploads.budget - int64(body.Len()) + 1) }
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.hold != nil {
				defer tc.hold()()
			}
			rb := &readRecorder{r: bytes.NewReader(body.Bytes())}
			req := httptest.NewRequest("POST", tc.target, rb)
			req.RemoteAddr = "192.0.2.1:1234"
			req.ContentLength = int64(body.Len())
			req.Header.Set("Content-Type", ct)
			rec := httptest.NewRecorder()
			s.handler.ServeHTTP(rec, req)
			got := struct {
				Status           int
				Read             bool
				RetryAfter, Conn string
				Message          bool
			}{rec.Code, rb.read, rec.Header().Get("Retry-After"), rec.Header().Get("Connection"), strings.Contains(rec.Body.String(), tc.messagePart)}
			want := got
			want.Status, want.Read, want.RetryAfter, want.Conn, want.Message = tc.status, false, tc.retryAfter, "close", true
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, rec.Body)
			}
		})
	}
	// With nothing held, the same upload is taken, and gives back what it
	// took.
	req := httptest.NewRequest("POST", path, bytes.NewReader(body.Bytes()))
	req.RemoteAddr = "192.0.2.1:1234"
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != 201 || rec.Header().Get("Connection") != "" {
		t.Fatalf("upload: %d %q %s", rec.Code, rec.Header().Get("Connection"), rec.Body)
	}
	if s.uploads.reserved != 0 || len(s.uploads.active) != 0 {
		t.Errorf("after the upload: %d bytes reserved, addresses %v", s.uploads.reserved, s.uploads.active)
	}
}

// TestKeyedUploadUnderLimits: an upload sent with an Idempotency-Key is
// buffered to compare repeats, but only under the upload limits: with its
// address's uploads in progress or the budget full, not a byte of it is
// read; taken, it counts once, gives back what it took, and a repeat is
// the stored answer.
func TestKeyedUploadUnderLimits(t *testing.T) {
	store := memory.New()
	keeper := idempotency.New(idempotency.Options{Clock: deliverykit.NewManualClock(testTime)})
	keeper.Open(store)
	svc := returns.New(keeper.Store(store), returns.Options{
		Clock: deliverykit.NewManualClock(testTime), IDs: &deliverykit.SequentialIDs{},
		Policies: returns.StaticPolicies{"demo-site": {WindowDays: 30}},
		Reasons:  complaintReasons, Blobs: &returns.MemoryBlobs{},
		PublicURL: "http://127.0.0.1:8080", ImageURLSecret: bytes.Repeat([]byte{7}, 32),
	})
	ctx := t.Context()
	if _, err := svc.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "L1", SKU: "X", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "10"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1, Complaint: &returns.ComplaintInput{ReasonID: "damaged"}}}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, Options{Returns: svc, Idempotency: keeper})
	path := strings.TrimPrefix(ret.StatusURL, "http://127.0.0.1:8080") + "/items/1/complaint"
	ct, body := multipartBody(t, nil, formFile{"image", "a.png", "image/png", testPNG(t, 8, 8)})
	send := func() (*httptest.ResponseRecorder, bool) {
		rb := &readRecorder{r: bytes.NewReader(body.Bytes())}
		req := httptest.NewRequest("POST", path, rb)
		req.RemoteAddr = "192.0.2.1:1234"
		req.ContentLength = int64(body.Len())
		req.Header.Set("Content-Type", ct)
		req.Header.Set(idempotency.Header, "photo-1")
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		return rec, rb.read
	}
	key := addressKey(parseAddr("192.0.2.1"))
	tests := []struct {
		name   string
		hold   func() (undo func())
		status int
	}{
		{"address has its uploads in progress", func() func() {
			s.uploads.enter(key)
			s.uploads.enter(key)
			return func() { s.uploads.leave(key); s.uploads.leave(key) }
		}, 429},
		{"budget full", func() func() {
			s.uploads.reserve(s.uploads.budget - int64(body.Len()) + 1)
			return func() { s.uploads.release(s.uploads.budget - int64(body.Len()) + 1) }
		}, 503},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			undo := tc.hold()
			rec, read := send()
			undo()
			if rec.Code != tc.status || read || rec.Header().Get("Connection") != "close" {
				t.Errorf("status %d (want %d), body read %v, Connection %q: %s", rec.Code, tc.status, read, rec.Header().Get("Connection"), rec.Body)
			}
		})
	}
	first, _ := send()
	if first.Code != 201 || s.uploads.reserved != 0 || len(s.uploads.active) != 0 {
		t.Fatalf("keyed upload: %d, %d bytes still reserved, addresses %v: %s", first.Code, s.uploads.reserved, s.uploads.active, first.Body)
	}
	again, _ := send()
	if again.Code != 201 || again.Header().Get(idempotency.ReplayedHeader) != "true" || again.Body.String() != first.Body.String() {
		t.Errorf("repeat: %d, replayed %q:\n%s\nfirst:\n%s", again.Code, again.Header().Get(idempotency.ReplayedHeader), again.Body, first.Body)
	}
}

// TestUploadGate: the limits' defaults, their floor, and counting.
func TestUploadGate(t *testing.T) {
	const limit = 30 << 20
	tests := []struct {
		name string
		in   UploadLimits
		// budget, perAddress and readTimeout as applied
		budget     int64
		perAddress int
		timeout    time.Duration
	}{
		{"defaults", UploadLimits{}, DefaultUploadBudgetBytes, DefaultUploadsPerAddress, DefaultUploadReadTimeout},
		{"set", UploadLimits{BudgetBytes: 100 << 20, PerAddress: 5, ReadTimeout: time.Second}, 100 << 20, 5, time.Second},
		{"budget below one upload is raised", UploadLimits{BudgetBytes: 1}, limit, DefaultUploadsPerAddress, DefaultUploadReadTimeout},
		{"off", UploadLimits{BudgetBytes: -1, PerAddress: -1}, 0, 0, DefaultUploadReadTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newUploadGate(tc.in, limit)
			got := []any{g.budget, g.perAddress, g.readTimeout}
			if diff := cmp.Diff([]any{tc.budget, tc.perAddress, tc.timeout}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	g := newUploadGate(UploadLimits{BudgetBytes: 40 << 20, PerAddress: 2}, limit)
	steps := []struct {
		name string
		do   func() bool
		want bool
	}{
		{"a: first", func() bool { return g.enter("a") }, true},
		{"a: second", func() bool { return g.enter("a") }, true},
		{"a: third", func() bool { return g.enter("a") }, false},
		{"b: first", func() bool { return g.enter("b") }, true},
		{"a: one left, another comes", func() bool { g.leave("a"); return g.enter("a") }, true},
		{"30 MiB", func() bool { return g.reserve(30 << 20) }, true},
		{"11 MiB more", func() bool { return g.reserve(11 << 20) }, false},
		{"10 MiB more", func() bool { return g.reserve(10 << 20) }, true},
		{"30 MiB back, 30 MiB again", func() bool { g.release(30 << 20); return g.reserve(30 << 20) }, true},
	}
	for _, st := range steps {
		if got := st.do(); got != st.want {
			t.Errorf("%s: %v, want %v", st.name, got, st.want)
		}
	}
	g.leave("a")
	g.leave("a")
	g.leave("b")
	if len(g.active) != 0 {
		t.Errorf("addresses left: %v", g.active)
	}
}

// stalledUpload opens a connection to addr and sends the headers of a
// photo upload to target declaring length bytes, then part, then nothing
// more; it answers the connection. The writes go on in the background
// (a server that does not read blocks them), and end with the connection.
func stalledUpload(t *testing.T, addr, target string, length int, part []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	head := "POST " + target + " HTTP/1.1\r\nHost: test\r\nContent-Type: multipart/form-data; boundary=XB\r\nContent-Length: " + strconv.Itoa(length) + "\r\n\r\n" +
		"--XB\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
	go func() {
		if _, err := io.WriteString(c, head); err == nil {
			c.Write(part)
		}
	}()
	return c
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestStalledUploadsHeap is the attack of the issue: 40 uploads that send
// the start of a 4 MiB photo and stall. To a stranger's token every one
// is answered 404 without its body read; to a real token, with the
// defaults, the address gets 2 uploads in progress and the other 38 are
// answered 429. Either way the heap grows by far less than the 160 MiB
// the photos would take (the budget is 64 MiB).
func TestStalledUploadsHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 160 MiB over loopback")
	}
	const conns, partBytes = 40, 4 << 20
	part := append(testPNG(t, 8, 8), make([]byte, partBytes)...)
	tests := []struct {
		name     string
		lim      UploadLimits
		token    bool
		statuses map[int]int // status: how many
	}{
		{"stranger's token, no bound per address", UploadLimits{PerAddress: -1}, false, map[int]int{404: conns}},
		{"real token, defaults", UploadLimits{}, true, map[int]int{429: conns - DefaultUploadsPerAddress}},
		// Each declares 25 MiB, so the 64 MiB budget takes two.
		{"real token, no bound per address", UploadLimits{PerAddress: -1}, true, map[int]int{503: conns - 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, path := newUploadsServer(t, tc.lim, &returns.MemoryBlobs{})
			if !tc.token {
				path = returns.StatusPagePath + "rt_unknown/items/1/complaint"
			}
			srv := httptest.NewServer(s.handler)
			defer srv.Close()
			before := heapInUse()
			var (
				mu       sync.Mutex
				statuses = map[int]int{}
				cs       []net.Conn
				answered sync.WaitGroup
			)
			for range conns {
				c := stalledUpload(t, srv.Listener.Addr().String(), path, complaintUploadLimit-1, part)
				cs = append(cs, c)
				answered.Go(func() {
					// The uploads let in stall until the
					// connection closes: they have no answer.
					c.SetReadDeadline(time.Now().Add(10 * time.Second))
					resp, err := http.ReadResponse(bufio.NewReader(c), nil)
					if err != nil {
						return
					}
					resp.Body.Close()
					mu.Lock()
					statuses[resp.StatusCode]++
					mu.Unlock()
				})
			}
			// Wait for the refused ones, then measure with the others
			// still in progress.
			for deadline := time.Now().Add(10 * time.Second); ; {
				mu.Lock()
				n := 0
				for _, v := range statuses {
					n += v
				}
				mu.Unlock()
				want := 0
				for _, v := range tc.statuses {
					want += v
				}
				if n >= want || time.Now().After(deadline) {
					break
				}
				runtime.Gosched()
			}
			grown := int64(heapInUse()) - int64(before)
			for _, c := range cs {
				c.Close()
			}
			answered.Wait()
			t.Logf("heap grew by %.1f MiB", float64(grown)/(1<<20))
			if grown >= 64<<20 {
				t.Errorf("heap grew by %d MiB with %d uploads stalled", grown>>20, conns)
			}
			if diff := cmp.Diff(tc.statuses, statuses); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUploadReadDeadline: an upload whose body stops arriving is answered
// 408 once the read timeout has passed, and what it sent is not kept.
func TestUploadReadDeadline(t *testing.T) {
	blobs := &returns.MemoryBlobs{}
	s, path := newUploadsServer(t, UploadLimits{ReadTimeout: 200 * time.Millisecond}, blobs)
	srv := httptest.NewServer(s.handler)
	defer srv.Close()
	c := stalledUpload(t, srv.Listener.Addr().String(), path, 1<<20, testPNG(t, 8, 8))
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 408 || !resp.Close || !strings.Contains(string(b), "took too long") {
		t.Errorf("stalled upload: %d close=%v %s", resp.StatusCode, resp.Close, b)
	}
	if n := blobs.Len(); n != 0 {
		t.Errorf("%d photos kept", n)
	}
}

// TestUploadStreamsToFiles: over a real connection into file photo
// storage, an upload of five photos is stored and served back whole.
func TestUploadStreamsToFiles(t *testing.T) {
	blobs, err := returns.NewFileBlobs(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blobs.Close() })
	s, path := newUploadsServer(t, UploadLimits{}, blobs)
	srv := httptest.NewServer(s.handler)
	defer srv.Close()
	var files []formFile
	var photos [][]byte
	for i := range returns.MaxComplaintImages {
		p := append(testPNG(t, 8, 8), bytes.Repeat([]byte{byte(i)}, 1<<20)...)
		photos = append(photos, p)
		files = append(files, formFile{"image", fmt.Sprintf("%d.png", i), "image/png", p})
	}
	ct, body := multipartBody(t, nil, files...)
	resp, err := http.Post(srv.URL+path, ct, body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("upload: %d %s", resp.StatusCode, b)
	}
	var item map[string]any
	if err := json.Unmarshal(b, &item); err != nil {
		t.Fatal(err)
	}
	for i, p := range photos {
		u, _ := dig(item, "customerComplaint", "images", i, "downloadUrl").(string)
		r, err := http.Get(srv.URL + strings.TrimPrefix(u, "http://127.0.0.1:8080"))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 || !bytes.Equal(got, p) {
			t.Errorf("photo %d: %d, %d bytes, want %d", i, r.StatusCode, len(got), len(p))
		}
	}
}
