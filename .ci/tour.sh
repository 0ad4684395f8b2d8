#!/usr/bin/env bash
# Runs the README's tour (examples/tour/tour.sh) and its test mode script
# (examples/tour/testmode.sh) twice against one example server on a memory
# store: they work on a fresh server, and again on one that has seen them
# (the tour's order and tracking numbers are per run; test mode makes a
# new test site each run).
# Needs go, curl and jq. Exits non-zero when either run fails.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d)
server=
cleanup() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
fail() {
	echo "tour: $*; the server's log:" >&2
	tail -n 50 "$dir/log" >&2
	exit 1
}

go build -o "$dir/server" ./examples/server
# Port 0: the kernel picks a free port, which the server logs.
"$dir/server" -store memory -addr 127.0.0.1:0 >"$dir/log" 2>&1 &
server=$!

addr=
for _ in $(seq 100); do
	addr=$(sed -n 's/.*msg="deliverykit listening" addr=\([^ ]*\).*/\1/p' "$dir/log")
	[ -n "$addr" ] && break
	kill -0 "$server" 2>/dev/null || fail "the server exited"
	sleep 0.1
done
[ -n "$addr" ] || fail "the server did not say where it listens within 10s"
for _ in $(seq 100); do
	curl -fsS -o /dev/null "http://$addr/readyz" 2>/dev/null && break
	sleep 0.1
done
curl -fsS -o /dev/null "http://$addr/readyz" || fail "/readyz did not answer 200 within 10s"

for run in 1 2; do
	echo "-- tour, run $run, against http://$addr"
	bash examples/tour/tour.sh "http://$addr" || fail "run $run failed"
	echo "-- test mode, run $run"
	bash examples/tour/testmode.sh "http://$addr" || fail "test mode, run $run, failed"
done
