#!/usr/bin/env bash
# A private fingerprint daemon for the Linux authenticator tests: a system-type D-Bus in DIR,
# python3-dbusmock's polkitd template (allowing every action), and fprintd with libfprint's
# `virtual_device` driver. No root and nothing of the machine's own bus or fprintd is touched.
# Facts behind every step: ../shared/LINUX-AUTH.md (the bus policy, the polkit mock, fprintd's
# environment, the virtual device's socket).
#
#   eval "$(scripts/fprint-testenv.sh start DIR)"     # prints the export lines below
#   scripts/fprint-testenv.sh polkit DIR deny|allow   # make the polkit mock refuse / allow all
#   scripts/fprint-testenv.sh stop DIR                # ends the processes it started in DIR
#
#   start DIR --no-fprintd   the bus and polkit only (tests of "daemon absent")
#   start DIR --watch PID    once process PID has ended, stop everything and delete DIR (tests
#                            pass their own pid, so even a killed test run leaves nothing)
#
# Exports:
#   DBUS_SYSTEM_BUS_ADDRESS        unix:path=DIR/bus (sd_bus_open_system honours it)
#   FP_VIRTUAL_DEVICE              DIR/virtual-device: the virtual reader's socket; it accepts
#                                  commands (`SCAN <id>`, `RETRY n`, `UNPLUG`, ...) only while
#                                  the device is claimed
#   TOUCHSTONE_FPRINT_TESTENV_DIR  DIR, for `stop` and `polkit`
# Every start wipes DIR's fprintd state (enrolled prints persist there). Progress and failures
# go to stderr; the daemons' logs stay in DIR/*.log.
set -euo pipefail

usage() {
  echo "usage: $0 start DIR [--no-fprintd] [--watch PID] | stop DIR | polkit DIR allow|deny" >&2
  exit 2
}

bus_call() { # ADDRESS DEST PATH METHOD [ARGS...]
  local address=$1 dest=$2 path=$3 method=$4
  shift 4
  dbus-send --bus="$address" --print-reply --reply-timeout=2000 --dest="$dest" "$path" "$method" "$@"
}

# Waits up to 10 s for COMMAND to succeed.
poll() {
  local deadline=$((SECONDS + 10))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then return 1; fi
    sleep 0.05
  done
}

fail() {
  local dir=$1 what=$2
  echo "fprint-testenv: $what" >&2
  for log in "$dir"/*.log; do
    [ -s "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }
  done
  stop "$dir"
  exit 1
}

start() {
  local dir=$1 with_fprintd=$2 watch=$3
  # A test process can hand this script descriptors it never meant to share: another test's pipe
  # to its child, opened at the same moment without close-on-exec. The daemons started below
  # live for the whole run and would keep that pipe's write end open, so the other test would
  # wait forever for an end of file (seen once: MultiProcessStressTests blocked in
  # readDataToEndOfFile). Only 0-2 are kept.
  local fd
  for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
  [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import dbusmock' 2>/dev/null \
    || { echo "fprint-testenv: python3-dbusmock is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
  command -v dbus-daemon >/dev/null 2>&1 || { echo "fprint-testenv: dbus-daemon is missing (apt dbus)" >&2; exit 1; }
  if [ "$with_fprintd" = 1 ] && [ ! -x /usr/libexec/fprintd ]; then
    echo "fprint-testenv: /usr/libexec/fprintd is missing (apt fprintd libfprint-2-2)" >&2; exit 1
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  stop "$dir" 2>/dev/null || true
  rm -rf "$dir/state" "$dir/run" "$dir/bus" "$dir/virtual-device" "$dir"/*.log "$dir"/*.pid
  mkdir -p "$dir/state" "$dir/run"

  # 1. The bus: type system, one unix socket, a policy that lets everything through (without
  #    eavesdrop="true" the bus rejects replies and calls hang).
  cat >"$dir/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
  local address="unix:path=$dir/bus"
  setsid dbus-daemon --config-file="$dir/bus.conf" --nofork --nopidfile </dev/null >"$dir/dbus.log" 2>&1 &
  echo $! >"$dir/dbus.pid"
  poll bus_call "$address" org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetId \
    || fail "$dir" "the private bus did not start"

  # 2. The polkit mock, allowing every action until `polkit DIR deny`.
  DBUS_SYSTEM_BUS_ADDRESS=$address setsid /usr/bin/python3 -m dbusmock --system --template polkitd \
    </dev/null >"$dir/polkit.log" 2>&1 &
  echo $! >"$dir/polkit.pid"
  poll bus_call "$address" org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority \
    org.freedesktop.DBus.Mock.AllowUnknown boolean:true || fail "$dir" "the polkit mock did not start"

  # 3. fprintd with the virtual device only, its state in DIR.
  if [ "$with_fprintd" = 1 ]; then
    DBUS_SYSTEM_BUS_ADDRESS=$address FP_DRIVERS_WHITELIST=virtual_device FP_DRIVERS_ALLOWLIST=virtual_device \
      FP_VIRTUAL_DEVICE="$dir/virtual-device" STATE_DIRECTORY="$dir/state" RUNTIME_DIRECTORY="$dir/run" \
      G_MESSAGES_DEBUG= setsid /usr/libexec/fprintd --no-timeout </dev/null >"$dir/fprintd.log" 2>&1 &
    echo $! >"$dir/fprintd.pid"
    poll bus_call "$address" net.reactivated.Fprint /net/reactivated/Fprint/Manager \
      net.reactivated.Fprint.Manager.GetDefaultDevice || fail "$dir" "fprintd did not offer the virtual device"
  fi

  if [ -n "$watch" ]; then
    setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.5; done; "$2" stop "$3"; rm -rf "$3"' \
      watcher "$watch" "$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" "$dir" </dev/null >/dev/null 2>&1 &
  fi

  echo "fprint-testenv: private bus $address$([ "$with_fprintd" = 1 ] && echo ", fprintd with virtual_device") in $dir" >&2
  echo "export DBUS_SYSTEM_BUS_ADDRESS=$address"
  echo "export FP_VIRTUAL_DEVICE=$dir/virtual-device"
  echo "export TOUCHSTONE_FPRINT_TESTENV_DIR=$dir"
}

# Whether PID runs (a zombie waiting for its reaper counts as ended).
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

stop() {
  local dir=$1 name pid
  for name in fprintd polkit dbus; do
    [ -f "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    rm -f "$dir/$name.pid"
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 40); do alive "$pid" || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  done
}

polkit() {
  local dir=$1 mode=$2 allow
  case "$mode" in allow) allow=true ;; deny) allow=false ;; *) usage ;; esac
  bus_call "unix:path=$dir/bus" org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority \
    org.freedesktop.DBus.Mock.AllowUnknown boolean:$allow >/dev/null
}

[ $# -ge 2 ] || usage
case "$1" in
  start)
    dir=$2 with_fprintd=1 watch=
    shift 2
    while [ $# -gt 0 ]; do
      case "$1" in
        --no-fprintd) with_fprintd=0; shift ;;
        --watch) [ $# -ge 2 ] || usage; watch=$2; shift 2 ;;
        *) usage ;;
      esac
    done
    start "$dir" "$with_fprintd" "$watch" ;;
  stop) stop "$2" ;;
  polkit) [ $# -eq 3 ] || usage; polkit "$2" "$3" ;;
  *) usage ;;
esac
