#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on 127.0.0.1 for the tests, installing
# Debian's postgresql package first if the machine lacks it, and prints the
# line to export its DSN:
#
#   eval "$(bash .ci/postgres.sh)"     # sets RECAP_TEST_POSTGRES_DSN
#
# The server runs as the postgres user from a fresh data directory under
# /tmp, on port 55432 (PGPORT overrides), with trust authentication on
# loopback only. `pg_ctl -D "$PGDATA" stop` stops it.
set -euo pipefail
port=${PGPORT:-55432}

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
	echo "installing postgresql from Debian's packages" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq postgresql >&2
	bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi

run() {
	if [ "$(id -u)" = 0 ]; then
		su postgres -s /bin/sh -c "$*"
	else
		sh -c "$*"
	fi
}

data=$(mktemp -d /tmp/recap-pg.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres: "$data"
run "'$bindir/initdb' -D '$data' -A trust -U postgres --no-sync" >&2
run "'$bindir/pg_ctl' -D '$data' -w -t 60 -l '$data/server.log' -o \"-c listen_addresses=127.0.0.1 -p $port -k '$data' -c fsync=off\" start" >&2
run "'$bindir/psql' -h 127.0.0.1 -p $port -U postgres -d postgres -qc 'CREATE DATABASE recap_test'" >&2
echo "export RECAP_TEST_POSTGRES_DSN='postgres://postgres@127.0.0.1:$port/recap_test?sslmode=disable' PGDATA='$data' PGBIN='$bindir'"
