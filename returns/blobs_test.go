package returns

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestBlobs holds every Blobs implementation to the same contract: what
// was put is got back, a missing or deleted key is NotFound, deleting a
// missing key is fine, and a key that is not a UUID (a client name, a
// path) is refused.
func TestBlobs(t *testing.T) {
	dir := t.TempDir()
	fb, err := NewFileBlobs(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fb.Close() })
	stores := []struct {
		name  string
		blobs Blobs
	}{
		{"memory", &MemoryBlobs{}},
		{"file", fb},
		{"store", StoreBlobs{Store: memory.New()}},
	}
	key := imageUUID("img_1")
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			ctx, b := t.Context(), st.blobs
			if _, err := b.GetBlob(ctx, key); kindOf(err) != "not found" {
				t.Fatalf("get before put: %v", err)
			}
			data := []byte("photo bytes")
			if err := b.PutBlob(ctx, key, data); err != nil {
				t.Fatal(err)
			}
			data[0] = 'X' // the store keeps its own copy
			got, err := b.GetBlob(ctx, key)
			if err != nil || !bytes.Equal(got, []byte("photo bytes")) {
				t.Fatalf("get: %q, %v", got, err)
			}
			for _, bad := range []string{"../../etc/passwd", "photo.jpg", "", key + "/x", "ABCDEF00-0000-8000-8000-000000000000"} {
				if err := b.PutBlob(ctx, bad, data); kindOf(err) != "invalid argument" {
					t.Errorf("put %q: %v", bad, err)
				}
			}
			if err := b.DeleteBlob(ctx, key); err != nil {
				t.Fatal(err)
			}
			if err := b.DeleteBlob(ctx, key); err != nil {
				t.Fatalf("second delete: %v", err)
			}
			if _, err := b.GetBlob(ctx, key); kindOf(err) != "not found" {
				t.Fatalf("get after delete: %v", err)
			}
		})
	}
	// The file store leaves only the blob's file: no temporary files, and
	// nothing outside its directory.
	if err := fb.PutBlob(t.Context(), key, []byte("again")); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	if want := filepath.Join(key[:2], key); len(files) != 1 || files[0] != want {
		t.Errorf("files %v, want [%s]", files, want)
	}
}

func TestSniffImage(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want string
		ok   bool
	}{
		{"png", pngBytes(t), "image/png", true},
		{"jpeg", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image/jpeg", true},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), "image/gif", true},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp", true},
		{"html named photo.png", []byte("<html><script>alert(1)</script>"), "text/html; charset=utf-8", false},
		{"svg (scriptable)", []byte(`<svg xmlns="http://www.w3.org/2000/svg"></svg>`), "text/plain; charset=utf-8", false},
		{"pdf", []byte("%PDF-1.7"), "application/pdf", false},
	}
	for _, tc := range tests {
		got, ok := SniffImage(tc.data)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
