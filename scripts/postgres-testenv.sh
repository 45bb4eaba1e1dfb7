#!/usr/bin/env bash
# A private PostgreSQL cluster for the server's tests, in a temporary folder, on a free loopback
# port, owned by a non-root user (initdb refuses to run as root; as root the cluster runs as
# `nobody` through runuser).
#
#   eval "$(scripts/postgres-testenv.sh start)"   # prints the export lines below
#   scripts/postgres-testenv.sh stop "$TOUCHSTONE_TEST_POSTGRES_DIR"
#
# Exports:
#   TOUCHSTONE_TEST_POSTGRES_URL       postgres://touchstone@127.0.0.1:PORT/postgres (trust auth)
#   TOUCHSTONE_TEST_POSTGRES_DIR       the cluster's folder, for `stop`
# Installs Debian's `postgresql` when no server binaries are found. Progress goes to stderr.
set -euo pipefail

find_bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    dirname "$(command -v initdb)"; return 0
  fi
  return 1
}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u nobody -- "$@"
  else
    "$@"
  fi
}

start() {
  local bindir
  if ! bindir=$(find_bindir); then
    echo "postgres-testenv: installing postgresql" >&2
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq >&2
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends postgresql >&2
    bindir=$(find_bindir) || { echo "postgres-testenv: no initdb after installing postgresql" >&2; exit 1; }
  fi
  local dir port
  dir=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-pg.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown nobody "$dir"; fi
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  as_owner "$bindir/initdb" -D "$dir/data" -U touchstone --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >&2 || { cat "$dir/server.log" >&2; exit 1; }
  echo "postgres-testenv: $("$bindir/postgres" --version) on 127.0.0.1:$port in $dir" >&2
  echo "export TOUCHSTONE_TEST_POSTGRES_URL=postgres://touchstone@127.0.0.1:$port/postgres"
  echo "export TOUCHSTONE_TEST_POSTGRES_DIR=$dir"
}

stop() {
  local dir=${1:?usage: postgres-testenv.sh stop DIR}
  [ -d "$dir/data" ] || { echo "postgres-testenv: no cluster in $dir" >&2; exit 1; }
  local bindir
  bindir=$(find_bindir)
  as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) shift; stop "$@" ;;
  *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
