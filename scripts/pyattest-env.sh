#!/usr/bin/env bash
# Makes .build/pyattest-venv: a Python virtual environment with pyattest, the App Attest
# verifier from PyPI that AppAttestTests/IndependentVerifierTests run on the device's
# attestations and assertions (an implementation we did not write). Does nothing when it is
# there already. Needs python3 with venv (Debian: python3-venv; scripts/install-deps.sh) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/pyattest-venv
version=1.0.5
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import pyattest, importlib.metadata as m; assert m.version('pyattest') == '$version'" 2>/dev/null; then
  exit 0
fi
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "pyattest==$version"
"$venv/bin/python" -c "import pyattest" && echo "touchstone: pyattest $version in $venv"
