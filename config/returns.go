package config

import (
	"encoding/hex"

	"github.com/deliverykit/deliverykit"
)

// Returns configures the returns area of every site.
type Returns struct {
	// ImageURLSecret signs the download URLs of complaint photos
	// (HMAC-SHA256): 64 or more hexadecimal digits (at least 32 bytes),
	// e.g. from `openssl rand -hex 32`. Every server of a deployment needs
	// the same secret; changing it makes URLs handed out before stop
	// working. Without it each server makes a random one at start.
	ImageURLSecret string `json:"image_url_secret,omitempty"`
}

// MinImageURLSecretBytes is the shortest signing secret accepted: the
// size of the HMAC-SHA256 output.
const MinImageURLSecretBytes = 32

func (r *Returns) validate() []deliverykit.FieldViolation {
	if r == nil || r.ImageURLSecret == "" {
		return nil
	}
	b, err := hex.DecodeString(r.ImageURLSecret)
	if err != nil || len(b) < MinImageURLSecretBytes {
		return []deliverykit.FieldViolation{{Field: "returns.image_url_secret", Rule: "hex",
			Message: "must be at least 64 hexadecimal digits (32 bytes)"}}
	}
	return nil
}

// ImageURLSecret is the configured signing secret of complaint photo URLs,
// nil when none is configured. c must be valid.
func (c *Config) ImageURLSecret() []byte {
	if c.Returns == nil || c.Returns.ImageURLSecret == "" {
		return nil
	}
	b, _ := hex.DecodeString(c.Returns.ImageURLSecret)
	return b
}
