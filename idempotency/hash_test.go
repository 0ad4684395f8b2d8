package idempotency

import "testing"

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
