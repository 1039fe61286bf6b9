#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server on a loopback port for the tests, installing
# Debian's postgresql first when no server binaries are found. Prints the connection
# URL on its last line; `scripts/test-postgres.sh stop <datadir>` stops it.
set -euo pipefail

if [ "${1:-}" = "stop" ]; then
  runuser -u postgres -- "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)/pg_ctl" -D "$2" -m immediate stop >/dev/null 2>&1 || true
  exit 0
fi

bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "installing postgresql (Debian)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
  bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
fi
id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql postgres

port=${PGPORT_TEST:-55432}
# The first free port from there on.
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
datadir=$(mktemp -d /tmp/langgraph-a2a-pg.XXXXXX)
chown postgres "$datadir"
runuser -u postgres -- "$bindir/initdb" -D "$datadir" -A trust -U postgres >/dev/null
runuser -u postgres -- "$bindir/pg_ctl" -D "$datadir" -l "$datadir/server.log" -w \
  -o "-p $port -k $datadir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null
echo "datadir=$datadir" >&2
echo "postgres://postgres@127.0.0.1:$port/postgres"
