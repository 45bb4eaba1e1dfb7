// swift-tools-version: 6.0
// Adopter: an iOS-style Swift package that adopts Touchstone the way docs/ADOPTING.md says.
// Its code imports Apple's LocalAuthentication, Security, CryptoKit and CommonCrypto; on Apple platforms
// those are the system frameworks, on Linux Touchstone's modules of the same names, so the
// package depends on them for Linux only. Its tests use TouchstoneTesting's simulated
// device. Building it needs the Swift toolchain alone: `make test` builds and tests it with
// every -dev header and .pc file hidden (scripts/adopter-test.sh).
import PackageDescription

let package = Package(
    name: "Adopter",
    platforms: [.iOS(.v16), .macOS(.v15)],
    products: [
        .library(name: "VaultKit", targets: ["VaultKit"]),
    ],
    dependencies: [
        // In your own package: .package(url: "<Touchstone's repository URL>", from: "<version>").
        // Here, the Touchstone checkout this example lives in.
        .package(name: "Touchstone", path: "../.."),
    ],
    targets: [
        // Touchstone on Linux only: on Apple platforms the real frameworks are used.
        .target(
            name: "VaultKit",
            dependencies: [
                .product(name: "LocalAuthentication", package: "Touchstone", condition: .when(platforms: [.linux])),
                .product(name: "Security", package: "Touchstone", condition: .when(platforms: [.linux])),
                .product(name: "CryptoKit", package: "Touchstone", condition: .when(platforms: [.linux])),
                .product(name: "CommonCrypto", package: "Touchstone", condition: .when(platforms: [.linux])),
            ]
        ),
        .testTarget(
            name: "VaultKitTests",
            dependencies: [
                "VaultKit",
                .product(name: "TouchstoneTesting", package: "Touchstone", condition: .when(platforms: [.linux])),
            ]
        ),
    ]
)
