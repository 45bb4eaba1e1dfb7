#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Touchstone builds against, only when missing:
#   libedit-dev     line editing for the REPL (pkg-config: libedit)
#   libsqlite3-dev  SQLite for the GRDB storage backend (pkg-config: sqlite3)
#   pkg-config      how SwiftPM finds both
# Uses sudo when not running as root. Does nothing when everything is present.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
for pair in libedit:libedit-dev sqlite3:libsqlite3-dev; do
  module=${pair%%:*}
  package=${pair##*:}
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
    missing+=("$package")
  fi
done
command -v python3 >/dev/null 2>&1 || missing+=(python3)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "touchstone: installing missing system packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "touchstone: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
