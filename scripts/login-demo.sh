#!/usr/bin/env bash
# Seed 003 end to end over HTTP: starts touchstone-server on a free loopback port with a
# temporary SQLite database, runs Examples/FingerprintLogin against it step by step on a
# simulated device (a temporary SQLite store: passcode, thumb enrolled), and stops the server.
# The server trusts the device's App Attest test root, for the App Attest steps.
#
#   scripts/login-demo.sh            build what is missing, run the story, print each step
#   scripts/login-demo.sh --check    the same, and fail unless the output equals
#                                    Tests/ServerTranscripts/fingerprint-login-example.expected
#                                    (scripts/server-test.sh runs this)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
check=0
[ "${1:-}" = "--check" ] && check=1

SWIFT="$SWIFT" scripts/swift-quick --debug-info build --product FingerprintLogin -q
SWIFT="$SWIFT" scripts/swift-quick --debug-info build --product touchstone -q
SWIFT="$SWIFT" scripts/swift-quick build --package-path Server --product touchstone-server -q
app="$(SWIFT="$SWIFT" scripts/swift-quick --debug-info build --show-bin-path)/FingerprintLogin"
touchstone="$(SWIFT="$SWIFT" scripts/swift-quick --debug-info build --show-bin-path)/touchstone"
server="$(SWIFT="$SWIFT" scripts/swift-quick build --package-path Server --show-bin-path)/touchstone-server"

# shellcheck source=scripts/login-server-lib.sh
. scripts/login-server-lib.sh
device=$(mktemp -d)
trap 'stop_login_server || true; rm -rf "$device"' EXIT

cat > "$device/device.json" <<JSON
{
  "app": "com.example.fingerprint-login",
  "sensor": {"id": "sim.touchid"},
  "passcode": {"id": "passcode.sim", "options": {"rounds": "1000"}},
  "storage": {"id": "storage.sqlite", "options": {"path": "$device/device.sqlite"}}
}
JSON
# The server trusts this device's App Attest test root (the App Attest steps).
"$touchstone" --config "$device/device.json" <<<'attest root' > "$device/app-attest-root.pem"
start_login_server "$server" "" --app-attest-root "$device/app-attest-root.pem" \
  --app-id TOUCHSTONE.com.example.fingerprint-login --app-attest-environment development

# step SETUP OUTCOMES ARGS...: one run of the app, as a person would do one thing on the phone.
step() {
  local setup=$1 outcomes=$2
  shift 2
  local shown="" word
  for word in "$@"; do
    case $word in *" "*) shown+=" '$word'" ;; *) shown+=" $word" ;; esac
  done
  echo "\$ FingerprintLogin <server>$shown${setup:+   [device: $setup]}${outcomes:+   [user: $outcomes]}"
  TOUCHSTONE_CONFIG="$device/device.json" TOUCHSTONE_SETUP="$setup" TOUCHSTONE_OUTCOMES="$outcomes" \
    "$app" "$LOGIN_SERVER_URL" "$@"
}

run_story() {
  step "" "" register alice 'correct horse battery'
  step "" "" register alice 'another password'
  step "passcode set 1234; enroll thumb" "" login
  step "" "thumb" enable alice 'wrong password'
  step "" "thumb" enable alice 'correct horse battery'
  step "" "thumb" login
  step "" "cancel" login
  step "enroll index" "thumb" login
  step "" "index" enable alice 'correct horse battery'
  step "" "index" login
  step "" "thumb" enable-right alice 'correct horse battery'
  step "" "thumb" login-right
  step "enroll middle" "" login-right
  step "" "thumb" enable-right alice 'correct horse battery'
  step "" "middle" login-right
  step "" "" login-attest
  step "attest fault server-unavailable" "" enable-attest alice 'correct horse battery'
  step "" "" enable-attest alice 'correct horse battery'
  step "" "" login-attest
  step "" "" login-attest
  step "attest fault cloned-key" "" login-attest
  step "attest fault unsupported" "" enable-attest alice 'correct horse battery'
}

if [ "$check" -eq 1 ]; then
  expected=Tests/ServerTranscripts/fingerprint-login-example.expected
  actual=$(run_story 2>&1)
  check_transcript "$expected" "$actual" "login-demo: the FingerprintLogin story"
  echo "login-demo: FingerprintLogin against touchstone-server matches $expected"
else
  run_story
fi
stop_login_server
