package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Role is what a staff member may do: a Viewer reads, an Operator also
// acts. Accounts and their passwords are package auth's, shared with the
// configuration.
type Role = auth.Role

const (
	Viewer   = auth.Viewer
	Operator = auth.Operator
)

// Staff is a staff account of one site, as the configuration lists it.
type Staff = auth.Staff

// Principal is who a console request comes from.
type Principal struct {
	Site string
	User string
	Role Role
}

// Authenticator identifies the staff member behind a request for an
// embedder with its own staff login (single sign-on, its own sessions):
// ok false sends the browser to Options.LoginURL. With an Authenticator
// the console keeps no accounts or sessions of its own; the embedder's
// login is then responsible for its cookies' SameSite, and the console
// still checks a CSRF token (derived from Options.CSRFKey) on every form.
type Authenticator interface {
	Authenticate(r *http.Request) (p Principal, ok bool, err error)
}

// Names of the cookies: the session, and the login form's token (a
// double-submitted token: the login form has no session yet).
const (
	sessionCookie = "console_session"
	loginCookie   = "console_login"
)

// DefaultSessionLifetime is how long a console session lasts when
// Options.SessionLifetime is zero: a working day.
const DefaultSessionLifetime = 8 * time.Hour

// sessionRecord is a console session as stored: the cookie holds a random
// token, the store its SHA-256 only, so a read of the store gives no
// working cookie.
type sessionRecord struct {
	Site    string    `json:"site"`
	User    string    `json:"user"`
	Role    Role      `json:"role"`
	CSRF    string    `json:"csrf"`
	Expires time.Time `json:"expires"`
}

var sessions = storage.Collection[sessionRecord]{Name: "console.sessions"}

// expiry is the sessions' time index (package retention): class
// "session" at the session's expiry, so Console.Sweep deletes the
// sessions nobody logged out of.
var expiry = retention.Index{Name: "console.expiry"}

const classSession = "session"

func sessionEntry(rec sessionRecord) retention.Entry {
	return retention.Entry{Class: classSession, At: rec.Expires}
}

// newToken is 32 random bytes in URL-safe base64: a session, CSRF or
// login form token.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("console: token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// maxTokenBytes bounds a cookie or form token before it is hashed or
// compared; real ones are 43 bytes.
const maxTokenBytes = 64

func sessionKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// sessionStore keeps console sessions in the store, so a logout on one
// server of several is a logout on all.
type sessionStore struct {
	store    storage.Store
	clock    deliverykit.Clock
	lifetime time.Duration
}

// create stores a session for p and returns its cookie token.
func (s *sessionStore) create(ctx context.Context, p Principal) (string, sessionRecord, error) {
	token, err := newToken()
	if err != nil {
		return "", sessionRecord{}, err
	}
	csrf, err := newToken()
	if err != nil {
		return "", sessionRecord{}, err
	}
	rec := sessionRecord{Site: p.Site, User: p.User, Role: p.Role, CSRF: csrf, Expires: s.clock.Now().Add(s.lifetime)}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		key := sessionKey(token)
		if _, err := sessions.Put(tx, key, rec, storage.MustNotExist()); err != nil {
			return err
		}
		return expiry.Move(tx, key, retention.Entry{}, sessionEntry(rec))
	})
	if err != nil {
		return "", sessionRecord{}, fmt.Errorf("console: store session: %w", err)
	}
	return token, rec, nil
}

// get returns the live session of token; ok is false for an unknown,
// revoked or expired one.
func (s *sessionStore) get(ctx context.Context, token string) (rec sessionRecord, ok bool, err error) {
	if token == "" || len(token) > maxTokenBytes {
		return rec, false, nil
	}
	err = s.store.View(ctx, func(tx storage.Tx) error {
		it, err := sessions.Get(tx, sessionKey(token))
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rec, ok = it.Value, s.clock.Now().Before(it.Value.Expires)
		return nil
	})
	if err != nil {
		return rec, false, fmt.Errorf("console: read session: %w", err)
	}
	return rec, ok, nil
}

// revoke deletes the session of token: its cookie no longer works
// anywhere, whatever the browser keeps.
func (s *sessionStore) revoke(ctx context.Context, token string) error {
	if token == "" || len(token) > maxTokenBytes {
		return nil
	}
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		key := sessionKey(token)
		it, err := sessions.Get(tx, key)
		if errors.Is(err, deliverykit.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := sessions.Delete(tx, key, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		return expiry.Remove(tx, key, sessionEntry(it.Value))
	})
	if err != nil {
		return fmt.Errorf("console: revoke session: %w", err)
	}
	return nil
}

// sweep deletes, at most limit, the sessions expired at now.
func (s *sessionStore) sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	return expiry.SweepClasses(ctx, s.store, now, limit, []retention.Class{{Name: classSession, Keep: time.Nanosecond}}, deleteSession)
}

// deleteSession deletes the expired session at key, the one its entry e
// was written for.
func deleteSession(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, err := sessions.Get(tx, key)
	if errors.Is(err, deliverykit.ErrNotFound) {
		return false, nil
	}
	if err != nil || !sessionEntry(it.Value).Same(e) {
		return false, err
	}
	return true, sessions.Delete(tx, key, storage.VersionIs(it.Version))
}

// tokensEqual compares two tokens in constant time; empty never matches.
func tokensEqual(a, b string) bool {
	return a != "" && len(a) <= maxTokenBytes && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// LoginLimits bound login attempts in a window: per client address (one
// machine guessing many accounts) and per account (many machines guessing
// one). Zero fields take the defaults.
type LoginLimits struct {
	// PerAddress is the attempts one address may make. Default: 20.
	PerAddress int
	// PerAccount is the attempts one account may be tried with. Default: 5.
	PerAccount int
	// Window is how long attempts count. Default: 15 minutes.
	Window time.Duration
	// Concurrent is how many password checks run at once. Each takes the
	// hash's 64 MiB for about 100 ms, so logins from many addresses at
	// once are answered 503 past it rather than growing the process by
	// 64 MiB each. Default: GOMAXPROCS.
	Concurrent int
}

// maxLimiterEntries bounds the limiter's memory: past it, windows that
// have ended are dropped, and if none has the newest attempt is refused
// rather than remembered, so a flood of addresses cannot grow it.
const maxLimiterEntries = 100_000

// loginLimiter counts login attempts per key in fixed windows.
type loginLimiter struct {
	mu      sync.Mutex
	clock   deliverykit.Clock
	limits  LoginLimits
	windows map[string]window
}

type window struct {
	start time.Time
	n     int
}

func newLoginLimiter(clock deliverykit.Clock, l LoginLimits) *loginLimiter {
	if l.PerAddress <= 0 {
		l.PerAddress = 20
	}
	if l.PerAccount <= 0 {
		l.PerAccount = 5
	}
	if l.Window <= 0 {
		l.Window = 15 * time.Minute
	}
	return &loginLimiter{clock: clock, limits: l, windows: map[string]window{}}
}

// allow counts an attempt from address at account and reports whether
// both are within their limits.
func (l *loginLimiter) allow(address, account string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.clock.Now()
	a := l.take("addr:"+address, l.limits.PerAddress, now)
	b := l.take("acct:"+strings.ToLower(account), l.limits.PerAccount, now)
	return a && b
}

// succeeded gives back the attempt a successful login of account
// counted: the limit is on guesses, and staff who log in often (a shared
// account on several machines) never reach it. The address's attempt
// stays counted.
func (l *loginLimiter) succeeded(account string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := "acct:" + strings.ToLower(account)
	if w, ok := l.windows[key]; ok && w.n > 0 {
		w.n--
		l.windows[key] = w
	}
}

func (l *loginLimiter) take(key string, limit int, now time.Time) bool {
	w, ok := l.windows[key]
	if !ok || now.Sub(w.start) >= l.limits.Window {
		if !ok && len(l.windows) >= maxLimiterEntries {
			for k, old := range l.windows {
				if now.Sub(old.start) >= l.limits.Window {
					delete(l.windows, k)
				}
			}
			if len(l.windows) >= maxLimiterEntries {
				return false
			}
		}
		w = window{start: now}
	}
	w.n++
	l.windows[key] = w
	return w.n <= limit
}

// accounts finds staff accounts by e-mail.
type accounts map[string]Staff

func newAccounts(staff []Staff) (accounts, error) {
	a := accounts{}
	for i, st := range staff {
		email := strings.ToLower(strings.TrimSpace(st.Email))
		switch {
		case email == "" || len(email) > 254 || !strings.Contains(email, "@"):
			return nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "staff[%d].email: want an e-mail address of at most 254 bytes", i)
		case st.Site == "":
			return nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "staff[%d].site: required", i)
		case st.Role != Viewer && st.Role != Operator:
			return nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "staff[%d].role: want viewer or operator, got %q", i, st.Role)
		}
		if err := auth.CheckPasswordHash(st.PasswordHash); err != nil {
			return nil, fmt.Errorf("staff[%d].password_hash: %w", i, err)
		}
		if _, dup := a[email]; dup {
			return nil, deliverykit.Errorf(deliverykit.KindInvalidArgument, "staff[%d].email: %s is listed twice", i, email)
		}
		st.Email = email
		a[email] = st
	}
	return a, nil
}

// dummyHash is verified against when the e-mail is unknown, so that a
// login takes as long whether or not the account exists.
// It is made at the first login, not when a program that imports the
// package starts.
var dummyHash = sync.OnceValue(func() string {
	h, err := auth.HashPassword("no account has this password")
	if err != nil {
		panic(err)
	}
	return h
})

// check returns the account of email if password is its password.
func (a accounts) check(email, password string) (Staff, bool) {
	st, ok := a[strings.ToLower(strings.TrimSpace(email))]
	if !ok {
		auth.VerifyPassword(dummyHash(), password)
		return Staff{}, false
	}
	return st, auth.VerifyPassword(st.PasswordHash, password)
}
