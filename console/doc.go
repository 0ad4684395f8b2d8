// Package console is the merchant console: the back office in the browser,
// served under /console/ by the HTTP adapter (httpapi.Options.Console)
// when a deployment turns it on. Staff of a site look up orders and their
// parcels, resend notifications, act on returns (report items returned,
// decide complaints, mark refunds paid), redeliver webhooks and retry
// dead events, and read the site's delivery figures.
//
//	c, err := console.New(console.Options{
//		Store: store, Staff: staff, Counters: counters,
//		Tracking: svc.Tracking, Notify: svc.Notify, Returns: svc.Returns,
//		Shipment: svc.Shipment, Webhooks: svc.Webhooks, Outbox: svc.Outbox,
//	})
//
// wiring builds it from the configuration's staff accounts
// (wiring.Options.Console).
//
// # Access
//
// Each staff account belongs to one site and sees and acts on that site
// only; a Viewer reads, an Operator also acts. Passwords are kept as
// argon2id hashes (auth.HashPassword; the example server prints one with
// -hash-password). A login makes a server-side session in the store: the
// cookie (HttpOnly, Secure, SameSite=Strict, path /console/) holds a
// random token whose SHA-256 is the record's key, so logging out revokes
// it on every server sharing the store. Logins are limited per client
// address and per account (LoginLimits). Every form carries the session's
// CSRF token, and a post whose Sec-Fetch-Site or Origin names another site
// is refused. Pages run no script and load nothing from elsewhere (CSP),
// and cannot be framed. No API key or secret is ever shown.
//
// An embedder with its own staff login passes an Authenticator instead of
// accounts: it maps a request to a site, user and role.
//
// # Figures
//
// The overview reads per-site daily counters and gauges that Counters
// keeps as an outbox consumer: each event is applied once, by its id, in
// one transaction. A page reads about thirty records whatever the size of
// the store; events written before the counters were registered are not
// counted. Creating a session emits no event, so the sessions and the
// completion rate come from the areas that create them (Options.Sessions:
// checkout and session count per day as they create), promise accuracy
// from Options.Promises, and the operations page's readiness from
// Options.Ready, the check /readyz makes.
package console
