#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer, with AddressSanitizer) of what takes bytes from outside:
#   FuzzX509          DER certificates: App Attest's reader and chain check, SecCertificate, SecTrust and
#                     its keychain attributes
#   FuzzAppAttest     attestation and assertion objects through AppAttestVerifier, CBOR,
#                     authenticator data
#   FuzzSecKey        SecKeyCreateWithData, verify, decrypt, key exchange, key generation,
#                     the legacy raw calls, Secure Enclave key blobs
#   FuzzCommonCrypto  CCCrypt, cryptors, key wrap, PBKDF2, HMAC and digests, every argument
#                     from the input
#   FuzzSecItem       SecItem* with dictionaries of any keys and value types
#   FuzzCommands      the command language of touchstone, line by line, on a fresh simulated
#                     device (with a dictionary of its words)
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    each target SECONDS (default 60); all by default
#
# Builds Fuzz/ (its own package, through scripts/swift-quick: a first build takes several
# minutes), fills each target's corpus (Fuzz/corpus/<target>, kept between runs, not committed)
# with valid inputs the target writes itself, then fuzzes. A crash, a trap, a memory error
# AddressSanitizer sees or a run slower than 10 s stops that target and leaves its input in
# Fuzz/crashes/<target>; the script then exits 1 after the others ran. Rerun one input with
# Fuzz/.build/debug/<target> <file>.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The targets use the default device (LocalAuthentication.md), and FuzzSecItem deletes every
# item after each input: never the device a developer configured for other work.
unset TOUCHSTONE_CONFIG TOUCHSTONE_SETUP TOUCHSTONE_OUTCOMES
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(FuzzX509 FuzzAppAttest FuzzSecKey FuzzCommonCrypto FuzzSecItem FuzzCommands); fi
case "$seconds" in '' | *[!0-9]*) echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac

# Each target's main sets up its fixture, then starts libFuzzer's driver (LLVMFuzzerRunDriver),
# so libFuzzer is linked without its own main: `-sanitize=fuzzer` would link one beside the
# main SwiftPM gives every executable. The instrumentation is the one `-sanitize=fuzzer` adds.
swift=${SWIFT:-swift}
libfuzzer=$(ls "$(dirname "$(readlink -f "$(command -v "$swift")")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a 2>/dev/null | head -1)
if [ -z "$libfuzzer" ]; then
  echo "fuzz: this Swift toolchain has no libFuzzer (libclang_rt.fuzzer_no_main); swift.org's Linux toolchains do" >&2
  exit 2
fi
"$root/scripts/swift-quick" build --package-path "$root/Fuzz" \
  -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
  -Xlinker "$libfuzzer"
bin="$root/Fuzz/.build/debug"

failed=()
for target in "${targets[@]}"; do
  if [ ! -x "$bin/$target" ]; then echo "fuzz: no target '$target'" >&2; exit 2; fi
  corpus="$root/Fuzz/corpus/$target"
  crashes="$root/Fuzz/crashes/$target"
  mkdir -p "$corpus" "$crashes"
  if ! TOUCHSTONE_FUZZ_SEEDS="$corpus" ASAN_OPTIONS=detect_leaks=0 "$bin/$target" >/dev/null 2>&1; then
    echo "fuzz: $target could not write its seeds; fuzzing from its corpus as it is" >&2
  fi
  # A target of a text format writes the words it is made of (writeDictionaryIfAsked); the
  # others write none and exit 0 without a file.
  dictionary="$root/Fuzz/corpus/$target.dict"
  rm -f "$dictionary"
  TOUCHSTONE_FUZZ_DICTIONARY="$dictionary" ASAN_OPTIONS=detect_leaks=0 "$bin/$target" >/dev/null 2>&1 || true
  options=()
  if [ -s "$dictionary" ]; then options+=("-dict=$dictionary"); fi
  echo "fuzz: $target for ${seconds}s ($(ls "$corpus" | wc -l) inputs in its corpus)"
  # Leaks are not errors here: the Swift runtime keeps metadata caches for the process's life.
  # Swift's own backtracer is off: it reads the crashed thread's stack, which AddressSanitizer
  # reports as a second error hiding the first.
  if SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$target" "$corpus" -max_total_time="$seconds" -timeout=10 \
      -max_len=4096 -print_final_stats=1 -artifact_prefix="$crashes/" ${options[@]+"${options[@]}"} 2> "$crashes/log.txt"; then
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$crashes/log.txt" | sed "s/^/fuzz: $target /"
    echo "fuzz: $target $(ls "$corpus" | wc -l) inputs in its corpus, no failure"
  else
    failed+=("$target")
    { grep -E "ERROR|Fatal error|SUMMARY|Test unit written" "$crashes/log.txt" || echo "stopped without a report (killed?)"; } \
      | head -5 | sed "s/^/fuzz: $target /"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]} (inputs and logs in Fuzz/crashes/)" >&2
  exit 1
fi
