package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeJSONKeepsNothingOfTheBuffer decodes bodies one after another,
// as the buffers decodeJSON reads them into are recycled, and checks that
// what each decode produced (strings, raw JSON, a generic map) still holds
// its own body's values after the later bodies went through the same
// buffers: the decoders must copy what they keep.
func TestDecodeJSONKeepsNothingOfTheBuffer(t *testing.T) {
	type body struct {
		Name  string          `json:"name"`
		Tags  []string        `json:"tags"`
		Raw   json.RawMessage `json:"raw"`
		Extra map[string]any  `json:"extra"`
	}
	tests := []struct {
		name string
		json string
		want body
	}{
		{"first", `{"name":"aaaa","tags":["a1","a2"],"raw":{"k":"aaaa"},"extra":{"x":"aaaa"}}`,
			body{Name: "aaaa", Tags: []string{"a1", "a2"}, Raw: json.RawMessage(`{"k":"aaaa"}`), Extra: map[string]any{"x": "aaaa"}}},
		{"second, same layout", `{"name":"bbbb","tags":["b1","b2"],"raw":{"k":"bbbb"},"extra":{"x":"bbbb"}}`,
			body{Name: "bbbb", Tags: []string{"b1", "b2"}, Raw: json.RawMessage(`{"k":"bbbb"}`), Extra: map[string]any{"x": "bbbb"}}},
		{"escaped", `{"name":"c\"c","tags":["\u00e5"],"raw":[1,2],"extra":{"x":null}}`,
			body{Name: `c"c`, Tags: []string{"å"}, Raw: json.RawMessage(`[1,2]`), Extra: map[string]any{"x": nil}}},
		{"long", `{"name":"` + strings.Repeat("d", 5000) + `"}`, body{Name: strings.Repeat("d", 5000)}},
	}
	got := make([]body, len(tests))
	for round := range 3 {
		for i, tt := range tests {
			got[i] = body{}
			r := httptest.NewRequest("POST", "/", strings.NewReader(tt.json))
			if err := decodeJSON(r, &got[i]); err != nil {
				t.Fatalf("round %d, %s: %v", round, tt.name, err)
			}
		}
		for i, tt := range tests {
			if diff := cmp.Diff(tt.want, got[i]); diff != "" {
				t.Errorf("round %d, %s, after all bodies were decoded (-want +got):\n%s", round, tt.name, diff)
			}
		}
	}
}
