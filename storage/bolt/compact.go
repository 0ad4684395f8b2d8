package bolt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	bbolt "go.etcd.io/bbolt"
)

// compactTxMaxSize bounds the bytes copied in one write transaction of
// Compact, so that a large file does not need all its pages in one.
const compactTxMaxSize = 64 << 20

// Compact copies the database file src into a new file dst, keeping only
// the pages in use, and returns both files' sizes. bbolt reuses the pages
// a deletion frees, so a file stops growing once deletions keep pace with
// writes, but it never shrinks: Compact is how to give the space back.
// It is offline: src must not be open in a running server (Open's file
// lock makes it wait DefaultTimeout and fail), and dst must not exist.
// Replace src with dst while the server is stopped.
func Compact(src, dst string) (before, after int64, err error) {
	st, err := os.Stat(src)
	if err != nil {
		return 0, 0, fmt.Errorf("bolt: compact: %w", err)
	}
	if _, err := os.Stat(dst); err == nil {
		return 0, 0, fmt.Errorf("bolt: compact: %s exists; give a new file", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, 0, fmt.Errorf("bolt: compact: %w", err)
	}
	from, err := bbolt.Open(src, 0, &bbolt.Options{ReadOnly: true, Timeout: DefaultTimeout})
	if err != nil {
		return 0, 0, fmt.Errorf("bolt: compact: opening %s (is a server using it?): %w", src, err)
	}
	defer from.Close()
	to, err := bbolt.Open(dst, st.Mode().Perm(), &bbolt.Options{Timeout: DefaultTimeout})
	if err != nil {
		return 0, 0, fmt.Errorf("bolt: compact: creating %s: %w", dst, err)
	}
	if err := bbolt.Compact(to, from, compactTxMaxSize); err != nil {
		to.Close()
		os.Remove(dst)
		return 0, 0, fmt.Errorf("bolt: compact: %w", err)
	}
	if err := to.Close(); err != nil {
		return 0, 0, fmt.Errorf("bolt: compact: %w", err)
	}
	out, err := os.Stat(dst)
	if err != nil {
		return 0, 0, fmt.Errorf("bolt: compact: %w", err)
	}
	return st.Size(), out.Size(), nil
}
