package idempotency

import (
	"bytes"
	"testing"
)

// TestHash: JSON bodies that differ in member order, white space or
// nothing hash alike; any other difference, the operation included,
// does not.
func TestHash(t *testing.T) {
	base := Hash("POST /x", []byte(`{"a":1,"b":{"c":[1,2.50,"x"],"d":null}}`))
	for _, tc := range []struct {
		name, op, body string
		same           bool
	}{
		{"identical", "POST /x", `{"a":1,"b":{"c":[1,2.50,"x"],"d":null}}`, true},
		{"reordered and spaced", "POST /x", "{ \"b\": {\"d\": null, \"c\": [1, 2.50, \"x\"]},\n\t\"a\": 1 }", true},
		{"number written otherwise", "POST /x", `{"a":1,"b":{"c":[1,2.5,"x"],"d":null}}`, false},
		{"array order", "POST /x", `{"a":1,"b":{"c":[2.50,1,"x"],"d":null}}`, false},
		{"value", "POST /x", `{"a":2,"b":{"c":[1,2.50,"x"],"d":null}}`, false},
		{"operation", "PATCH /x", `{"a":1,"b":{"c":[1,2.50,"x"],"d":null}}`, false},
		{"trailing data", "POST /x", `{"a":1,"b":{"c":[1,2.50,"x"],"d":null}} {}`, false},
	} {
		if got := Hash(tc.op, []byte(tc.body)) == base; got != tc.same {
			t.Errorf("%s: same hash %v, want %v", tc.name, got, tc.same)
		}
	}
	// Bodies that are not JSON are compared as sent.
	if Hash("POST /x", []byte("a=1&b=2")) == Hash("POST /x", []byte("b=2&a=1")) {
		t.Error("form bodies in another order hash alike")
	}
}

// canonical is withCanonical's form of body, copied.
func canonical(body []byte) []byte {
	var out []byte
	withCanonical(body, func(b []byte) { out = bytes.Clone(b) })
	return out
}

// TestCanonicalFastPath: the fast path gives go-json's bytes for every
// body it takes, and leaves the others to go-json.
func TestCanonicalFastPath(t *testing.T) {
	bodies := []string{
		`{}`, `[]`, ` { } `, `[1,2,3]`, `{"a":1}`, "{\n \"b\" : [ true , false , null ],\t\"a\":{}\r}",
		`{"b":1,"a":2,"c":{"z":[],"y":{"x":"<tag> & co"}}}`,
		`{"n":[0,-0,1.50,-2.5e10,3E+2,4e-3,1e5,123456789012345678901234567890]}`,
		`{"a ":1,"a":2,"a!":3,"A":4,"_":5,"~":6,"a0":7}`,
		`{"s":"tab\there"}`, `{"ö":"Götgatan 1","o":"日本","e":"😀"}`, "{\"s\":\"\u2028\"}", "{\"s\":\"\xff\"}", "{\"s\":\"\xe2\x28\xa1\"}", `{"s":"quote \" inside"}`, `{"s":"é"}`, `{"s":"\u00e9"}`, `{"a<":1,"a=":2}`,
		`{"dup":1,"dup":2}`, `{"a":1}x`, `{"a":1} {}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":.5}`, `{"a":+1}`,
		`{"a":tru}`, `{"a":truex}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `{"a":1`, `[`, `{"s":"unterminated}`,
		`{"del":"` + "\x7f" + `"}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		`{"deliveries":[{"id":"d1","line_items":[{"sku":"tent-2p","quantity":1,"price":"45000"}]}],"a":null}`,
	}
	for _, body := range bodies {
		b := []byte(body)
		want := slowCanonical(b, bytes.TrimSpace(b))
		if got := canonical(b); !bytes.Equal(got, want) {
			t.Errorf("canonical(%s) = %s, go-json gives %s", body, got, want)
		}
	}
	// Those the fast path takes, so that the comparison above covers it.
	for _, body := range []string{`{}`, `{"ö":"Götgatan 1","o":"日本"}`, `{"b":1,"a":2,"c":{"z":[],"y":{"x":"<tag> & co"}}}`, `{"a ":1,"a":2,"a!":3}`, `[1,2,3]`} {
		if _, ok := new(canon).run([]byte(body)); !ok {
			t.Errorf("the fast path refuses %s", body)
		}
	}
}

// FuzzCanonical: for any body, the fast path and go-json agree.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5e3,"x<y"],"a":{"ö":null,"c":true}}`, `[{"a":1,"a":2}]`, ` [ -0 , 1E+2 ] `, `{"k":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		want := slowCanonical(body, bytes.TrimSpace(body))
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
			want = body
		}
		if got := canonical(body); !bytes.Equal(got, want) {
			t.Errorf("canonical(%q) = %q, go-json gives %q", body, got, want)
		}
	})
}
