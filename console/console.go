package console

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
)

// Path is where the console is served: every page is under it.
const Path = "/console/"

// CSP is the console's Content-Security-Policy: its own stylesheet,
// images and forms only, no script at all, never framed.
const CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// maxFormBytes bounds a console form; the largest, a return's report of
// returned items, is a few lines.
const maxFormBytes = 64 << 10

// Options configures the console. Store is required, and Staff or
// Authenticator; a page whose service is nil is not shown.
type Options struct {
	// Store keeps the console's sessions and counters (NewCounters on the
	// same store).
	Store storage.Store
	// Staff are the accounts that may log in, each of one site.
	Staff []Staff
	// Authenticator, when set, identifies staff instead of Staff and the
	// console's own login (an embedder's single sign-on); LoginURL is
	// where a request it does not identify is sent, and CSRFKey (32 bytes
	// or more) keys the forms' CSRF tokens.
	Authenticator Authenticator
	LoginURL      string
	CSRFKey       []byte
	// Counters are the daily counters the overview shows.
	Counters *Counters
	Tracking *tracking.Service
	Notify   *notify.Service
	Returns  *returns.Service
	Shipment *shipment.Service
	Webhooks *webhook.Service
	Outbox   *outbox.Dispatcher
	// Sessions count the checkout and delivery sessions created per day
	// (checkout.Service and session.Service): the figures' sessions and
	// completion rate. Without them neither is shown.
	Sessions []SessionCounts
	// Promises reports how often delivery promises were kept
	// (promise.Service): the checkout page's promise accuracy.
	Promises PromiseReports
	// Ready is the check GET /readyz makes (httpapi.Readiness.Check),
	// shown on the operations page; nil: not shown.
	Ready func(context.Context) error
	// Clock drives sessions, login limits and the overview's days.
	// Default: the system clock.
	Clock deliverykit.Clock
	// SessionLifetime is how long a login lasts. Default:
	// DefaultSessionLifetime.
	SessionLifetime time.Duration
	// LoginLimits bound login attempts; the zero value is the defaults.
	LoginLimits LoginLimits
	// InsecureCookies drops the Secure attribute, for a console reached
	// over plain HTTP on a machine's loopback during development only.
	InsecureCookies bool
	// Logger receives internal errors. Default: slog.Default().
	Logger *slog.Logger
}

// Console is the merchant console's http.Handler, served under Path.
type Console struct {
	opts     Options
	accounts accounts
	sessions *sessionStore
	limiter  *loginLimiter
	// checking holds a slot per password check running (LoginLimits.Concurrent).
	checking chan struct{}
	mux      *http.ServeMux
	log      *slog.Logger
}

// New returns the console of opts.
func New(opts Options) (*Console, error) {
	if opts.Store == nil {
		return nil, deliverykit.E(deliverykit.KindInvalidArgument, "console: Options.Store: required")
	}
	if opts.Authenticator != nil && len(opts.CSRFKey) < 32 {
		return nil, deliverykit.E(deliverykit.KindInvalidArgument, "console: Options.CSRFKey: want 32 bytes or more with an Authenticator")
	}
	if opts.Clock == nil {
		opts.Clock = deliverykit.SystemClock{}
	}
	if opts.SessionLifetime <= 0 {
		opts.SessionLifetime = DefaultSessionLifetime
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Counters == nil {
		opts.Counters = NewCounters(opts.Store)
	}
	acc, err := newAccounts(opts.Staff)
	if err != nil {
		return nil, fmt.Errorf("console: Options.%w", err)
	}
	c := &Console{
		opts:     opts,
		accounts: acc,
		sessions: &sessionStore{store: opts.Store, clock: opts.Clock, lifetime: opts.SessionLifetime},
		limiter:  newLoginLimiter(opts.Clock, opts.LoginLimits),
		checking: make(chan struct{}, cmp.Or(max(opts.LoginLimits.Concurrent, 0), runtime.GOMAXPROCS(0))),
		mux:      http.NewServeMux(),
		log:      opts.Logger,
	}
	c.routes()
	return c, nil
}

// Sweep deletes, at most limit (≤ 0: no limit), the sessions expired at
// now (a logout deletes its own at once) and the day counters older than
// DaysKept, and returns how many it deleted. wiring's retention sweeper
// calls it.
func (c *Console) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	n, err := c.sessions.sweep(ctx, now, limit)
	if err != nil {
		return n, fmt.Errorf("console: sweeping sessions: %w", err)
	}
	if limit > 0 && n >= limit {
		return n, nil
	}
	d, err := c.opts.Counters.Sweep(ctx, now, max(limit-n, 0))
	return n + d, err
}

// ServeHTTP serves the console's pages with its security headers.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.mux.ServeHTTP(w, r)
}

//go:embed templates/*.html static/console.css
var files embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"chart":    chart,
	"int64":    func(n int) int64 { return int64(n) },
	"inc":      func(n int) int { return n + 1 },
	"dec":      func(n int) int { return n - 1 },
	"clip":     clip,
	"shortURL": shortURL,
}).ParseFS(files, "templates/*.html"))

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// shortURL is a webhook endpoint's URL without what may carry a secret
// (user info, query, fragment): the console never shows one.
func shortURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + u.EscapedPath()
}

// staticCSS is the console's stylesheet, the one style source the CSP
// allows.
var staticCSS, _ = files.ReadFile("static/console.css")

// request is what a handler knows of a signed-in request.
type request struct {
	Principal
	csrf string
	loc  localizer
}

// handler is a page or action of a signed-in user.
type handler func(w http.ResponseWriter, r *http.Request, rq *request) error

// routes lists the console's pages and actions.
func (c *Console) routes() {
	m := c.mux
	m.HandleFunc("GET "+Path+"static/console.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write(staticCSS)
	})
	m.HandleFunc("GET "+Path+"login", c.loginPage)
	m.HandleFunc("POST "+Path+"login", c.login)
	m.HandleFunc("GET "+Path+"{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Path+"overview", http.StatusSeeOther)
	})
	m.Handle("POST "+Path+"logout", c.action(c.logout))
	m.Handle("GET "+Path+"overview", c.page(c.overview))
	m.Handle("GET "+Path+"checkout", c.page(c.checkoutPage))
	if c.opts.Tracking != nil {
		m.Handle("GET "+Path+"orders", c.page(c.orders))
		m.Handle("GET "+Path+"orders/{external_id}", c.page(c.order))
	}
	if c.opts.Notify != nil {
		m.Handle("POST "+Path+"notifications/{id}/retrigger", c.operator(c.retrigger))
	}
	if c.opts.Shipment != nil {
		m.Handle("GET "+Path+"labels/{tracking_number}", c.page(c.label))
	}
	if c.opts.Returns != nil {
		m.Handle("GET "+Path+"returns", c.page(c.returnsPage))
		m.Handle("GET "+Path+"returns/{id}", c.page(c.returnPage))
		m.Handle("POST "+Path+"returns/{id}/items", c.operator(c.reportItems))
		m.Handle("POST "+Path+"returns/{id}/complaints/{item}", c.operator(c.decideComplaint))
		m.Handle("POST "+Path+"refunds/{id}/refunded", c.operator(c.markRefunded))
	}
	if c.opts.Webhooks != nil || c.opts.Outbox != nil {
		m.Handle("GET "+Path+"operations", c.page(c.operations))
	}
	if c.opts.Webhooks != nil {
		m.Handle("POST "+Path+"webhooks/{endpoint}/redeliver/{event}", c.operator(c.redeliver))
	}
	if c.opts.Outbox != nil {
		m.Handle("POST "+Path+"events/{id}/retry", c.operator(c.retryEvent))
	}
}

// principal identifies the request's staff member and the CSRF token its
// forms carry.
func (c *Console) principal(r *http.Request) (p Principal, csrf string, ok bool, err error) {
	if c.opts.Authenticator != nil {
		p, ok, err = c.opts.Authenticator.Authenticate(r)
		if err != nil || !ok {
			return p, "", false, err
		}
		if p.Role != Viewer && p.Role != Operator {
			return p, "", false, deliverykit.Errorf(deliverykit.KindPermissionDenied, "console: the authenticator gave role %q", p.Role)
		}
		mac := hmac.New(sha256.New, c.opts.CSRFKey)
		fmt.Fprintf(mac, "%s\x00%s", p.Site, p.User)
		return p, base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), true, nil
	}
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return p, "", false, nil
	}
	rec, ok, err := c.sessions.get(r.Context(), ck.Value)
	if err != nil || !ok {
		return p, "", false, err
	}
	return Principal{Site: rec.Site, User: rec.User, Role: rec.Role}, rec.CSRF, true, nil
}

// page wraps a page: a request without a staff member goes to the login.
func (c *Console) page(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		loc := localize(r)
		p, csrf, ok, err := c.principal(r)
		if err != nil {
			c.fail(w, r, loc, err)
			return
		}
		if !ok {
			c.toLogin(w, r)
			return
		}
		rq := &request{Principal: p, csrf: csrf, loc: loc}
		if err := h(w, r, rq); err != nil {
			c.fail(w, r, loc, err)
		}
	})
}

// action wraps a form post of any staff member: it must come from a
// console page of this origin and carry the session's CSRF token.
func (c *Console) action(h handler) http.Handler {
	return c.page(func(w http.ResponseWriter, r *http.Request, rq *request) error {
		if err := checkPost(w, r, rq.csrf); err != nil {
			return err
		}
		return h(w, r, rq)
	})
}

// operator wraps an action only operators may take.
func (c *Console) operator(h handler) http.Handler {
	return c.action(func(w http.ResponseWriter, r *http.Request, rq *request) error {
		if rq.Role != Operator {
			return deliverykit.E(deliverykit.KindPermissionDenied, "console: this action needs the operator role")
		}
		return h(w, r, rq)
	})
}

// checkPost refuses a post from another site (Sec-Fetch-Site, Origin)
// and one without the expected CSRF token, and reads the bounded form.
func checkPost(w http.ResponseWriter, r *http.Request, want string) error {
	// Browsers say where a request comes from in Sec-Fetch-Site; older
	// ones in Origin only. Under the pages' Referrer-Policy (no-referrer)
	// a form's Origin is "null", which names no origin: the CSRF token
	// decides then.
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return deliverykit.Errorf(deliverykit.KindPermissionDenied, "console: a %s post is refused", site)
	}
	if origin := r.Header.Get("Origin"); origin != "" && origin != "null" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != r.Host {
			return deliverykit.E(deliverykit.KindPermissionDenied, "console: a post from another origin is refused")
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "form: %v", err)
	}
	if !tokensEqual(r.PostForm.Get("csrf"), want) {
		return deliverykit.E(deliverykit.KindPermissionDenied, "csrf: the form's token is missing or stale; reload the page")
	}
	return nil
}

func (c *Console) toLogin(w http.ResponseWriter, r *http.Request) {
	if c.opts.Authenticator != nil {
		http.Redirect(w, r, c.opts.LoginURL, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Path+"login", http.StatusSeeOther)
}

// loginView is the login page's data.
type loginView struct {
	base
	Email string
	Error string
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request) {
	c.renderLogin(w, r, localize(r), http.StatusOK, "", "")
}

// renderLogin shows the login form with a fresh double-submitted token:
// the same random value in a SameSite=Strict cookie and in the form.
func (c *Console) renderLogin(w http.ResponseWriter, r *http.Request, loc localizer, status int, email, msg string) {
	if c.opts.Authenticator != nil {
		http.Redirect(w, r, c.opts.LoginURL, http.StatusSeeOther)
		return
	}
	token, err := newToken()
	if err != nil {
		c.fail(w, r, loc, err)
		return
	}
	http.SetCookie(w, c.cookie(loginCookie, token, 0))
	v := loginView{base: base{L: loc, CSRF: token, Title: loc.T("login.title")}, Email: email, Error: msg}
	c.render(w, r, status, "login", v)
}

// cookie makes a console cookie: HttpOnly, SameSite=Strict, Secure, and
// only sent to the console's paths. maxAge < 0 deletes it; 0 makes it
// last as long as the browser session.
func (c *Console) cookie(name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: Path, MaxAge: maxAge, HttpOnly: true,
		Secure: !c.opts.InsecureCookies, SameSite: http.SameSiteStrictMode}
}

// clientAddress is the connection's address: the console is reached
// directly or through a proxy the deployment trusts to set RemoteAddr.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	loc := localize(r)
	if c.opts.Authenticator != nil {
		http.Redirect(w, r, c.opts.LoginURL, http.StatusSeeOther)
		return
	}
	ck, err := r.Cookie(loginCookie)
	want := ""
	if err == nil {
		want = ck.Value
	}
	if err := checkPost(w, r, want); err != nil {
		c.fail(w, r, loc, err)
		return
	}
	email, password := r.PostForm.Get("email"), r.PostForm.Get("password")
	if len(email) > 254 || len(password) > auth.MaxPasswordBytes {
		c.renderLogin(w, r, loc, http.StatusBadRequest, "", loc.T("login.failed"))
		return
	}
	if !c.limiter.allow(clientAddress(r), email) {
		w.Header().Set("Retry-After", fmt.Sprint(int(c.limiter.limits.Window.Seconds())))
		c.renderLogin(w, r, loc, http.StatusTooManyRequests, email, loc.T("login.throttled"))
		return
	}
	select {
	case c.checking <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		c.renderLogin(w, r, loc, http.StatusServiceUnavailable, email, loc.T("login.busy"))
		return
	}
	st, ok := c.accounts.check(email, password)
	<-c.checking
	if !ok {
		c.renderLogin(w, r, loc, http.StatusUnauthorized, email, loc.T("login.failed"))
		return
	}
	c.limiter.succeeded(email)
	// A login replaces whatever session the browser had: a session
	// fixed by someone else before the login never becomes this user's.
	if old, err := r.Cookie(sessionCookie); err == nil {
		if err := c.sessions.revoke(r.Context(), old.Value); err != nil {
			c.fail(w, r, loc, err)
			return
		}
	}
	token, _, err := c.sessions.create(r.Context(), Principal{Site: st.Site, User: st.Email, Role: st.Role})
	if err != nil {
		c.fail(w, r, loc, err)
		return
	}
	http.SetCookie(w, c.cookie(sessionCookie, token, int(c.opts.SessionLifetime.Seconds())))
	http.SetCookie(w, c.cookie(loginCookie, "", -1))
	http.Redirect(w, r, Path+"overview", http.StatusSeeOther)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request, rq *request) error {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		if err := c.sessions.revoke(r.Context(), ck.Value); err != nil {
			return err
		}
	}
	http.SetCookie(w, c.cookie(sessionCookie, "", -1))
	c.toLogin(w, r)
	return nil
}

// base is what every page's template reads.
type base struct {
	L         localizer
	CSRF      string
	Title     string
	Principal Principal
	Nav       string // the current section
	Sections  []section
	Notice    string
}

type section struct {
	Name, Path string
}

// base returns the page frame of rq, with the sections served.
func (c *Console) base(rq *request, nav, title string) base {
	b := base{L: rq.loc, CSRF: rq.csrf, Title: title, Principal: rq.Principal, Nav: nav}
	b.Sections = append(b.Sections, section{"overview", Path + "overview"}, section{"checkout", Path + "checkout"})
	if c.opts.Tracking != nil {
		b.Sections = append(b.Sections, section{"orders", Path + "orders"})
	}
	if c.opts.Returns != nil {
		b.Sections = append(b.Sections, section{"returns", Path + "returns"})
	}
	if c.opts.Webhooks != nil || c.opts.Outbox != nil {
		b.Sections = append(b.Sections, section{"operations", Path + "operations"})
	}
	return b
}

// render executes a page template; a template error is a bug, logged and
// answered 500 before anything was written.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf strings.Builder
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		c.log.ErrorContext(r.Context(), "console: render", "page", name, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}

// errorView is the error page's data.
type errorView struct {
	base
	Status  int
	Message string
}

// statusOf maps an error's kind to the page's status.
var statusOf = map[deliverykit.Kind]int{
	deliverykit.KindNotFound:           http.StatusNotFound,
	deliverykit.KindInvalidArgument:    http.StatusBadRequest,
	deliverykit.KindConflict:           http.StatusConflict,
	deliverykit.KindFailedPrecondition: http.StatusConflict,
	deliverykit.KindPermissionDenied:   http.StatusForbidden,
	deliverykit.KindUnauthenticated:    http.StatusUnauthorized,
	deliverykit.KindAlreadyExists:      http.StatusConflict,
	deliverykit.KindUnavailable:        http.StatusServiceUnavailable,
}

// fail shows err as a page: the message of a caller's mistake, or
// "internal error" for the rest, whose details go to the log.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, loc localizer, err error) {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		err = deliverykit.E(deliverykit.KindInvalidArgument, "form: too large")
	}
	status, ok := statusOf[deliverykit.KindOf(err)]
	msg := err.Error()
	if !ok {
		status, msg = http.StatusInternalServerError, loc.T("error.internal")
		c.log.ErrorContext(r.Context(), "console: internal error", "path", r.URL.Path, "error", err)
	}
	v := errorView{base: base{L: loc, Title: loc.T("error.title")}, Status: status, Message: msg}
	c.render(w, r, status, "error", v)
}

// done sends the browser back to a page after an action, with a notice
// naming what was done.
func done(w http.ResponseWriter, r *http.Request, to, notice string) error {
	http.Redirect(w, r, to+"?done="+url.QueryEscape(notice), http.StatusSeeOther)
	return nil
}

// notice is the text of a ?done= notice, if it is one of ours.
func notice(r *http.Request, loc localizer) string {
	n := r.URL.Query().Get("done")
	if n == "" || len(n) > 64 || !loc.has("done."+n) {
		return ""
	}
	return loc.T("done." + n)
}
