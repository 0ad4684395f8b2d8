package returns

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// testReasons is site-a's reason catalog (English first, then Swedish).
var testReasons = StaticReasons{"site-a": {
	Locales: []string{"en-US", "sv-SE"},
	Return: []catalog.ReturnReason{
		{ID: "size", DisplayName: map[string]string{"en-US": "Wrong size", "sv-SE": "Fel storlek"}, SubReasons: []catalog.SubReason{
			{ID: "too-small", DisplayName: map[string]string{"en-US": "Too small", "sv-SE": "För liten"}},
		}},
		{ID: "changed-mind", DisplayName: map[string]string{"en-US": "Changed my mind"}},
	},
	Complaint: []catalog.ComplaintReason{
		{ID: "damaged", DisplayName: map[string]string{"en-US": "Arrived damaged", "sv-SE": "Skadad"}},
	},
}}

// complaintFixture is newFixture with testReasons, blobs in memory and a
// fixed image URL secret.
func complaintFixture(t *testing.T) (*fixture, *MemoryBlobs) {
	t.Helper()
	store := memory.New()
	clock := deliverykit.NewManualClock(t0)
	blobs := &MemoryBlobs{}
	svc := New(store, Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Policies: StaticPolicies{"site-a": testPolicy}, Reasons: testReasons,
		PublicURL: "http://127.0.0.1:8080/", Blobs: blobs, ImageURLSecret: []byte("0123456789abcdef0123456789abcdef"),
	})
	return &fixture{svc: svc, store: store, clock: clock, ctx: t.Context()}, blobs
}

// pngBytes is a small PNG image.
func pngBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestCreateReturnReasonsAndComplaints(t *testing.T) {
	tests := []struct {
		name   string
		item   CustomerReturnItemInput
		fields []string // violations; none: created
		want   []ReturnReason
	}{
		{name: "own words only, as before", item: CustomerReturnItemInput{Reason: "too tight"},
			want: []ReturnReason{{Reason: "too tight"}}},
		{name: "reason and sub-reason", item: CustomerReturnItemInput{ReasonID: "size", SubReasonID: "too-small"},
			want: []ReturnReason{{ID: "size", Reason: "Wrong size", SubReason: "Too small", SubReasonID: "too-small"}}},
		{name: "reason and own words", item: CustomerReturnItemInput{ReasonID: "changed-mind", Reason: "found it cheaper"},
			want: []ReturnReason{{ID: "changed-mind", Reason: "Changed my mind"}, {Reason: "found it cheaper"}}},
		{name: "unknown reason", item: CustomerReturnItemInput{ReasonID: "nope"}, fields: []string{"items[0].reasonId"}},
		{name: "unknown sub-reason", item: CustomerReturnItemInput{ReasonID: "size", SubReasonID: "nope"}, fields: []string{"items[0].subReasonId"}},
		{name: "sub-reason of another reason", item: CustomerReturnItemInput{ReasonID: "changed-mind", SubReasonID: "too-small"}, fields: []string{"items[0].subReasonId"}},
		{name: "sub-reason without reason", item: CustomerReturnItemInput{SubReasonID: "too-small"}, fields: []string{"items[0].subReasonId"}},
		{name: "unknown complaint reason", item: CustomerReturnItemInput{Complaint: &ComplaintInput{ReasonID: "nope"}}, fields: []string{"items[0].complaint.reasonId"}},
		{name: "complaint text too long", item: CustomerReturnItemInput{Complaint: &ComplaintInput{ReasonID: "damaged", Text: strings.Repeat("ä", 2001)}},
			fields: []string{"items[0].complaint.text"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := complaintFixture(t)
			f.importOrder(t, "site-a", "A-1")
			tc.item.ForeignLineItemID, tc.item.Quantity = "L1", 1
			r, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com",
				Items: []CustomerReturnItemInput{tc.item}})
			if len(tc.fields) > 0 {
				var got []string
				for _, v := range deliverykit.ViolationsOf(err) {
					got = append(got, v.Field)
				}
				if diff := cmp.Diff(tc.fields, got); diff != "" || kindOf(err) != "invalid argument" {
					t.Fatalf("CreateReturn: %v; fields (-want +got):\n%s", err, diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.Items[0].ReturnReasons); diff != "" {
				t.Errorf("returnReasons (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComplaintPhotosAndDecision(t *testing.T) {
	f, blobs := complaintFixture(t)
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1",
		CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1, Complaint: &ComplaintInput{ReasonID: "damaged", Text: "The zip is torn."}},
		CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	token := strings.TrimPrefix(r.StatusURL, "http://127.0.0.1:8080"+StatusPagePath)
	want := &CustomerComplaint{ID: 1, Status: ComplaintPending, ComplaintReason: ComplaintReason{ID: "damaged", Reason: "Arrived damaged"},
		ComplaintText: "The zip is torn.", Images: []ComplaintImage{}}
	if diff := cmp.Diff(want, r.Items[0].CustomerComplaint); diff != "" {
		t.Fatalf("complaint at creation (-want +got):\n%s", diff)
	}
	if r.Items[1].CustomerComplaint != nil {
		t.Fatalf("line without complaint shows %+v", r.Items[1].CustomerComplaint)
	}

	pic := pngBytes(t)
	refusals := []struct {
		name   string
		item   uint64
		in     ComplaintUpload
		kind   string
		fields []string
	}{
		{name: "text is not an image", item: 1, in: ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: []byte("<html>not an image</html>")}}},
			kind: "invalid argument", fields: []string{"image[0]"}},
		{name: "too large", item: 1, in: ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: append(pic, make([]byte, MaxComplaintImageBytes)...)}}},
			kind: "invalid argument", fields: []string{"image[0]"}},
		{name: "too many at once", item: 1, in: ComplaintUpload{Images: make([]UploadedImage, MaxComplaintImages+1)},
			kind: "invalid argument", fields: []string{"image", "image[0]", "image[1]", "image[2]", "image[3]", "image[4]", "image[5]"}},
		{name: "nothing", item: 1, in: ComplaintUpload{}, kind: "invalid argument", fields: []string{"image"}},
		{name: "second reason", item: 1, in: ComplaintUpload{ReasonID: "damaged", Images: []UploadedImage{{Field: "image[0]", Data: pic}}},
			kind: "invalid argument", fields: []string{"reasonId"}},
		{name: "no complaint yet and no reason", item: 2, in: ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: pic}}},
			kind: "invalid argument", fields: []string{"reasonId"}},
		{name: "unknown item", item: 9, in: ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: pic}}}, kind: "not found"},
	}
	for i := range refusals[2].in.Images {
		refusals[2].in.Images[i] = UploadedImage{Field: "image[" + string(rune('0'+i)) + "]"}
	}
	for _, tc := range refusals {
		_, err := f.svc.AddComplaintPhotos(f.ctx, token, tc.item, tc.in)
		var got []string
		for _, v := range deliverykit.ViolationsOf(err) {
			got = append(got, v.Field)
		}
		if kindOf(err) != tc.kind || !cmp.Equal(tc.fields, got) {
			t.Errorf("%s: %v (fields %v), want %s %v", tc.name, err, got, tc.kind, tc.fields)
		}
	}
	if n := blobs.Len(); n != 0 {
		t.Fatalf("refused uploads left %d blobs", n)
	}
	if _, err := f.svc.AddComplaintPhotos(f.ctx, "rt_unknown", 1, ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: pic}}}); kindOf(err) != "not found" {
		t.Errorf("unknown token: %v", err)
	}

	// Two photos on line 1, then a complaint with one photo on line 2.
	r, err := f.svc.AddComplaintPhotos(f.ctx, token, 1, ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: pic}, {Field: "image[1]", Data: pic}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err = f.svc.AddComplaintPhotos(f.ctx, token, 2, ComplaintUpload{ReasonID: "damaged", Text: "dented", Images: []UploadedImage{{Field: "image[0]", Data: pic}}})
	if err != nil {
		t.Fatal(err)
	}
	c1, c2 := r.Items[0].CustomerComplaint, r.Items[1].CustomerComplaint
	var ids []uint64
	for _, im := range append(c1.Images, c2.Images...) {
		ids = append(ids, im.ID)
		if !BlobKeyPattern.MatchString(im.UUID) {
			t.Errorf("uuid %q", im.UUID)
		}
		u, err := url.Parse(im.DownloadURL)
		if err != nil || u.Host != "127.0.0.1:8080" || u.Path != ComplaintImagePath+im.UUID {
			t.Errorf("downloadUrl %q", im.DownloadURL)
		}
	}
	if diff := cmp.Diff([]uint64{1, 2, 3}, ids); diff != "" {
		t.Errorf("image ids (-want +got):\n%s", diff)
	}
	if c1.Image == nil || *c1.Image != c1.Images[0] || c2.ComplaintText != "dented" {
		t.Errorf("complaints %+v %+v", c1, c2)
	}
	if blobs.Len() != 3 {
		t.Errorf("%d blobs, want 3", blobs.Len())
	}
	// The limit counts the photos the complaint has.
	four := []UploadedImage{{Field: "image[0]", Data: pic}, {Field: "image[1]", Data: pic}, {Field: "image[2]", Data: pic}, {Field: "image[3]", Data: pic}}
	if _, err := f.svc.AddComplaintPhotos(f.ctx, token, 1, ComplaintUpload{Images: four}); kindOf(err) != "invalid argument" || deliverykit.ViolationsOf(err)[0].Field != "image" {
		t.Errorf("over the count: %v", err)
	}
	if blobs.Len() != 3 {
		t.Errorf("a refused update left its photos: %d blobs", blobs.Len())
	}

	// The merchant decides once; each decision that changes a complaint
	// writes a return.complaint_decided with the lines' complaint statuses.
	decided := func() []string {
		var out []string
		for _, e := range f.events(t) {
			if e.Type == event.TypeReturnComplaintDecided {
				var st []string
				for _, it := range e.Payload.Items {
					st = append(st, it.ComplaintStatus)
				}
				out = append(out, strings.Join(st, ","))
			}
		}
		return out
	}
	decisions := []struct {
		site    string
		ret     uint64
		item    uint64
		status  ComplaintStatus
		kind    string
		decided []string // the complaint_decided events so far
	}{
		{"site-a", r.ID, 1, "MAYBE", "invalid argument", nil},
		{"site-a", r.ID, 1, ComplaintApproved, "ok", []string{"APPROVED,PENDING"}},
		{"site-a", r.ID, 1, ComplaintApproved, "ok", []string{"APPROVED,PENDING"}},
		{"site-a", r.ID, 1, ComplaintRejected, "failed precondition", []string{"APPROVED,PENDING"}},
		{"site-a", r.ID, 2, ComplaintRejected, "ok", []string{"APPROVED,PENDING", "APPROVED,REJECTED"}},
		{"site-b", r.ID, 1, ComplaintApproved, "not found", []string{"APPROVED,PENDING", "APPROVED,REJECTED"}},
		{"site-a", r.ID, 9, ComplaintApproved, "not found", []string{"APPROVED,PENDING", "APPROVED,REJECTED"}},
	}
	for _, d := range decisions {
		got, err := f.svc.DecideComplaint(f.ctx, d.site, d.ret, d.item, ComplaintDecision{Status: d.status})
		if kindOf(err) != d.kind {
			t.Errorf("decide %s item %d %s: %v, want %s", d.site, d.item, d.status, err, d.kind)
		}
		if err == nil {
			r = got
		}
		if diff := cmp.Diff(d.decided, decided()); diff != "" {
			t.Errorf("decide %s item %d %s: complaint_decided events (-want +got):\n%s", d.site, d.item, d.status, diff)
		}
	}
	if s1, s2 := r.Items[0].CustomerComplaint.Status, r.Items[1].CustomerComplaint.Status; s1 != ComplaintApproved || s2 != ComplaintRejected {
		t.Errorf("statuses %s %s", s1, s2)
	}
	if _, err := f.svc.AddComplaintPhotos(f.ctx, token, 1, ComplaintUpload{Images: four[:1]}); kindOf(err) != "failed precondition" {
		t.Errorf("photo on a decided complaint: %v", err)
	}
}

// TestComplaintPhotoURL proves that a photo's URL works until it expires
// and that an altered signature, path or expiry does not.
func TestComplaintPhotoURL(t *testing.T) {
	f, _ := complaintFixture(t)
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1, Complaint: &ComplaintInput{ReasonID: "damaged"}})
	token := strings.TrimPrefix(r.StatusURL, "http://127.0.0.1:8080"+StatusPagePath)
	pic := pngBytes(t)
	r, err := f.svc.AddComplaintPhotos(f.ctx, token, 1, ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: pic}}})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(r.Items[0].CustomerComplaint.Image.DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	uuid, q := strings.TrimPrefix(u.Path, ComplaintImagePath), u.Query()
	other := imageUUID("img_other")
	flip := func(s string) string {
		b := []byte(s)
		b[3] ^= 1
		return string(b)
	}
	tests := []struct {
		name                  string
		after                 time.Duration
		uuid, expires, signed string
		kind                  string
	}{
		{"valid", 0, uuid, q.Get("expires"), q.Get("signature"), "ok"},
		{"valid a second before expiry", DefaultImageURLLifetime - time.Second - 124*time.Millisecond, uuid, q.Get("expires"), q.Get("signature"), "ok"},
		{"expired", DefaultImageURLLifetime, uuid, q.Get("expires"), q.Get("signature"), "permission denied"},
		{"altered signature", 0, uuid, q.Get("expires"), flip(q.Get("signature")), "permission denied"},
		{"altered path", 0, other, q.Get("expires"), q.Get("signature"), "permission denied"},
		{"altered expiry", 0, uuid, q.Get("expires") + "0", q.Get("signature"), "permission denied"},
		{"no signature", 0, uuid, q.Get("expires"), "", "permission denied"},
		{"malformed expiry", 0, uuid, "soon", q.Get("signature"), "permission denied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.clock.Set(t0.Add(tc.after))
			img, err := f.svc.ComplaintPhoto(t.Context(), tc.uuid, tc.expires, tc.signed)
			if kindOf(err) != tc.kind {
				t.Fatalf("ComplaintPhoto: %v, want %s", err, tc.kind)
			}
			if err != nil {
				return
			}
			if !bytes.Equal(img.Data, pic) || img.ContentType != "image/png" || img.MaxAge <= 0 || img.MaxAge > DefaultImageURLLifetime {
				t.Errorf("photo: %s, %d bytes, max age %v", img.ContentType, len(img.Data), img.MaxAge)
			}
		})
	}
}

func TestProductVariant(t *testing.T) {
	f, _ := complaintFixture(t)
	in := orderInput("A-1")
	in.Items[0].ForeignProductID, in.Items[0].ForeignVariantID = "prod-7", "var-7-m"
	in.Items[0].Properties = []VariantProperty{{Type: "color", Value: "blue"}, {Type: "size", Value: "M"}}
	o, err := f.svc.ImportOrder(f.ctx, "site-a", in)
	if err != nil {
		t.Fatal(err)
	}
	want := []ProductVariant{
		{ID: 1, SKU: "JACKET-M", ProductTitle: "Jacket", VariantTitle: "M", ForeignProductID: "prod-7", ForeignVariantID: "var-7-m",
			Properties: []VariantProperty{{Type: "color", Value: "blue"}, {Type: "size", Value: "M"}}},
		{ID: 2, SKU: "SOCKS", ProductTitle: "Socks", Properties: []VariantProperty{}},
	}
	got := []ProductVariant{o.Items[0].ProductVariant, o.Items[1].ProductVariant}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order items (-want +got):\n%s", diff)
	}
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	if diff := cmp.Diff(want[0], r.Items[0].ProductVariant); diff != "" {
		t.Errorf("return item (-want +got):\n%s", diff)
	}
	bad := orderInput("A-2")
	bad.Items[0].Properties = []VariantProperty{{Value: "x"}}
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", bad); kindOf(err) != "invalid argument" || deliverykit.ViolationsOf(err)[0].Field != "items[0].properties[0].type" {
		t.Errorf("property without type: %v", err)
	}

	// An order from a completed checkout: the SKU is the variant, the
	// line's name the product title.
	e, err := event.New("evt_1", "site-a", "C-1", t0, event.OrderCompleted{ExternalID: "C-1", Currency: "SEK", Customer: deliverykit.Contact{Email: "a@example.com"},
		Cart: event.Cart{Items: []event.Item{{SKU: "TENT-2P", Name: "Tent, 2 persons", Quantity: 1, Price: 189900}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.HandleOrderCompleted(f.ctx, e); err != nil {
		t.Fatal(err)
	}
	co, err := f.svc.GetOrder(f.ctx, "site-a", "C-1", IDForeign)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ProductVariant{ID: 1, SKU: "TENT-2P", ProductTitle: "Tent, 2 persons", ForeignVariantID: "TENT-2P", Properties: []VariantProperty{}},
		co.Items[0].ProductVariant); diff != "" {
		t.Errorf("checkout order's variant (-want +got):\n%s", diff)
	}
}

// TestReturnPhotoLimit proves a return's photos are bounded across its
// lines, not only per complaint.
func TestReturnPhotoLimit(t *testing.T) {
	f, blobs := complaintFixture(t)
	in := orderInput("A-1")
	in.Items = nil
	var items []CustomerReturnItemInput
	for i := range MaxReturnImages/MaxComplaintImages + 1 {
		id := "L" + string(rune('a'+i))
		in.Items = append(in.Items, OrderItemInput{ForeignLineItemID: id, SKU: id, Quantity: 1, PurchasePriceAmount: PriceInput{Amount: "1.00"}})
		items = append(items, CustomerReturnItemInput{ForeignLineItemID: id, Quantity: 1, Complaint: &ComplaintInput{ReasonID: "damaged"}})
	}
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	r := f.createReturn(t, "site-a", "A-1", items...)
	token := strings.TrimPrefix(r.StatusURL, "http://127.0.0.1:8080"+StatusPagePath)
	five := make([]UploadedImage, MaxComplaintImages)
	for i := range five {
		five[i] = UploadedImage{Field: "image", Data: pngBytes(t)}
	}
	for _, it := range r.Items {
		_, err := f.svc.AddComplaintPhotos(f.ctx, token, it.ID, ComplaintUpload{Images: five})
		full := it.ID > MaxReturnImages/MaxComplaintImages
		if got, want := kindOf(err), map[bool]string{false: "ok", true: "invalid argument"}[full]; got != want {
			t.Errorf("line %d: %v, want %s", it.ID, err, want)
		}
	}
	if blobs.Len() != MaxReturnImages {
		t.Errorf("%d photos stored, want %d", blobs.Len(), MaxReturnImages)
	}
}
