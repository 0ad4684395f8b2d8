package backend

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct {
		prefix string
		want   string
		wantOK bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"ab", "ac", true},
		{"a\xff", "b", true},
		{"a\xff\xff", "b", true},
		{"\x7f", "\x80", true}, // a byte, not a rune: no UTF-8 encoding
		{"\xfe", "\xff", true},
		{"\xff", "", false},
		{"\xff\xff", "", false},
		{"site-1\x00", "site-1\x01", true},
	}
	for _, tc := range tests {
		got, ok := PrefixEnd(tc.prefix)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("PrefixEnd(%q) = %q, %v; want %q, %v", tc.prefix, got, ok, tc.want, tc.wantOK)
		}
		if !ok {
			continue
		}
		// Everything with the prefix sorts before the end; the end itself
		// does not have the prefix.
		for _, suffix := range []string{"", "\x00", "\xff\xff\xff"} {
			if k := tc.prefix + suffix; k >= got {
				t.Errorf("PrefixEnd(%q) = %q is not above key %q", tc.prefix, got, k)
			}
		}
		if strings.HasPrefix(got, tc.prefix) {
			t.Errorf("PrefixEnd(%q) = %q has the prefix", tc.prefix, got)
		}
	}
}

func TestPlanScan(t *testing.T) {
	type R = storage.Range
	tests := []struct {
		name string
		r    R
		want Bounds
	}{
		{"forward all", R{}, Bounds{Bounded: true}},
		{"forward prefix", R{Prefix: "a"}, Bounds{Start: "a", Bounded: true}},
		{"forward after", R{After: "k"}, Bounds{Start: "k", Skip: "k", Bounded: true}},
		{"forward after before prefix", R{Prefix: "b", After: "a"}, Bounds{Start: "b", Skip: "a", Bounded: true}},
		{"forward after inside prefix", R{Prefix: "b", After: "b5"}, Bounds{Start: "b5", Skip: "b5", Bounded: true}},
		{"reverse all", R{Reverse: true}, Bounds{}},
		{"reverse prefix", R{Prefix: "a", Reverse: true}, Bounds{Start: "b", Skip: "b", Bounded: true}},
		{"reverse prefix of 0xff", R{Prefix: "\xff", Reverse: true}, Bounds{}},
		{"reverse after", R{After: "k", Reverse: true}, Bounds{Start: "k", Skip: "k", Bounded: true}},
		{"reverse after inside prefix", R{Prefix: "a", After: "a5", Reverse: true}, Bounds{Start: "a5", Skip: "a5", Bounded: true}},
		{"reverse after beyond prefix", R{Prefix: "a", After: "z", Reverse: true}, Bounds{Start: "b", Skip: "b", Bounded: true}},
		{"reverse after with 0xff prefix", R{Prefix: "\xff", After: "\xff5", Reverse: true}, Bounds{Start: "\xff5", Skip: "\xff5", Bounded: true}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, PlanScan(tc.r)); diff != "" {
			t.Errorf("%s: PlanScan(%#v) (-want +got):\n%s", tc.name, tc.r, diff)
		}
	}
}

func TestValidateCollection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		wantErr bool
	}{
		{"orders", false},
		{"tracking.orders", false},
		{"a\x00b", false},
		{"", true},
		{"\x00", true},
		{"\x00seq", true},
	} {
		err := ValidateCollection(tc.name)
		if got := err != nil; got != tc.wantErr {
			t.Errorf("ValidateCollection(%q) = %v; want error: %v", tc.name, err, tc.wantErr)
		}
		if err != nil && !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("ValidateCollection(%q) = %v; want InvalidArgument", tc.name, err)
		}
	}
	if err := ValidateKey(""); !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("ValidateKey(\"\") = %v; want InvalidArgument", err)
	}
	if err := ValidateKey("\x00k"); err != nil {
		t.Errorf("ValidateKey(\"\\x00k\") = %v; keys have no reserved prefix", err)
	}
}

func TestScanGuard(t *testing.T) {
	var g ScanGuard
	if err := g.Check("a"); err != nil {
		t.Fatalf("Check on an empty guard = %v", err)
	}
	g.Enter("a")
	g.Enter("a") // nested scans of one collection
	g.Enter("b")
	g.Leave("a")
	if err := g.Check("a"); !errors.Is(err, ErrWriteWhileScanning) {
		t.Errorf("Check(a) with one scan left = %v; want ErrWriteWhileScanning", err)
	}
	g.Leave("a")
	if err := g.Check("a"); err != nil {
		t.Errorf("Check(a) after both scans ended = %v", err)
	}
	if err := g.Check("b"); !errors.Is(err, ErrWriteWhileScanning) {
		t.Errorf("Check(b) = %v; want ErrWriteWhileScanning", err)
	}
	g.Leave("missing") // no-op
	g.Leave("b")
	if err := g.Check("b"); err != nil {
		t.Errorf("Check(b) after its scan ended = %v", err)
	}
}
