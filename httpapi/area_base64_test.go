package httpapi

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeBase64: every alphabet, padded or not, on both sides of the
// stack buffer's size, decodes to the key; anything else is refused; a key
// decoded on the stack allocates its string only.
func TestDecodeBase64(t *testing.T) {
	type result struct {
		Key string
		OK  bool
	}
	keys := []string{"demo-key", "dk_live_\xfb\xff?>", strings.Repeat("k", 95), strings.Repeat("\xfb", 128), strings.Repeat("\xff", 129), strings.Repeat("x", 4096)}
	for _, key := range keys {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			k, ok := decodeBase64(enc.EncodeToString([]byte(key)))
			if diff := cmp.Diff(result{key, true}, result{k, ok}); diff != "" {
				t.Errorf("%d-byte key (-want +got):\n%s", len(key), diff)
			}
		}
	}
	for _, bad := range []string{"@@@@", "a", "ZGVtby1rZXk=x", strings.Repeat("@", 400)} {
		if k, ok := decodeBase64(bad); ok {
			t.Errorf("decodeBase64(%q) = %q, true; want refused", bad, k)
		}
	}
	enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 40)))
	if n := testing.AllocsPerRun(100, func() { decodeBase64(enc) }); n != 1 {
		t.Errorf("decoding a 40-byte key allocated %v times, want 1 (its string)", n)
	}
}
