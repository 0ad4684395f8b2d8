// Package auth maps API keys to the site (merchant) they belong to, and
// holds the merchant console's staff accounts and their passwords.
//
// Keys are never kept in plain text: a Keyring holds SHA-256 digests, and
// Authenticate hashes the presented key and compares it with every digest in
// constant time, so neither the comparison nor the position of a match leaks
// through timing. Staff passwords are argon2id hashes (HashPassword),
// verified in constant time (VerifyPassword).
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
)

// Digest is the SHA-256 of an API key.
type Digest [sha256.Size]byte

// HashKey returns the digest of key.
func HashKey(key string) Digest { return sha256.Sum256([]byte(key)) }

// ParseDigest parses a digest written as 64 hexadecimal characters, the form
// used in configuration files (`printf %s "$KEY" | sha256sum`).
func ParseDigest(s string) (Digest, error) {
	var d Digest
	if len(s) != 2*len(d) {
		return d, fmt.Errorf("want %d hexadecimal characters, got %d characters", 2*len(d), len(s))
	}
	if _, err := hex.Decode(d[:], []byte(s)); err != nil {
		return d, fmt.Errorf("not hexadecimal: %w", err)
	}
	return d, nil
}

// String returns the digest in hexadecimal.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Keyring maps key digests to site ids. Build it with Add before serving;
// it is then safe for concurrent reads.
type Keyring struct {
	entries []entry
}

type entry struct {
	digest Digest
	site   string
}

// Add registers digest as a key of site.
func (k *Keyring) Add(site string, digest Digest) {
	k.entries = append(k.entries, entry{digest: digest, site: site})
}

// Authenticate returns the site the key belongs to. It compares the key's
// digest with every registered digest, without stopping at a match, so the
// time taken does not depend on which entry matched.
func (k *Keyring) Authenticate(key string) (site string, ok bool) {
	if key == "" {
		return "", false
	}
	d := HashKey(key)
	found := -1
	for i := range k.entries {
		if subtle.ConstantTimeCompare(d[:], k.entries[i].digest[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return k.entries[found].site, true
}

// Len returns the number of registered keys.
func (k *Keyring) Len() int { return len(k.entries) }
