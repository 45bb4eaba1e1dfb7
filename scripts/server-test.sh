#!/usr/bin/env bash
# The login server's tests (Server/): installs missing system packages, starts a private
# PostgreSQL cluster (scripts/postgres-testenv.sh), runs the Swift Testing suite against SQLite
# and PostgreSQL, then checks that the executable answers /health and exits 0 on SIGTERM.
# The cluster is stopped however the run ends.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

scripts/install-deps.sh
# prometheus-client's text parser, which reads /metrics below (and pyattest, for the root tests).
scripts/pyattest-env.sh

eval "$(scripts/postgres-testenv.sh start)"
# shellcheck source=scripts/login-server-lib.sh
. scripts/login-server-lib.sh
# (A cluster left stopped by the frozen-PostgreSQL check below is resumed first, or pg_ctl
# would wait for it and its processes would outlive the run.)
thaw_postgres() {
  local postmaster
  postmaster=$(head -1 "$TOUCHSTONE_TEST_POSTGRES_DIR/data/postmaster.pid" 2>/dev/null) || return 0
  kill -CONT "$postmaster" $(pgrep -P "$postmaster") 2>/dev/null || true
}
trap 'stop_login_server || true; thaw_postgres; scripts/postgres-testenv.sh stop "$TOUCHSTONE_TEST_POSTGRES_DIR"' EXIT

# Build first (no time limit: a clean build takes minutes), then test under one: a hung test
# must not hang CI (TERM after 10 minutes, KILL 10 s later).
SWIFT="$SWIFT" scripts/swift-quick build --package-path Server --build-tests
timeout -k 10 600 env SWIFT="$SWIFT" scripts/swift-quick test --package-path Server --skip-build

# The executable: --help, start on a free port, /health, SIGTERM drains and exits 0.
SWIFT="$SWIFT" scripts/swift-quick build --package-path Server --product touchstone-server -q
bin="$(SWIFT="$SWIFT" scripts/swift-quick build --package-path Server --show-bin-path)/touchstone-server"
"$bin" --help >/dev/null
# A host that does not resolve is a usage error (64) before anything is created.
nowhere=$(mktemp -d)
status=0
XDG_DATA_HOME="$nowhere" "$bin" --host not-a-host.invalid --port 0 2>/dev/null || status=$?
if [ "$status" -ne 64 ] || [ -n "$(ls -A "$nowhere")" ]; then
    echo "touchstone-server --host not-a-host.invalid: exit $status, created: $(ls -A "$nowhere")" >&2
    exit 1
fi
rmdir "$nowhere"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
data=$(mktemp -d)
"$bin" --port "$port" --database "sqlite://$data/login.sqlite" --log-level warning &
pid=$!
python3 - "$port" <<'PY'
import sys, time, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/health"
for _ in range(100):
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            if response.status == 200:
                sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("touchstone-server did not answer /health")
PY
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
rm -rf "$data"
if [ "$status" -ne 0 ]; then
  echo "server-test: touchstone-server exited $status after SIGTERM (expected 0)" >&2
  exit 1
fi
echo "server-test: touchstone-server answered /health and exited 0 on SIGTERM"

# PostgreSQL frozen under a running server (every process of the cluster stopped, its open
# connections with it): /health/ready is 503 within the 10 s deadline instead of hanging,
# /health stays 200, SIGTERM still ends the server, and readiness comes back with the database.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$bin" --port "$port" --database "$TOUCHSTONE_TEST_POSTGRES_URL" --log-level error &
pid=$!
postmaster=$(head -1 "$TOUCHSTONE_TEST_POSTGRES_DIR/data/postmaster.pid")
frozen_check=0
python3 - "$port" "$postmaster" <<'PY' || frozen_check=$?
import os, signal, subprocess, sys, time, urllib.error, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
def get(path, timeout):
    try:
        with urllib.request.urlopen(base + path, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None
for _ in range(150):
    if get("/health/ready", 1) == 200:
        break
    time.sleep(0.1)
else:
    sys.exit("not ready before the freeze")
# The postmaster first, so that it forks no child after the list of children is taken.
postmaster = int(sys.argv[2])
os.kill(postmaster, signal.SIGSTOP)
cluster = [postmaster] + [int(p) for p in subprocess.run(["pgrep", "-P", sys.argv[2]], capture_output=True, text=True).stdout.split()]
def signal_process(pid, number):
    # A backend can end between the listing and the signal (its client disconnected): one that
    # has exited needs neither freezing nor resuming.
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass
for p in cluster[1:]:
    signal_process(p, signal.SIGSTOP)
try:
    start = time.monotonic()
    status = get("/health/ready", 30)
    elapsed = time.monotonic() - start
    if status != 503 or elapsed > 15:
        sys.exit(f"frozen PostgreSQL: /health/ready answered {status} after {elapsed:.1f} s (expected 503 within the 10 s deadline)")
    if get("/health", 5) != 200:
        sys.exit("frozen PostgreSQL: /health did not stay 200")
finally:
    for p in cluster:
        signal_process(p, signal.SIGCONT)
for _ in range(300):
    if get("/health/ready", 2) == 200:
        sys.exit(0)
    time.sleep(0.1)
sys.exit("readiness did not come back after PostgreSQL resumed")
PY
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
if [ "$frozen_check" -ne 0 ] || [ "$status" -ne 0 ]; then
  echo "server-test: the frozen-PostgreSQL check failed (check $frozen_check, exit $status after SIGTERM)" >&2
  exit 1
fi
echo "server-test: with PostgreSQL frozen, /health/ready was 503 within the deadline and came back after"

# Seed 003 in the REPL against a real server (a fresh SQLite database).
SWIFT="$SWIFT" scripts/swift-quick --debug-info build --product touchstone -q
touchstone="$(SWIFT="$SWIFT" scripts/swift-quick --debug-info build --show-bin-path)/touchstone"
if ! start_login_server "$bin"; then
  echo "server-test: touchstone-server did not start for the fingerprint-login transcript" >&2
  exit 1
fi
expected=Tests/ServerTranscripts/fingerprint-login.expected
actual=$(run_repl_transcript fingerprint-login.touchstone)
stop_login_server
check_transcript "$expected" "$actual" "server-test: the REPL's fingerprint-login transcript"
echo "server-test: the REPL's fingerprint-login story matches $expected"

# App Attest (issue 36): a persistent device's attestation and assertions against servers that
# trust its test root, on SQLite and on a fresh PostgreSQL database.
device_data=$(mktemp -d)
XDG_DATA_HOME="$device_data" "$touchstone" <<<'attest root' > "$device_data/root.pem"
psql="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)/psql"
PGOPTIONS=--client-min-messages=warning "$psql" -q "$TOUCHSTONE_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS app_attest_story" -c "CREATE DATABASE app_attest_story"
expected=Tests/ServerTranscripts/app-attest.expected
for database in "" "${TOUCHSTONE_TEST_POSTGRES_URL%/*}/app_attest_story"; do
  backend=SQLite
  [ -n "$database" ] && backend=PostgreSQL
  if ! start_login_server "$bin" "$database" --app-attest-root "$device_data/root.pem" \
      --app-id TOUCHSTONE.com.example.app --app-attest-environment development; then
    echo "server-test: touchstone-server did not start for the app-attest transcript ($backend)" >&2
    exit 1
  fi
  actual=$(run_repl_transcript app-attest.touchstone XDG_DATA_HOME="$device_data")
  # What the story did, as /metrics counts it, read by prometheus-client's parser.
  .build/pyattest-venv/bin/python scripts/check-metrics.py "$LOGIN_SERVER_URL/metrics" \
    'touchstone_logins_total{kind="appattest"}=3' \
    'touchstone_login_failures_total{kind="appattest",reason="counter_not_increased"}=1' \
    'touchstone_login_failures_total{kind="appattest",reason="bad_signature"}=1' || { stop_login_server; exit 1; }
  stop_login_server
  check_transcript "$expected" "$actual" "server-test: the REPL's app-attest transcript ($backend)"
  echo "server-test: the REPL's app-attest story matches $expected on $backend"
done
rm -rf "$device_data"

# The same story as an app: Examples/FingerprintLogin over URLSession.
SWIFT="$SWIFT" scripts/login-demo.sh --check
