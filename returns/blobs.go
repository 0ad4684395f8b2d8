package returns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// Blobs keeps the photos of customer complaints. Keys are made by the
// service (a UUID, see ComplaintImage), never taken from a client, and
// match BlobKeyPattern; implementations may rely on that and must refuse
// other keys.
type Blobs interface {
	// PutBlob stores data under key, durably once it returns nil.
	PutBlob(ctx context.Context, key string, data []byte) error
	// GetBlob returns the data stored under key; a key never stored (or
	// deleted) is an error of kind NotFound.
	GetBlob(ctx context.Context, key string) ([]byte, error)
	// DeleteBlob removes key; a missing key is not an error.
	DeleteBlob(ctx context.Context, key string) error
}

// BlobStreamer is a Blobs that stores a blob from a reader without holding
// it whole in memory. The complaint upload streams each photo into it as
// the photo arrives; other Blobs get the photo as one slice, so a server
// on them holds each photo in memory while it is stored.
type BlobStreamer interface {
	Blobs
	// PutBlobFrom stores what r yields under key, durably once it returns
	// nil, and answers its size. When r fails, nothing is stored and the
	// error wraps r's.
	PutBlobFrom(ctx context.Context, key string, r io.Reader) (int64, error)
}

// putBlobFrom stores what r yields under key in b: streamed when b is a
// BlobStreamer, else read whole first (r must be bounded).
func putBlobFrom(ctx context.Context, b Blobs, key string, r io.Reader) (int64, error) {
	if bs, ok := b.(BlobStreamer); ok {
		return bs.PutBlobFrom(ctx, key, r)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	return int64(len(data)), b.PutBlob(ctx, key, data)
}

// BlobKeyPattern is what blob keys look like: a lower-case UUID.
var BlobKeyPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func checkBlobKey(key string) error {
	if !BlobKeyPattern.MatchString(key) {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "blob key %q is not a UUID", key)
	}
	return nil
}

func blobNotFound() error { return deliverykit.E(deliverykit.KindNotFound, "image not found") }

// MemoryBlobs keeps blobs in memory: for tests and servers whose records
// are in memory too. The zero value is ready to use.
type MemoryBlobs struct {
	mu sync.Mutex
	m  map[string][]byte
}

// PutBlob implements Blobs.
func (b *MemoryBlobs) PutBlob(_ context.Context, key string, data []byte) error {
	if err := checkBlobKey(key); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string][]byte{}
	}
	b.m[key] = append([]byte(nil), data...)
	return nil
}

// GetBlob implements Blobs.
func (b *MemoryBlobs) GetBlob(_ context.Context, key string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.m[key]
	if !ok {
		return nil, blobNotFound()
	}
	return append([]byte(nil), d...), nil
}

// DeleteBlob implements Blobs.
func (b *MemoryBlobs) DeleteBlob(_ context.Context, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, key)
	return nil
}

// Len is the number of blobs stored.
func (b *MemoryBlobs) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}

// FileBlobs keeps blobs as files under a directory, one file a blob in a
// subdirectory named by the key's first two characters. The file name is
// the key, which the service makes and checks against BlobKeyPattern, so
// no client-supplied name ever reaches the file system; all access goes
// through an os.Root, which refuses paths leaving the directory. A blob
// is written to a temporary file, synced and renamed into place, so a
// reader never sees half a file and a crash leaves none.
type FileBlobs struct {
	root *os.Root
}

// NewFileBlobs opens (creating it, mode 0700) the directory dir.
func NewFileBlobs(dir string) (*FileBlobs, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("returns: blob directory: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("returns: blob directory: %w", err)
	}
	return &FileBlobs{root: root}, nil
}

// Close releases the directory.
func (b *FileBlobs) Close() error { return b.root.Close() }

func (b *FileBlobs) path(key string) (dir, name string, err error) {
	if err := checkBlobKey(key); err != nil {
		return "", "", err
	}
	return key[:2], filepath.Join(key[:2], key), nil
}

// PutBlob implements Blobs.
func (b *FileBlobs) PutBlob(ctx context.Context, key string, data []byte) error {
	_, err := b.PutBlobFrom(ctx, key, bytes.NewReader(data))
	return err
}

// PutBlobFrom implements BlobStreamer: r is copied into the temporary
// file, so only a copy buffer is in memory.
func (b *FileBlobs) PutBlobFrom(ctx context.Context, key string, r io.Reader) (int64, error) {
	dir, name, err := b.path(key)
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := b.root.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("returns: blob %s: %w", key, err)
	}
	tmp := name + ".tmp"
	f, err := b.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, fmt.Errorf("returns: blob %s: %w", key, err)
	}
	n, werr := io.Copy(f, r)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = b.root.Rename(tmp, name)
	}
	if werr != nil {
		b.root.Remove(tmp)
		return 0, fmt.Errorf("returns: blob %s: %w", key, werr)
	}
	// The rename is durable once the directory is synced.
	if d, err := b.root.Open(dir); err == nil {
		werr = d.Sync()
		d.Close()
	}
	return n, werr
}

// GetBlob implements Blobs.
func (b *FileBlobs) GetBlob(_ context.Context, key string) ([]byte, error) {
	_, name, err := b.path(key)
	if err != nil {
		return nil, blobNotFound()
	}
	data, err := b.root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, blobNotFound()
	}
	return data, err
}

// DeleteBlob implements Blobs.
func (b *FileBlobs) DeleteBlob(_ context.Context, key string) error {
	_, name, err := b.path(key)
	if err != nil {
		return err
	}
	if err := b.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// StoreBlobs keeps blobs as records of the storage.Store (collection
// "returns.blobs"), so that a deployment on one database needs no shared
// directory. Photos are at most MaxComplaintImageBytes, which every
// backend stores as one value.
type StoreBlobs struct {
	Store storage.Store
}

type blobRecord struct {
	Data []byte `json:"data"`
}

var blobsColl = storage.Collection[blobRecord]{Name: "returns.blobs"}

// PutBlob implements Blobs.
func (b StoreBlobs) PutBlob(ctx context.Context, key string, data []byte) error {
	if err := checkBlobKey(key); err != nil {
		return err
	}
	return b.Store.Update(ctx, func(tx storage.Tx) error {
		_, err := blobsColl.Put(tx, key, blobRecord{Data: data}, storage.AnyVersion)
		return err
	})
}

// GetBlob implements Blobs.
func (b StoreBlobs) GetBlob(ctx context.Context, key string) ([]byte, error) {
	var out []byte
	err := b.Store.View(ctx, func(tx storage.Tx) error {
		it, err := blobsColl.Get(tx, key)
		if err != nil {
			return err
		}
		out = it.Value.Data
		return nil
	})
	if errors.Is(err, deliverykit.ErrNotFound) {
		return nil, blobNotFound()
	}
	return out, err
}

// DeleteBlob implements Blobs.
func (b StoreBlobs) DeleteBlob(ctx context.Context, key string) error {
	return b.Store.Update(ctx, func(tx storage.Tx) error {
		err := blobsColl.Delete(tx, key, storage.AnyVersion)
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil
		}
		return err
	})
}

var (
	_ Blobs        = (*MemoryBlobs)(nil)
	_ BlobStreamer = (*FileBlobs)(nil)
	_ Blobs        = StoreBlobs{}
)
