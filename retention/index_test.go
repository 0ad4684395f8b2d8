package retention

import (
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// TestKey: the key built in one allocation is the composite key it
// documents, and parses back.
func TestKey(t *testing.T) {
	ix := Index{Name: "x.expiry"}
	for _, at := range []time.Time{time.Unix(0, 0), time.Date(2026, 11, 19, 9, 0, 0, 123456789, time.UTC), time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)} {
		e := Entry{Class: "active", At: at}
		key := ix.Key(e, storage.Key("site", "id"))
		want := storage.Key("active", storage.Uint64Key(micros(at)), "site", "id")
		if key != want {
			t.Errorf("Key(%v) = %q, want %q", at, key, want)
		}
		gotAt, rec, err := parseKey("active", key)
		if err != nil || rec != storage.Key("site", "id") || micros(gotAt) != micros(at) {
			t.Errorf("parseKey(%q) = %v, %q, %v", key, gotAt, rec, err)
		}
	}
}
