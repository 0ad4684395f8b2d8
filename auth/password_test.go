package auth

import (
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
)

func TestHashPassword(t *testing.T) {
	h, err := HashPassword("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=2$") {
		t.Errorf("hash %q: not the PHC form with the default parameters", h)
	}
	for pw, want := range map[string]bool{"s3cret": true, "s3cret ": false, "S3cret": false, "": false} {
		if got := VerifyPassword(h, pw); got != want {
			t.Errorf("VerifyPassword(%q) = %v, want %v", pw, got, want)
		}
	}
	if h2, _ := HashPassword("s3cret"); h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	for _, pw := range []string{"", strings.Repeat("x", MaxPasswordBytes+1)} {
		if _, err := HashPassword(pw); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
			t.Errorf("HashPassword(%d bytes): %v, want InvalidArgument", len(pw), err)
		}
	}
}

// A configured hash is checked before it is used: parameters that would
// make a login allocate gigabytes or run for minutes are refused.
func TestCheckPasswordHash(t *testing.T) {
	const salt, key = "MDEyMzQ1Njc4OWFiY2RlZg", "ZUehwaNvFi/TpXQkYQRnWsHSCYyr4CK9n9+B2o0liAU"
	tests := []struct {
		name, hash string
		ok         bool
	}{
		{"valid", "$argon2id$v=19$m=65536,t=3,p=2$" + salt + "$" + key, true},
		{"argon2i", "$argon2i$v=19$m=65536,t=3,p=2$" + salt + "$" + key, false},
		{"old version", "$argon2id$v=16$m=65536,t=3,p=2$" + salt + "$" + key, false},
		{"memory too large", "$argon2id$v=19$m=4194304,t=3,p=2$" + salt + "$" + key, false},
		{"too many passes", "$argon2id$v=19$m=65536,t=100,p=2$" + salt + "$" + key, false},
		{"no threads", "$argon2id$v=19$m=65536,t=3,p=0$" + salt + "$" + key, false},
		{"short salt", "$argon2id$v=19$m=65536,t=3,p=2$MDEy$" + key, false},
		{"short key", "$argon2id$v=19$m=65536,t=3,p=2$" + salt + "$MDEyMzQ1", false},
		{"not base64", "$argon2id$v=19$m=65536,t=3,p=2$" + salt + "$!!!!!!!!!!!!!!!!!!!!!!!!", false},
		{"missing part", "$argon2id$v=19$m=65536,t=3,p=2$" + salt, false},
		{"too long", "$argon2id$v=19$m=65536,t=3,p=2$" + salt + "$" + strings.Repeat("A", 300), false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPasswordHash(tt.hash)
			if (err == nil) != tt.ok {
				t.Errorf("CheckPasswordHash = %v, want ok %v", err, tt.ok)
			}
			if err != nil && deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Errorf("kind %v, want InvalidArgument", deliverykit.KindOf(err))
			}
		})
	}
}
