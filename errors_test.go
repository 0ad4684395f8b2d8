package deliverykit_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/google/go-cmp/cmp"
)

func TestKinds(t *testing.T) {
	sentinels := map[deliverykit.Kind]error{
		deliverykit.KindInternal:           deliverykit.ErrInternal,
		deliverykit.KindNotFound:           deliverykit.ErrNotFound,
		deliverykit.KindInvalidArgument:    deliverykit.ErrInvalidArgument,
		deliverykit.KindConflict:           deliverykit.ErrConflict,
		deliverykit.KindFailedPrecondition: deliverykit.ErrFailedPrecondition,
		deliverykit.KindPermissionDenied:   deliverykit.ErrPermissionDenied,
		deliverykit.KindUnauthenticated:    deliverykit.ErrUnauthenticated,
		deliverykit.KindUnavailable:        deliverykit.ErrUnavailable,
		deliverykit.KindAlreadyExists:      deliverykit.ErrAlreadyExists,
		deliverykit.KindResourceExhausted:  deliverykit.ErrResourceExhausted,
	}
	for kind, sentinel := range sentinels {
		err := fmt.Errorf("outer: %w", fmt.Errorf("middle: %w", deliverykit.E(kind, "inner")))
		if got := deliverykit.KindOf(err); got != kind {
			t.Errorf("KindOf(wrapped %v) = %v", kind, got)
		}
		for other, s := range sentinels {
			if got := errors.Is(err, s); got != (other == kind) {
				t.Errorf("errors.Is(%v error, %v sentinel) = %v", kind, other, got)
			}
		}
		if !errors.Is(err, sentinel) {
			t.Errorf("wrapped %v does not match its sentinel", kind)
		}
	}
	if got := deliverykit.KindOf(io.EOF); got != deliverykit.KindInternal {
		t.Errorf("KindOf(foreign) = %v", got)
	}
}

// TestOutOfSpaceIsUnavailable: a write that failed because the disk is
// full, the quota is used up or the file system went read-only is
// KindUnavailable however it was wrapped, unless an area already gave it a
// kind of its own; its message never shows the file or the errno.
func TestOutOfSpaceIsUnavailable(t *testing.T) {
	pathErr := func(errno syscall.Errno) error {
		return &fs.PathError{Op: "write", Path: "/var/lib/dk/secret.db", Err: errno}
	}
	tests := []struct {
		name     string
		err      error
		wantKind deliverykit.Kind
		wantMsg  string
	}{
		{"bare ENOSPC", syscall.ENOSPC, deliverykit.KindUnavailable, "service unavailable, try again later"},
		{"path error EDQUOT", pathErr(syscall.EDQUOT), deliverykit.KindUnavailable, "service unavailable, try again later"},
		{"internal wrapping EROFS", deliverykit.Errorf(deliverykit.KindInternal, "storage/bolt: commit: %w", pathErr(syscall.EROFS)), deliverykit.KindUnavailable, "service unavailable, try again later"},
		{"fmt wrapping internal wrapping ENOSPC", fmt.Errorf("checkout: %w", deliverykit.Errorf(deliverykit.KindInternal, "put: %w", syscall.ENOSPC)), deliverykit.KindUnavailable, "service unavailable, try again later"},
		{"explicit kind", deliverykit.E(deliverykit.KindUnavailable, "storage/bolt: /var/lib/dk/secret.db was replaced"), deliverykit.KindUnavailable, "service unavailable, try again later"},
		{"other errno stays internal", pathErr(syscall.EIO), deliverykit.KindInternal, "internal error"},
		{"an area's own kind wins", deliverykit.Errorf(deliverykit.KindConflict, "lost: %w", syscall.ENOSPC), deliverykit.KindConflict, "lost: no space left on device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deliverykit.KindOf(tt.err); got != tt.wantKind {
				t.Errorf("KindOf = %v, want %v", got, tt.wantKind)
			}
			if got := deliverykit.Message(tt.err); got != tt.wantMsg {
				t.Errorf("Message = %q, want %q", got, tt.wantMsg)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	cause := io.ErrUnexpectedEOF
	err := deliverykit.Errorf(deliverykit.KindNotFound, "order %q: %w", "o-1", cause)
	if !errors.Is(err, cause) || !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("Errorf lost the cause or the kind: %v", err)
	}
	if got, want := err.Error(), `order "o-1": unexpected EOF`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestMessageAndViolations(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantMsg  string
		wantViol []deliverykit.FieldViolation
	}{
		{"foreign error hides internals", errors.New("dial tcp 10.0.0.1: refused"), "internal error", nil},
		{"internal kind hides message", deliverykit.E(deliverykit.KindInternal, "bolt: page 7 corrupt"), "internal error", nil},
		{"not found", fmt.Errorf("get: %w", deliverykit.E(deliverykit.KindNotFound, "session not found")), "session not found", nil},
		{"violations", deliverykit.Invalid(
			deliverykit.FieldViolation{Field: "cart.items[0].sku", Rule: "required", Message: "is required"},
			deliverykit.FieldViolation{Field: "locales[1]", Rule: "bcp47", Message: "is not a locale"},
		), "invalid request: cart.items[0].sku: is required; locales[1]: is not a locale", []deliverykit.FieldViolation{
			{Field: "cart.items[0].sku", Rule: "required", Message: "is required"},
			{Field: "locales[1]", Rule: "bcp47", Message: "is not a locale"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := deliverykit.Message(tt.err); got != tt.wantMsg {
				t.Errorf("Message = %q, want %q", got, tt.wantMsg)
			}
			if diff := cmp.Diff(tt.wantViol, deliverykit.ViolationsOf(tt.err)); diff != "" {
				t.Errorf("ViolationsOf (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIDs(t *testing.T) {
	var seq deliverykit.SequentialIDs
	if a, b := seq.NewID("s_"), seq.NewID("s_"); a != "s_000001" || b != "s_000002" {
		t.Errorf("SequentialIDs = %q, %q", a, b)
	}
	seen := map[string]bool{}
	for range 1000 {
		id := deliverykit.RandomIDs{}.NewID("tok_")
		if len(id) != len("tok_")+36 || seen[id] || strings.Trim(id[4:], "234567abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("RandomIDs gave %q (len %d, seen %v)", id, len(id), seen[id])
		}
		seen[id] = true
	}
	// Ids made later sort after ids made earlier, to the millisecond,
	// whatever their random part; within a millisecond they differ.
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC))
	ids := deliverykit.RandomIDs{Clock: clock}
	var prev string
	for i := range 200 {
		a, b := ids.NewID("s_"), ids.NewID("s_")
		if a == b || a[:len("s_")+9] != b[:len("s_")+9] {
			t.Fatalf("two ids of one millisecond: %q, %q", a, b)
		}
		if i > 0 && (a <= prev || b <= prev) {
			t.Fatalf("ids %q, %q made after %q sort before it", a, b, prev)
		}
		prev = max(a, b)
		clock.Advance(time.Millisecond)
	}
}

func ExampleKindOf() {
	err := fmt.Errorf("complete session: %w", deliverykit.E(deliverykit.KindFailedPrecondition, "session is COMPLETED"))
	fmt.Println(deliverykit.KindOf(err))
	fmt.Println(errors.Is(err, deliverykit.ErrFailedPrecondition))
	fmt.Println(deliverykit.Message(err))
	// Output:
	// failed precondition
	// true
	// session is COMPLETED
}

func ExampleManualClock() {
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	clock.Advance(90 * time.Minute)
	fmt.Println(clock.Now().Format("15:04"))
	// Output: 11:30
}
