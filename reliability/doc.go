// Package reliability holds deliverykit's reliability and security
// evidence: tests that run the areas together, through the HTTP adapter and
// the example server, under faults, load, bad input and hostile tenants.
// It has no API; everything is in its _test.go files.
//
// # What is proven, and where
//
//   - Crash safety (crash_test.go): the example server binary runs on a bolt
//     file while four clients stream writes across the areas (checkout
//     create and complete, tracking orders, parcels and carrier events,
//     delivery session create and complete, returns order import and
//     customer returns, shipments created and booked), with a webhook
//     endpoint for every event type on a receiver in the test process. It
//     is killed with SIGKILL at seeded pseudo-random points (after a seeded
//     number of acknowledged writes, while the next ones are in flight) and
//     restarted. After every restart each write answered with a 2xx before
//     the kill is read back and checked for consistency, and each of its
//     cross-area effects is polled for until it is there (the outbox's and
//     the webhook sender's retry loops deliver what the kill interrupted,
//     once the killed process's short test leases have run out): a
//     completed checkout or delivery session is a tracking order under its
//     tos_id and a returnable order; a booked shipment's delivery is a
//     tracking parcel under its tracking number, and its tracking_link
//     opens the customer page; a parcel event is in the parcel's history
//     and is the notifications the rules call for; and each of these
//     reached the receiver as a webhook with a valid Standard Webhooks
//     signature (webhook.Verify). At the end every delivery the server
//     recorded is delivered and was received, and a subject's events first
//     arrived in the order they happened. A report logs the kills, the
//     acknowledged causes by kind, the effects checked, the webhooks
//     received and their duplicates. The access log holds no API key or
//     webhook secret; at the end the file passes bbolt's page-level
//     consistency check.
//   - Idempotency keys (idempotency_test.go, idempotency_crash_test.go):
//     every POST and PATCH of every served OpenAPI document is sent twice
//     with one Idempotency-Key in a fresh world; the second answer is the
//     first byte for byte with Idempotent-Replayed: true and the store is
//     unchanged, record and version. The crash variant kills the server
//     (bolt, SIGKILL at seeded points) while clients book shipments without
//     an external_id and create customer returns with keys, retries every
//     unanswered call with its key after the restart, and checks after
//     every kill that each key has at most one effect, exactly one once
//     answered (-reliability.kills for the long run).
//   - Limits and timeouts (limits_test.go): a client that never finishes
//     its header is cut off after the server's header timeout (5 s), one
//     that never finishes its body after the read timeout (30 s), while
//     other clients are served and nothing is written; SIGTERM lets a
//     request in flight finish and keeps its write, refuses new
//     connections, and the server exits cleanly.
//   - Concurrency (concurrency_test.go, under -race, on the memory and
//     bolt stores, through HTTP and the cross-area wiring): many clients
//     on one checkout session (success, 409 "repeat the call" or 403 once
//     completed; one completion, one tos_id, one tracking order, one
//     returnable order, the final cart from an acknowledged update); one
//     delivery session completed with one etag (one winner, the rest
//     ABORTED or FAILED_PRECONDITION, one tracking order); one refund
//     transaction (marked once); one tracking order, parcel and its events
//     (one order, one parcel, every acknowledged event kept); one
//     shipment booked by many clients (one tracking number, one tracking
//     parcel).
//     The area packages prove the service-level races and are not repeated
//     here: checkout.TestConcurrentUpdates (no acknowledged update lost),
//     session.TestConcurrentPatches and TestConcurrentPatchesSameEtag (the
//     etag chain), tracking.TestConcurrentCreateOrder (one order),
//     returns.TestConcurrentReturnsNeverOversell, notify.TestConcurrentDispatchSendsOnce,
//     shipment.TestConcurrentBookParcelsAssignOneNumber (one tracking
//     number per delivery), and httpapi's TestCheckoutHTTPConcurrentUpdates
//     and TestSessionHTTPConcurrentPatches.
//   - Bad input (badinput_test.go): every endpoint that reads a body gets
//     malformed JSON, non-objects, an empty object, a body past the 1 MiB
//     limit (413) and, for every member of a valid body at any depth, a
//     value of the wrong type; then out-of-range numbers, unknown enum
//     values, bad formats, huge strings, cross-field violations, bad query
//     parameters and wrong methods. Each answer must be a 4xx in the area's
//     error shape, name the field, commit no write (the store counts
//     committed writes) and log no panic. Two documented exceptions: a
//     huge string or number that neither the API nor the area limits may be
//     accepted (the test logs which), and unnamedFields lists answers
//     known not to name their field; the test fails when either gap closes
//     so that its entry is removed.
//   - Amplification (amplification_test.go): every endpoint with a body or
//     a query, checkout's included, gets the requests that cost most per
//     byte: each list field filled to the body limit with empty entries,
//     strings filling it, deep nesting, maps with as many keys as fit,
//     numbers at the int32 and int64 edges, long query values and paths.
//     Answers are never a 5xx, error answers stay under 8 KiB, refusals
//     write nothing, and the live heap after a collection stays flat
//     while the refusals are sent again; the largest allocations are
//     logged.
//   - Tenant isolation (isolation_test.go): demo-site-2's key against every
//     endpoint with demo-site's ids, tokens and links gets 404 or 403 (or an
//     empty list), none of demo-site's data and no write; customer tokens
//     (tracking page, widget, return status page) open their own door only
//     and carry 128 random bits; API keys, raw or base64, never appear in a
//     log line or an answer.
//   - Fuzzing (fuzz_test.go): a target per request decoder and validator,
//     sent through the whole stack (never a 5xx, a refusal is a 4xx in the
//     area's shape with no write), plus the returns page/sort parser, the
//     locale parser, the configuration and catalog loader and the storage
//     key helpers. The tracking-number checks of areas A and F are reached
//     through the parcel, event, shipment and query targets. Seed corpora
//     are in testdata/fuzz; plain go test runs them.
//
// # Running the long variants
//
//	go test -short ./reliability/                 # no server binary: skips crash and limits tests
//	go test -race ./reliability/                  # what CI runs: 3 kills (the crash test ~10 s)
//	go test -run TestCrashSafety ./reliability/ -reliability.kills=50 -reliability.seed=7
//	DELIVERYKIT_RELIABILITY_KILLS=50 go test -run TestCrashSafety ./reliability/
//	go test -run TestAmplification ./reliability/ -reliability.amprounds=100   # ~4 min; -race uses quarter-size bodies
//	bash .ci/fuzz.sh                              # every fuzz target, 4 s each (~3 min)
//	FUZZTIME=5m bash .ci/fuzz.sh ./reliability    # longer fuzzing
package reliability
