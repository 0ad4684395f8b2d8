package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

func TestReturnsImageURLSecret(t *testing.T) {
	site := `"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"]}]`
	tests := []struct {
		name   string
		in     string
		fields []string
		secret []byte
	}{
		{"none", `{` + site + `}`, nil, nil},
		{"32 bytes", `{"returns": {"image_url_secret": "` + strings.Repeat("ab", 32) + `"}, ` + site + `}`, nil, bytes.Repeat([]byte{0xab}, 32)},
		{"too short", `{"returns": {"image_url_secret": "` + strings.Repeat("ab", 31) + `"}, ` + site + `}`, []string{"returns.image_url_secret"}, nil},
		{"not hex", `{"returns": {"image_url_secret": "` + strings.Repeat("zz", 32) + `"}, ` + site + `}`, []string{"returns.image_url_secret"}, nil},
		{"unknown field", `{"returns": {"image_url_secrets": "x"}, ` + site + `}`, []string{"returns.image_url_secrets"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tc.in))
			var fields []string
			for _, v := range deliverykit.ViolationsOf(err) {
				fields = append(fields, v.Field)
			}
			if diff := cmp.Diff(tc.fields, fields); diff != "" {
				t.Fatalf("violations (-want +got):\n%s\n%v", diff, err)
			}
			if err == nil && !bytes.Equal(c.ImageURLSecret(), tc.secret) {
				t.Errorf("secret %x, want %x", c.ImageURLSecret(), tc.secret)
			}
		})
	}
	if len(Demo().ImageURLSecret()) != 32 {
		t.Error("the demo configuration has no signing secret")
	}
}
