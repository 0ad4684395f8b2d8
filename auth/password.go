package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/deliverykit/deliverykit"
	"golang.org/x/crypto/argon2"
)

// Role is what a merchant console account may do: a Viewer reads, an
// Operator also acts (retriggers, decides, marks, redelivers, retries).
type Role string

const (
	Viewer   Role = "viewer"
	Operator Role = "operator"
)

// Staff is a merchant console account of one site, as the configuration
// lists it.
type Staff struct {
	// Site is the site the account sees and acts on, and no other.
	Site string
	// Email names the account at login, compared without case.
	Email string
	Role  Role
	// PasswordHash is the password's argon2id hash (HashPassword).
	PasswordHash string
}

// The argon2id parameters of new hashes: RFC 9106's second recommended
// option (64 MiB, three passes), which keeps a login near 100 ms on a
// small server while making a stolen hash costly to guess.
const (
	hashMemoryKiB = 64 * 1024
	hashTime      = 3
	hashThreads   = 2
	hashSaltBytes = 16
	hashKeyBytes  = 32
)

// Limits on what a hash or a password may be before it is read: a
// configured hash cannot make a login allocate gigabytes or loop for
// minutes, and a password is bounded like any other input.
const (
	// MaxPasswordBytes is the longest password a login accepts.
	MaxPasswordBytes = 256
	maxHashMemoryKiB = 256 * 1024
	maxHashTime      = 10
	maxHashBytes     = 256
)

// HashPassword returns password's argon2id hash in the PHC string format
// ($argon2id$v=19$m=…,t=…,p=…$salt$key), the form the configuration's
// staff accounts take.
func HashPassword(password string) (string, error) {
	if password == "" || len(password) > MaxPasswordBytes {
		return "", deliverykit.Errorf(deliverykit.KindInvalidArgument, "password: want 1 to %d bytes, got %d", MaxPasswordBytes, len(password))
	}
	salt := make([]byte, hashSaltBytes)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, hashTime, hashMemoryKiB, hashThreads, hashKeyBytes)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, hashMemoryKiB, hashTime, hashThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// passwordHash is a parsed PHC argon2id string.
type passwordHash struct {
	memory  uint32
	time    uint32
	threads uint8
	salt    []byte
	key     []byte
}

// CheckPasswordHash reports whether hash is an argon2id hash this package
// can verify, with parameters within its limits; the configuration checks
// its staff accounts with it.
func CheckPasswordHash(hash string) error {
	_, err := parseHash(hash)
	return err
}

func parseHash(hash string) (passwordHash, error) {
	var h passwordHash
	if len(hash) > maxHashBytes {
		return h, deliverykit.Errorf(deliverykit.KindInvalidArgument, "password hash: longer than %d bytes", maxHashBytes)
	}
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return h, deliverykit.E(deliverykit.KindInvalidArgument, "password hash: want $argon2id$v=19$m=…,t=…,p=…$salt$key")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return h, deliverykit.Errorf(deliverykit.KindInvalidArgument, "password hash: want version v=%d", argon2.Version)
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.memory, &h.time, &h.threads); err != nil {
		return h, deliverykit.Errorf(deliverykit.KindInvalidArgument, "password hash: parameters %q: want m=…,t=…,p=…", parts[3])
	}
	if h.memory < 8*uint32(h.threads) || h.memory > maxHashMemoryKiB || h.time < 1 || h.time > maxHashTime || h.threads < 1 {
		return h, deliverykit.Errorf(deliverykit.KindInvalidArgument, "password hash: parameters %q outside m ≤ %d, 1 ≤ t ≤ %d, p ≥ 1", parts[3], maxHashMemoryKiB, maxHashTime)
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(h.salt) < 8 {
		return h, deliverykit.E(deliverykit.KindInvalidArgument, "password hash: salt: want 8 bytes or more in unpadded base64")
	}
	if h.key, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(h.key) < 16 {
		return h, deliverykit.E(deliverykit.KindInvalidArgument, "password hash: key: want 16 bytes or more in unpadded base64")
	}
	return h, nil
}

// VerifyPassword reports whether password matches hash, comparing in
// constant time. A hash that does not parse matches nothing.
func VerifyPassword(hash, password string) bool {
	h, err := parseHash(hash)
	if err != nil || len(password) > MaxPasswordBytes {
		return false
	}
	key := argon2.IDKey([]byte(password), h.salt, h.time, h.memory, h.threads, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(key, h.key) == 1
}
