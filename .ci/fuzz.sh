#!/usr/bin/env bash
# Fuzzes every Go fuzz target in the module briefly and fails on the first
# failure (the failing input is saved under the package's testdata/fuzz/ by
# go test; commit it as a regression seed once the bug is fixed).
#
#   bash .ci/fuzz.sh                  # each target FUZZTIME (default 4s)
#   FUZZTIME=2m bash .ci/fuzz.sh      # longer runs
#   FUZZTIME=30s bash .ci/fuzz.sh ./reliability   # one package
#
# Targets are found with `go test -list`, so a new Fuzz function in any
# package is fuzzed without editing this file.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-4s}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	mapfile -t pkgs < <(go list ./...)
fi
# fuzz_one runs one target. Go before 1.27 can fail a target with a bare
# "context deadline exceeded" when a timed -fuzztime ends while a worker is
# mid-input (golang/go#75804): no input is written and nothing was found.
# That case is run once more for a number of inputs instead of a time
# (-fuzztime Nx has no deadline to race); a failing input, a panic or a
# second failure fails the job.
fuzz_one() {
	local out status budget=$fuzztime
	for attempt in 1 2; do
		set +e
		out=$(go test -run '^$' -fuzz "^${2}\$" -fuzztime "$budget" "$1" 2>&1)
		status=$?
		set -e
		printf '%s\n' "$out" | grep -v '^fuzz: elapsed' | tail -n 40
		printf '%s\n' "$out" | grep '^fuzz: elapsed' | tail -n 1
		[ $status -eq 0 ] && return 0
		if [ $attempt -eq 1 ] && printf '%s' "$out" | grep -q 'context deadline exceeded' &&
			! printf '%s' "$out" | grep -q -e 'Failing input written' -e 'panic:' -e '_test.go:[0-9]'; then
			echo "fuzz: deadline race of the fuzzing engine (golang/go#75804), nothing found; running $2 again for ${FUZZRETRYEXECS:-20000} inputs"
			budget="${FUZZRETRYEXECS:-20000}x"
			continue
		fi
		return 1
	done
	return 1
}

count=0
for pkg in "${pkgs[@]}"; do
	# Only packages with a fuzz target: cheap to ask, no test binary run.
	if ! grep -qs '^func Fuzz' $(go list -f '{{range .TestGoFiles}}{{$.Dir}}/{{.}} {{end}}{{range .XTestGoFiles}}{{$.Dir}}/{{.}} {{end}}' "$pkg") /dev/null; then
		continue
	fi
	for name in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		printf '== %s %s (%s)\n' "$pkg" "$name" "$fuzztime"
		fuzz_one "$pkg" "$name"
		count=$((count + 1))
	done
done
echo "fuzzed $count targets for $fuzztime each"
