#!/usr/bin/env bash
# Drives Examples/LinuxLogin/virtual-reader.touchstone through the touchstone REPL against a
# private fprintd with libfprint's virtual reader (scripts/fprint-testenv.sh) and PAM with
# pam_matrix in a private service directory: enroll, match, 3 failures, lockout after 5, the
# login password clearing it, a domain-state change; then the lockout across processes: three
# REPL processes on one SQLite store (3 failures in the first, the 5th failure in the second
# locks, the login password in the third clears it); then Examples/LinuxLogin (LAContext):
# three failed fingers fall back to the login password, a matching finger stores and then opens
# the biometryCurrentSet secret. Exit status: non-zero when a check fails. `make test` runs it
# after `swift test`.
#   TOUCHSTONE=path/to/touchstone scripts/linux-auth-demo.sh   (default: build it)
set -euo pipefail
cd "$(dirname "$0")/.."
touchstone=${TOUCHSTONE:-}
if [ -z "$touchstone" ]; then
  # Through scripts/swift-quick, as make test builds the root package (the same C compiler).
  SWIFT=${SWIFT:-swift} scripts/swift-quick --debug-info build --product touchstone -q
  SWIFT=${SWIFT:-swift} scripts/swift-quick --debug-info build --product LinuxLogin -q
  touchstone=$(SWIFT=${SWIFT:-swift} scripts/swift-quick --debug-info build --show-bin-path)/touchstone
fi
login=$(dirname "$touchstone")/LinuxLogin
dir=$(mktemp -d "${TMPDIR:-/tmp}/touchstone-linux-demo.XXXXXX")
player=
cleanup() {
  [ -n "$player" ] && kill "$player" 2>/dev/null || true
  scripts/fprint-testenv.sh stop "$dir/env"
  rm -rf "$dir"
}
trap cleanup EXIT
eval "$(scripts/fprint-testenv.sh start "$dir/env")"
modules=$(pkg-config --variable=modules pam_wrapper)
mkdir -p "$dir/pam"
echo "alice:hunter22:touchstone-test" >"$dir/pam/passdb"
printf 'auth required %s/pam_matrix.so passdb=%s\naccount required %s/pam_matrix.so passdb=%s\n' \
  "$modules" "$dir/pam/passdb" "$modules" "$dir/pam/passdb" >"$dir/pam/touchstone-test"
sed -e "s|@BUS@|$DBUS_SYSTEM_BUS_ADDRESS|" -e "s|@PAMDIR@|$dir/pam|" \
  Examples/LinuxLogin/virtual-reader.touchstone >"$dir/demo.touchstone"
enroll_a="SCAN a,SCAN a,SCAN a,SCAN a,SCAN a"
enroll_b="SCAN b,SCAN b,SCAN b,SCAN b,SCAN b"
FPRINT_PLAY_READY="$dir/player-ready" /usr/bin/python3 scripts/fprint-play.py "$DBUS_SYSTEM_BUS_ADDRESS" "$FP_VIRTUAL_DEVICE" \
  "$enroll_a" "SCAN a" "SCAN x" "SCAN x" "SCAN x" "SCAN x" "SCAN x" "SCAN a" "$enroll_b" &
player=$!
for _ in $(seq 1 200); do [ -e "$dir/player-ready" ] && break; sleep 0.025; done
[ -e "$dir/player-ready" ] || { echo "linux-auth-demo: the finger player did not start" >&2; exit 1; }
"$touchstone" --memory --echo "$dir/demo.touchstone"
kill "$player" 2>/dev/null || true
wait "$player" 2>/dev/null || true
player=

# Across processes: the consecutive-failure count lives in the shared store.
cat >"$dir/device.json" <<JSON
{
  "sensor": {"id": "linux.fprintd", "options": {"bus": "$DBUS_SYSTEM_BUS_ADDRESS", "scan-timeout": "5s"}},
  "passcode": {"id": "linux.pam", "options": {"service": "touchstone-test", "user": "alice", "confdir": "$dir/pam"}},
  "storage": {"id": "storage.sqlite", "options": {"path": "$dir/device.sqlite"}}
}
JSON
FPRINT_PLAY_READY="$dir/player-ready-2" /usr/bin/python3 scripts/fprint-play.py "$DBUS_SYSTEM_BUS_ADDRESS" "$FP_VIRTUAL_DEVICE" \
  "SCAN x" "SCAN x" "SCAN x" "SCAN x" "SCAN x" "SCAN a" &
player=$!
for _ in $(seq 1 200); do [ -e "$dir/player-ready-2" ] && break; sleep 0.025; done
printf 'evaluate biometrics "Unlock"\nexpect error authenticationFailed\n' \
  | "$touchstone" --config "$dir/device.json" --echo
printf 'evaluate biometrics "Unlock"\nexpect error biometryLockout\n' \
  | "$touchstone" --config "$dir/device.json" --echo
printf 'status\nexpect contains "locked out"\npasscode enter hunter22\nevaluate biometrics "Unlock"\nexpect ok\n' \
  | "$touchstone" --config "$dir/device.json" --echo

# Examples/LinuxLogin for alice: her finger enrolled for her (fprintd user alice); three
# fingers that do not match fall back to her login password and the app stores its
# biometryCurrentSet secret; the next run, her finger opens it.
kill "$player" 2>/dev/null || true
wait "$player" 2>/dev/null || true
FPRINT_PLAY_READY="$dir/player-ready-3" /usr/bin/python3 scripts/fprint-play.py "$DBUS_SYSTEM_BUS_ADDRESS" "$FP_VIRTUAL_DEVICE" \
  "SCAN c,SCAN c,SCAN c,SCAN c,SCAN c" "SCAN x" "SCAN x" "SCAN x" "SCAN c" &
player=$!
for _ in $(seq 1 200); do [ -e "$dir/player-ready-3" ] && break; sleep 0.025; done
printf 'use sensor linux.fprintd bus=%s user=alice\nenroll right-thumb\nexpect ok\n' "$DBUS_SYSTEM_BUS_ADDRESS" \
  | "$touchstone" --memory --echo
run_login() {
  "$login" --bus "$DBUS_SYSTEM_BUS_ADDRESS" --confdir "$dir/pam" --service touchstone-test --user alice \
    --state "$dir/login" --scan-timeout 5s
}
echo hunter22 | run_login | tee "$dir/login-1.txt"
grep -q "^Welcome" "$dir/login-1.txt" || { echo "linux-auth-demo: LinuxLogin did not fall back to the password" >&2; exit 1; }
run_login </dev/null | tee "$dir/login-2.txt"
secret=$(sed -n 's/^stored session secret //p' "$dir/login-1.txt")
[ -n "$secret" ] && grep -q "^session secret: $secret" "$dir/login-2.txt" \
  || { echo "linux-auth-demo: LinuxLogin did not store and reopen its biometryCurrentSet secret" >&2; exit 1; }
