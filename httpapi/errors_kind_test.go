package httpapi

import (
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/google/go-cmp/cmp"
)

// TestKindStatus: every kind has its row in the one table, and the rows
// are the statuses and RPC codes clients act on: a stale etag (Conflict)
// and a taken order number (AlreadyExists) are both 409, told apart by
// the RPC code.
func TestKindStatus(t *testing.T) {
	want := map[deliverykit.Kind]struct{ status, rpc int }{
		deliverykit.KindInternal:           {500, 13},
		deliverykit.KindNotFound:           {404, 5},
		deliverykit.KindInvalidArgument:    {400, 3},
		deliverykit.KindConflict:           {409, 10},
		deliverykit.KindFailedPrecondition: {400, 9},
		deliverykit.KindPermissionDenied:   {403, 7},
		deliverykit.KindUnauthenticated:    {401, 16},
		deliverykit.KindUnavailable:        {503, 14},
		deliverykit.KindAlreadyExists:      {409, 6},
		deliverykit.KindResourceExhausted:  {429, 8},
	}
	for k := deliverykit.Kind(0); !strings.HasPrefix(k.String(), "kind("); k++ {
		if _, ok := want[k]; !ok {
			t.Errorf("kind %v has no expected row in this test", k)
		}
	}
	got := map[deliverykit.Kind]struct{ status, rpc int }{}
	for k := range want {
		we := toWire(deliverykit.E(k, "x"))
		got[k] = struct{ status, rpc int }{we.status, we.rpcCode}
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(struct{ status, rpc int }{})); diff != "" {
		t.Errorf("status and RPC code by kind (-want +got):\n%s", diff)
	}
	for k := range want {
		if _, ok := kindStatus[k]; !ok {
			t.Errorf("kindStatus has no row for %v", k)
		}
	}
}
