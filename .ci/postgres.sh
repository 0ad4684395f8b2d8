#!/usr/bin/env bash
# Starts and stops a throw-away PostgreSQL cluster for the storage/postgres
# tests.
#
#	eval "$(bash .ci/postgres.sh start)"   # prints export lines on stdout
#	trap 'bash .ci/postgres.sh stop' EXIT  # stops it and removes its files
#	go test ./storage/postgres/
#
# start installs Debian's postgresql when it is missing, initialises a
# cluster in a new temporary directory as the unprivileged "postgres" user
# (PostgreSQL refuses to run as root), and starts it listening on a unix
# socket in that directory only: no TCP port, so it cannot clash with
# another cluster or be reached from the network. It prints
# DELIVERYKIT_POSTGRES_DSN, which the tests read, and
# DELIVERYKIT_POSTGRES_DIR, which stop reads. Everything else goes to
# stderr, so that eval sees only the export lines.
set -euo pipefail

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

# as_owner runs a command as the cluster's owner: the postgres user when we
# are root, ourselves otherwise.
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# bindir prints the newest installed server's bin directory.
bindir() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
		return 1
	fi
	printf '%s\n' "$d"
}

start() {
	if ! bindir >/dev/null; then
		if [ "$(id -u)" -ne 0 ]; then
			log "PostgreSQL is not installed and we are not root: apt-get install postgresql"
			exit 1
		fi
		log "installing postgresql"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		apt-get install -y -qq postgresql >&2
	fi
	local bin dir
	bin=$(bindir)
	# Always under /tmp, not $TMPDIR: the postgres user must be able to
	# reach the directory, and a unix socket path has to stay under 108
	# bytes.
	dir=$(mktemp -d /tmp/deliverykit-postgres.XXXXXX)
	# Readable by everyone so that the tests, which may run as another
	# user than the cluster's owner, can reach the socket.
	chmod 755 "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$dir"
	fi
	log "initialising a cluster in $dir with $bin"
	# trust on the local socket only: the socket lives in a directory of
	# this test run, and there is no TCP listener.
	# C.UTF-8 where the system has it (Debian does), else plain C: the
	# store compares bytea, so the collation never matters for key order.
	as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >&2 ||
		as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >&2 || {
		rm -rf -- "$dir"
		exit 1
	}
	# max_connections leaves room for test packages running in parallel,
	# each with several pools.
	as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses='' -k $dir -c max_connections=200" start >&2 || {
		cat "$dir/server.log" >&2 || true
		rm -rf -- "$dir"
		exit 1
	}
	as_owner "$bin/createdb" -h "$dir" -U postgres deliverykit >&2 || {
		# Nobody learns the directory when start fails: stop it here.
		DELIVERYKIT_POSTGRES_DIR=$dir stop
		exit 1
	}
	log "PostgreSQL is running on the socket in $dir"
	printf "export DELIVERYKIT_POSTGRES_DSN='host=%s user=postgres dbname=deliverykit sslmode=disable'\n" "$dir"
	printf "export DELIVERYKIT_POSTGRES_DIR='%s'\n" "$dir"
}

stop() {
	local dir=${DELIVERYKIT_POSTGRES_DIR:-}
	if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
		log "nothing to stop (DELIVERYKIT_POSTGRES_DIR is not a cluster started by this script)"
		return 0
	fi
	local bin
	bin=$(bindir)
	as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
	rm -rf -- "$dir"
	log "stopped and removed $dir"
}

case "${1:-}" in
	start) start ;;
	stop) stop ;;
	*)
		echo "usage: $0 start|stop" >&2
		exit 2
		;;
esac
