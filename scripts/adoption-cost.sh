#!/usr/bin/env bash
# The adoption cost, side by side in one run: a clean debug build (with tests) of
# Examples/Adopter — an app package on LocalAuthentication, Security, CryptoKit and
# TouchstoneTesting — against a clean build of the same kind of package that uses
# swift-crypto alone (a P-256 signing library and one test, written to a temporary folder).
# Prints one metric per line as `name value unit`, then the ratio (goal: <= 1.5x).
#
#   scripts/adoption-cost.sh [ROUNDS]              ROUNDS alternating pairs (default 1); medians printed
#   scripts/adoption-cost.sh ROUNDS --workshop     also the adopter with TouchstoneCommands added
#                                                  (every built-in plugin and the command layer:
#                                                  what adopting cost before the products were
#                                                  layered; needs the -dev packages)
#
# Not a test: it takes a few minutes (each build compiles swift-crypto's BoringSSL from scratch).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SWIFT=${SWIFT:-swift}
rounds=${1:-1}
workshop=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

crypto_version=$(sed -n 's|.*swift-crypto.git", from: "\([0-9.]*\)".*|\1|p' "$root/Package.swift")
mkdir -p "$work/CryptoOnly/Sources/Signer" "$work/CryptoOnly/Tests/SignerTests"
cat > "$work/CryptoOnly/Package.swift" <<EOF
// swift-tools-version: 6.0
import PackageDescription
let package = Package(
    name: "CryptoOnly",
    dependencies: [.package(url: "https://github.com/apple/swift-crypto.git", from: "$crypto_version")],
    targets: [
        .target(name: "Signer", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "SignerTests", dependencies: ["Signer"]),
    ]
)
EOF
cat > "$work/CryptoOnly/Sources/Signer/Signer.swift" <<'EOF'
import Crypto
import Foundation

public struct Signer {
    public let key = P256.Signing.PrivateKey()
    public init() {}
    public func sign(_ message: Data) throws -> P256.Signing.ECDSASignature { try key.signature(for: message) }
}
EOF
cat > "$work/CryptoOnly/Tests/SignerTests/SignerTests.swift" <<'EOF'
import Foundation
import Signer
import Testing

@Test func signs() throws {
    let signer = Signer()
    let message = Data("challenge".utf8)
    #expect(signer.key.publicKey.isValidSignature(try signer.sign(message), for: message))
}
EOF

# Seconds of one clean build (resolution excluded: resolved first, then timed).
clean_build() {
  local package=$1 scratch="$work/scratch-$(basename "$1")"
  rm -rf "$scratch"
  "$SWIFT" package --package-path "$package" --scratch-path "$scratch" resolve >/dev/null 2>&1
  local start end
  start=$(date +%s.%N)
  "$SWIFT" build --package-path "$package" --scratch-path "$scratch" --build-tests >/dev/null 2>&1
  end=$(date +%s.%N)
  rm -rf "$scratch"
  echo "$end - $start" | bc
}

# The adopter with the TouchstoneCommands product added to its library.
if [ "$workshop" = "--workshop" ]; then
  cp -r "$root/Examples/Adopter" "$work/Workshop"
  rm -rf "$work/Workshop/.build" "$work/Workshop/.build-hidden"
  sed -i -e "s|path: \"../..\"|path: \"$root\"|" \
    -e 's|\(.product(name: "CryptoKit", package: "Touchstone", condition: .when(platforms: \[.linux\])),\)|\1 .product(name: "TouchstoneCommands", package: "Touchstone", condition: .when(platforms: [.linux])),|' \
    "$work/Workshop/Package.swift"
  grep -q TouchstoneCommands "$work/Workshop/Package.swift" || { echo "adoption-cost: could not add TouchstoneCommands" >&2; exit 1; }
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

adopter_times=()
crypto_times=()
workshop_times=()
for _ in $(seq "$rounds"); do
  crypto_times+=("$(clean_build "$work/CryptoOnly")")
  adopter_times+=("$(clean_build "$root/Examples/Adopter")")
  if [ "$workshop" = "--workshop" ]; then workshop_times+=("$(clean_build "$work/Workshop")"); fi
done
adopter=$(printf '%s\n' "${adopter_times[@]}" | median)
crypto=$(printf '%s\n' "${crypto_times[@]}" | median)
printf 'adoption.clean_build.adopter %.1f s\n' "$adopter"
printf 'adoption.clean_build.swift_crypto_only %.1f s\n' "$crypto"
printf 'adoption.clean_build.ratio %.2f x\n' "$(echo "$adopter / $crypto" | bc -l)"
if [ "$workshop" = "--workshop" ]; then
  with_commands=$(printf '%s\n' "${workshop_times[@]}" | median)
  printf 'adoption.clean_build.with_touchstone_commands %.1f s\n' "$with_commands"
  printf 'adoption.clean_build.with_touchstone_commands_ratio %.2f x\n' "$(echo "$with_commands / $crypto" | bc -l)"
fi
