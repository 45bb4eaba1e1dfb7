#!/usr/bin/env bash
# Makes .build/pyattest-venv: a Python virtual environment with the independent checkers of our
# formats, from PyPI (implementations we did not write): pyattest, the App Attest verifier that
# AppAttestTests/IndependentVerifierTests run on the device's attestations and assertions, and
# prometheus-client, whose text parser server-test.sh runs on touchstone-server's /metrics.
# Does nothing when they are there already. Needs python3 with venv (Debian: python3-venv; scripts/install-deps.sh) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/pyattest-venv
version=1.0.5
prometheus_version=0.26.0
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import pyattest, prometheus_client, importlib.metadata as m; assert m.version('pyattest') == '$version' and m.version('prometheus-client') == '$prometheus_version'" 2>/dev/null; then
  exit 0
fi
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "pyattest==$version" "prometheus-client==$prometheus_version"
"$venv/bin/python" -c "import pyattest, prometheus_client" &&
  echo "touchstone: pyattest $version and prometheus-client $prometheus_version in $venv"
