#!/usr/bin/env bash
# Runs tests under ThreadSanitizer and fails when it reports anything (or a test fails).
#
#   scripts/tsan.sh --ci       the parallel-use suite (Tests/ThreadSanitizer, a package of its
#                              own, so the sanitized build holds only what it reaches: a few
#                              minutes on two cores), its Swift code instrumented and its C
#                              not (below). `make test` runs this.
#   scripts/tsan.sh [ARGS...]  the root package's whole suite, in .build-tsan (ARGS go to
#                              `swift test`, e.g. --filter Concurrency). Tests that start the
#                              `touchstone` executable get an unsanitized build of it
#                              (TOUCHSTONE_BINARY): the statically linked executable does not
#                              run under ThreadSanitizer's allocator.
#
# Touchstone's shared state is held in `Locked` (a pthread mutex, which ThreadSanitizer
# intercepts), not `Synchronization.Mutex`, whose contended hand-over ThreadSanitizer cannot
# see: a report is a race. The root suite's own test helpers still use `Mutex` in places, so
# the whole-suite mode can report that false positive in test code (both stacks inside one
# `Mutex.withLock` of a test file).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
SWIFT=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# halt_on_error=0: report every race, then fail below.
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
if [ "${1:-}" = "--ci" ]; then
    shift
    # Swift code instrumented, C not: -Xswiftc rather than --sanitize=thread, which would add
    # -fsanitize=thread to every C target too. BoringSSL is then the same compile as in the
    # adopter's and the server's builds, done once for the three through scripts/swift-quick.
    # What goes unseen is C code's own memory accesses (BoringSSL's, and the system SQLite's
    # in either mode); its locks, threads and allocations are still intercepted, and the
    # shared state under test is Swift. Without debug info, as the other builds beside the root
    # package: a report names each frame's function, not its line (the whole-suite mode below
    # has lines).
    sanitize=(--package-path Tests/ThreadSanitizer -Xswiftc -sanitize=thread)
    SWIFT="$SWIFT" scripts/swift-quick build --build-tests "${sanitize[@]}" "$@"
    SWIFT="$SWIFT" scripts/swift-quick test --skip-build "${sanitize[@]}" "$@" 2>&1 | tee "$log" || status=$?
else
    SWIFT="$SWIFT" scripts/swift-quick --debug-info build --product touchstone
    TOUCHSTONE_BINARY="$PWD/.build/debug/touchstone" \
        "$SWIFT" test --sanitize=thread --build-path .build-tsan "$@" 2>&1 | tee "$log" || status=$?
fi
warnings=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan.warnings $warnings count"
if [ "$warnings" -ne 0 ] || [ "$status" -ne 0 ]; then
    echo "ThreadSanitizer run failed (status $status, $warnings warnings)" >&2
    exit 1
fi
