# Sourced by scripts that need a running touchstone-server (login-demo.sh, server-test.sh):
#   start_login_server BIN   starts BIN on a free loopback port with a temporary SQLite database,
#                            waits for /health (fails loudly if it never answers) and sets
#                            LOGIN_SERVER_URL, LOGIN_SERVER_PID, LOGIN_SERVER_DATA
#   stop_login_server        SIGTERM, wait, remove the database; fails if the exit status is not 0
start_login_server() {
  # start_login_server BIN [DATABASE_URL [MORE SERVER OPTIONS...]]: a fresh SQLite database by default.
  local bin=$1 port database
  shift
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  LOGIN_SERVER_DATA=$(mktemp -d)
  database=${1:-sqlite://$LOGIN_SERVER_DATA/login.sqlite}
  [ $# -gt 0 ] && shift
  "$bin" --host 127.0.0.1 --port "$port" --database "$database" --log-level warning "$@" &
  LOGIN_SERVER_PID=$!
  LOGIN_SERVER_URL="http://127.0.0.1:$port"
  if ! python3 - "$port" "$LOGIN_SERVER_PID" <<'PY'
import os, sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/health"
for _ in range(150):
    try:
        os.kill(int(sys.argv[2]), 0)
    except OSError:
        sys.exit(f"touchstone-server exited before answering {url}")
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(f"touchstone-server did not answer {url} within 15 s")
PY
  then
    kill -TERM "$LOGIN_SERVER_PID" 2>/dev/null || true
    rm -rf "$LOGIN_SERVER_DATA"
    LOGIN_SERVER_PID=
    return 1
  fi
}

stop_login_server() {
  [ -n "${LOGIN_SERVER_PID:-}" ] || return 0
  local status=0
  kill -TERM "$LOGIN_SERVER_PID"
  wait "$LOGIN_SERVER_PID" || status=$?
  LOGIN_SERVER_PID=
  rm -rf "$LOGIN_SERVER_DATA"
  if [ "$status" -ne 0 ]; then
    echo "touchstone-server exited $status after SIGTERM (expected 0)" >&2
    return 1
  fi
}

# run_repl_transcript SCRIPT [NAME=VALUE ...]: runs Tests/ServerTranscripts/SCRIPT with the REPL
# ($touchstone) against $LOGIN_SERVER_URL, with the flags of its `# args:` line and the given
# environment; prints its output and exit status with the port, UUIDs and App Attest key ids masked.
run_repl_transcript() {
  local script=$1 output run_status=0 flags
  shift
  read -r -a flags <<<"$(sed -n 's/^# args://p' "Tests/ServerTranscripts/$script" | head -1)"
  output=$(cd Tests/ServerTranscripts && env "$@" TOUCHSTONE_LOGIN_SERVER="$LOGIN_SERVER_URL" \
    "$touchstone" "${flags[@]}" "$script" 2>&1) || run_status=$?
  printf '%s\n[exit %s]\n' "$output" "$run_status" | sed -E \
    -e "s#$LOGIN_SERVER_URL#http://127.0.0.1:<port>#g" \
    -e 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/<id>/g' \
    -e 's#key [A-Za-z0-9+/]{43}=#key <key-id>#g'
}

# check_transcript EXPECTED ACTUAL WHAT: fails, showing the difference, unless ACTUAL equals the
# file EXPECTED (UPDATE_TRANSCRIPTS=1 rewrites the file instead).
check_transcript() {
  local expected=$1 actual=$2 what=$3
  if [ "${UPDATE_TRANSCRIPTS:-}" = "1" ]; then
    printf '%s\n' "$actual" > "$expected"
  elif ! diff -u "$expected" <(printf '%s\n' "$actual"); then
    echo "$what differs from $expected (UPDATE_TRANSCRIPTS=1 rewrites it)" >&2
    return 1
  fi
}
