package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/tracking"
)

// tokenPaths are the path prefixes followed by a customer's page token: the
// tracking page and the return status page. The token is the page's only
// credential, so whoever reads the logs could open the page.
var tokenPaths = []string{tracking.PagePath, returns.StatusPagePath}

// logPath is the path as logs show it: after a token path prefix, the rest
// of the path becomes "…" and the first 8 hex digits of its SHA-256, so
// that requests for one page can still be correlated. Those 32 bits of the
// hash of a 128-bit random token say nothing usable about the token.
// Every path is redacted, matched or not: a mistyped link still carries a
// real token.
func logPath(p string) string {
	for _, prefix := range tokenPaths {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" {
			sum := sha256.Sum256([]byte(rest))
			return prefix + "…" + hex.EncodeToString(sum[:4])
		}
	}
	return p
}
