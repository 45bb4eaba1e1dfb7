// swift-tools-version: 6.0
// Coverage-guided fuzzing (libFuzzer) of the parsers and C-style APIs that take bytes from
// outside: X.509 certificates, App Attest objects, SecKey data, CommonCrypto and SecItem
// queries, and the command language. Each executable is one libFuzzer target; `scripts/fuzz.sh` builds them with
// `-sanitize=fuzzer,address` and runs each for a while. Not part of `make test` (a
// sanitized build of its own takes minutes): `make fuzz`.
import PackageDescription

/// One fuzz target: `Sources/<name>/main.swift` defines `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: "Touchstone") }
    )
}

let package = Package(
    name: "TouchstoneFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Touchstone", path: ".."),
    ],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver"]),
        fuzzTarget("FuzzX509", ["Security", "TouchstoneAppAttestFormat", "TouchstoneAppAttest", "TouchstoneTesting"]),
        fuzzTarget("FuzzAppAttest", ["TouchstoneAppAttestFormat", "TouchstoneAppAttest", "TouchstoneTesting"]),
        fuzzTarget("FuzzSecKey", ["Security", "CryptoKit"]),
        fuzzTarget("FuzzCommonCrypto", ["CommonCrypto"]),
        fuzzTarget("FuzzSecItem", ["Security"]),
        fuzzTarget("FuzzCommands", ["TouchstoneCommands", "TouchstonePortable"]),
    ]
)
