#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer in its own build directory (.build-tsan), and
# fails when TSan reports anything. Kept out of `make test` for time (a sanitized build takes
# several minutes on two cores); CI can run it as a separate step: `scripts/tsan.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
SWIFT=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# halt_on_error=0: report every race, then fail below.
TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
    "$SWIFT" test --sanitize=thread --build-path .build-tsan "$@" 2>&1 | tee "$log" || status=$?
warnings=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan.warnings $warnings count"
if [ "$warnings" -ne 0 ] || [ "$status" -ne 0 ]; then
    echo "ThreadSanitizer run failed (status $status, $warnings warnings)" >&2
    exit 1
fi
