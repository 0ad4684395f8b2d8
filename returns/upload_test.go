package returns

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// countingReader is a photo that counts the bytes read from it and fails
// with err, when set, once its data is read.
type countingReader struct {
	r    io.Reader
	n    int
	fail error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	if err == io.EOF && c.fail != nil {
		err = c.fail
	}
	return n, err
}

// TestPhotoUploadStreams: a streamed photo is refused as soon as what it
// is shows (its first 512 bytes for the type, one byte past the limit for
// the size, no read at all past the line's room), and a refused, failed
// or aborted upload leaves no file behind.
func TestPhotoUploadStreams(t *testing.T) {
	dir := t.TempDir()
	fb, err := NewFileBlobs(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fb.Close() })
	store := memory.New()
	f := &fixture{svc: New(store, Options{Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
		Policies: StaticPolicies{"site-a": testPolicy}, Reasons: testReasons, PublicURL: "http://127.0.0.1:8080/", Blobs: fb,
		ImageURLSecret: []byte("0123456789abcdef0123456789abcdef")}), store: store, ctx: t.Context()}
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1",
		CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1, Complaint: &ComplaintInput{ReasonID: "damaged"}})
	token := strings.TrimPrefix(r.StatusURL, "http://127.0.0.1:8080"+StatusPagePath)
	pic := pngBytes(t)
	readErr := errors.New("connection reset")
	tests := []struct {
		name   string
		before int // photos added first, in the same upload
		photo  *countingReader
		kind   string
		field  string
		read   int // bytes read of photo
	}{
		{"not an image: 512 bytes read", 0, &countingReader{r: strings.NewReader(strings.Repeat("<html>", 10<<10))}, "invalid argument", "image[0]", 512},
		{"empty", 0, &countingReader{r: strings.NewReader("")}, "invalid argument", "image[0]", 0},
		{"one byte over", 0, &countingReader{r: io.MultiReader(bytes.NewReader(pic), bytes.NewReader(make([]byte, MaxComplaintImageBytes)))},
			"invalid argument", "image[0]", MaxComplaintImageBytes + 1},
		{"no room: nothing read", MaxComplaintImages, &countingReader{r: bytes.NewReader(pic)}, "invalid argument", "image", 0},
		{"the body fails", 0, &countingReader{r: bytes.NewReader(append(bytes.Clone(pic), make([]byte, 4096)...)), fail: readErr}, "internal", "", len(pic) + 4096},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := f.svc.StartComplaintUpload(f.ctx, token, 1)
			if err != nil {
				t.Fatal(err)
			}
			for range tc.before {
				if err := u.AddPhoto(f.ctx, "image[x]", bytes.NewReader(pic)); err != nil {
					t.Fatal(err)
				}
			}
			err = u.AddPhoto(f.ctx, "image[0]", tc.photo)
			u.Abort(f.ctx)
			field := ""
			if vs := deliverykit.ViolationsOf(err); len(vs) > 0 {
				field = vs[0].Field
			}
			got := []any{kindOf(err), field, tc.photo.n, errors.Is(err, readErr) || tc.photo.fail == nil}
			if diff := cmp.Diff([]any{tc.kind, tc.field, tc.read, true}, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, err)
			}
			var files []string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if len(files) != 0 {
				t.Errorf("files left: %v", files)
			}
		})
	}
	// Strangers and lines without room are refused before any photo.
	for _, tc := range []struct {
		name, token string
		item        uint64
		kind        string
	}{
		{"unknown token", "rt_unknown", 1, "not found"},
		{"unknown line", token, 9, "not found"},
	} {
		if _, err := f.svc.StartComplaintUpload(f.ctx, tc.token, tc.item); kindOf(err) != tc.kind {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.kind)
		}
	}
	// Finished, the photos stay; Abort after Finish changes nothing.
	u, err := f.svc.StartComplaintUpload(f.ctx, token, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.AddPhoto(f.ctx, "image[0]", bytes.NewReader(pic)); err != nil {
		t.Fatal(err)
	}
	got, err := u.Finish(f.ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	u.Abort(f.ctx)
	if _, err := fb.GetBlob(f.ctx, got.Items[0].CustomerComplaint.Images[0].UUID); err != nil {
		t.Errorf("the finished photo is gone: %v", err)
	}
}
