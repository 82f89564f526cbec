#!/usr/bin/env bash
# Starts a throwaway Redis server on 127.0.0.1 for the tests, installing
# Debian's redis-server package first if the machine lacks it, and prints the
# line to export its address:
#
#   eval "$(bash .ci/redis.sh)"     # sets RECAP_TEST_REDIS_ADDR
#
# The server runs from a fresh directory under /tmp, on port 56379
# (RECAP_REDIS_PORT overrides), bound to loopback, with no persistence (no RDB
# snapshots, no append-only file). `kill "$(cat "$RECAP_REDIS_DIR/redis.pid")"`
# stops it. Installing the package does not start Debian's own service where
# a policy-rc.d forbids it (as in containers); where it does, that one is on
# port 6379 and left alone.
set -euo pipefail
port=${RECAP_REDIS_PORT:-56379}

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	echo "installing redis-server from Debian's packages" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq redis-server >&2
fi

cli() { redis-cli -h 127.0.0.1 -p "$port" "$@" 2>/dev/null; }

# A server already on the port (left by an earlier run) would answer the
# pings below in place of ours, with its old keys.
if [ "$(cli ping || true)" = PONG ]; then
	echo "a server already answers on 127.0.0.1:$port; stop it or set RECAP_REDIS_PORT" >&2
	exit 1
fi

dir=$(mktemp -d /tmp/recap-redis.XXXXXX)
redis-server --bind 127.0.0.1 --port "$port" --protected-mode yes \
	--save '' --appendonly no --dir "$dir" \
	--daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2

# Wait at most 10 s for it to answer.
for _ in $(seq 100); do
	if [ "$(cli ping || true)" = PONG ] && [ -s "$dir/redis.pid" ]; then
		echo "export RECAP_TEST_REDIS_ADDR='127.0.0.1:$port' RECAP_REDIS_DIR='$dir'"
		exit 0
	fi
	sleep 0.1
done
echo "redis-server did not answer on 127.0.0.1:$port within 10 s; its log:" >&2
cat "$dir/redis.log" >&2
exit 1
