#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Touchstone builds against, only when missing:
#   libedit-dev     line editing for the REPL (pkg-config: libedit)
#   libsqlite3-dev  SQLite for the GRDB storage backend (pkg-config: sqlite3)
#   pkg-config      how SwiftPM finds both
#   libsystemd-dev  sd-bus headers for the linux.fprintd sensor (pkg-config: libsystemd); the
#                   plugin opens libsystemd.so.0 with dlopen when it is first used
#   libpam0g-dev    PAM headers for the linux.pam passcode (pkg-config: pam); libpam.so.0 is
#                   opened the same way
# and, for the Linux authenticator integration tests (scripts/fprint-testenv.sh):
#   fprintd, libfprint-2-2  the fingerprint daemon and libfprint's virtual_device driver
#   python3-dbusmock        the polkit mock (under Debian's /usr/bin/python3)
#   libpam-wrapper          the pam_matrix module (password checks in a private PAM confdir)
#   dbus                    dbus-daemon for the private system bus
# and, for the independent App Attest verifier (scripts/pyattest-env.sh):
#   python3-venv            Debian's python3 with venv (pyattest is installed from PyPI into it)
# and, for SecPKCS12Import and its tests:
#   libssl3                 OpenSSL 3's libcrypto.so.3 and its legacy provider, which Security
#                           opens with dlopen to read PKCS #12 files (no -dev package: not linked)
#   openssl                 the openssl command, which makes the tests' legacy PKCS #12 files
# and, for SecTrust's system roots and their test:
#   ca-certificates         /etc/ssl/certs/ca-certificates.crt, the PEM bundle SecTrust trusts
# and, for make test's later builds (scripts/swift-quick):
#   ccache                  compiles BoringSSL once for the ThreadSanitizer, adopter and server
#                           builds instead of once each
# Uses sudo when not running as root. Does nothing when everything is present.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
for pair in libedit:libedit-dev sqlite3:libsqlite3-dev libsystemd:libsystemd-dev pam:libpam0g-dev; do
  module=${pair%%:*}
  package=${pair##*:}
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$module"; then
    missing+=("$package")
  fi
done
command -v python3 >/dev/null 2>&1 || missing+=(python3)

# Present when any of the given globs names an existing file.
have_file() {
  local pattern
  for pattern in "$@"; do
    if compgen -G "$pattern" >/dev/null; then return 0; fi
  done
  return 1
}
have_file /usr/libexec/fprintd || missing+=(fprintd)
have_file '/usr/lib/*/libfprint-2.so.2' '/usr/lib/libfprint-2.so.2' || missing+=(libfprint-2-2)
have_file '/usr/lib/*/pam_wrapper/pam_matrix.so' || missing+=(libpam-wrapper)
command -v dbus-daemon >/dev/null 2>&1 || missing+=(dbus)
if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import dbusmock' >/dev/null 2>&1; then
  missing+=(python3-dbusmock)
fi

if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  missing+=(python3-venv)
fi
command -v ccache >/dev/null 2>&1 || missing+=(ccache)
have_file '/usr/lib/*/libcrypto.so.3' && have_file '/usr/lib/*/ossl-modules/legacy.so' || missing+=(libssl3)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -s /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)

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
