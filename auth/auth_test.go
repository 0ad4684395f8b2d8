package auth

import (
	"testing"
)

func TestKeyring(t *testing.T) {
	var k Keyring
	k.Add("site-a", HashKey("key-a"))
	k.Add("site-b", HashKey("key-b"))
	k.Add("site-a", HashKey("key-a2"))

	tests := []struct {
		key      string
		wantSite string
		wantOK   bool
	}{
		{"key-a", "site-a", true},
		{"key-a2", "site-a", true},
		{"key-b", "site-b", true},
		{"key-c", "", false},
		{"", "", false},
		{"KEY-A", "", false},
		{"key-a ", "", false},
	}
	for _, tt := range tests {
		site, ok := k.Authenticate(tt.key)
		if site != tt.wantSite || ok != tt.wantOK {
			t.Errorf("Authenticate(%q) = %q, %v; want %q, %v", tt.key, site, ok, tt.wantSite, tt.wantOK)
		}
	}
}

func TestParseDigest(t *testing.T) {
	// sha256("demo-key")
	const hexDemo = "bc8e1e1c2d5e1b8f8ef6b0f8f5c1f7b2a4b8f7f5e0d9c7a2b1e8f6d4c3b2a190"
	tests := []struct {
		in      string
		wantErr bool
	}{
		{HashKey("demo-key").String(), false},
		{hexDemo, false},
		{"", true},
		{"abc", true},
		{hexDemo[:63] + "g", true},
		{hexDemo + "00", true},
	}
	for _, tt := range tests {
		d, err := ParseDigest(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseDigest(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && d.String() != tt.in {
			t.Errorf("ParseDigest(%q).String() = %q", tt.in, d.String())
		}
	}
}

func BenchmarkAuthenticate(b *testing.B) {
	var k Keyring
	for i := range 16 {
		k.Add("site", HashKey(string(rune('a'+i))+"-key"))
	}
	b.ReportAllocs()
	for b.Loop() {
		k.Authenticate("p-key")
	}
}
