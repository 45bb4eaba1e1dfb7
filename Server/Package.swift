// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode (strict concurrency) and `ExistentialAny`,
/// as in the root package.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// The fingerprint-login server of seed 003 (REFERENCE §11), a package of its own so that apps
/// depending on Touchstone never resolve a web framework. It shares no code with the root
/// package but App Attest's formats and verifier: `Sources/TouchstoneAppAttestFormat` is a
/// link to the root package's module of that name (no Touchstone in it), compiled here as a
/// module of this package, so both packages verify with one implementation and neither
/// depends on the other.
let package = Package(
    name: "TouchstoneServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoginServer", targets: ["LoginServer"]),
        .executable(name: "touchstone-server", targets: ["touchstone-server"]),
        .executable(name: "touchstone-server-bench", targets: ["touchstone-server-bench"]),
    ],
    dependencies: [
        // Without its default ConfigurationSupport trait: no swift-configuration to build.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // The major version the root package uses (postgres-nio, swift-certificates and
        // swift-nio-extras accept 3 to 5): App Attest's module, which both packages compile,
        // then builds against one swift-crypto.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Already in the graph through Hummingbird and postgres-nio: a ServiceGroup for the tests
        // and the bench, NIO for their HTTP client.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        // /metrics: swift-metrics is in the graph through Hummingbird already; swift-prometheus
        // adds one small module (and swift-atomics, there through postgres-nio).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // App Attest's CBOR, formats, X.509 subset and verifier (a link to the root package's module).
        .target(
            name: "TouchstoneAppAttestFormat",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        // The server as a library: configuration, routes, repositories (SQLite, PostgreSQL).
        .target(
            name: "LoginServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "TouchstoneAppAttestFormat",
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "touchstone-server",
            dependencies: [
                "LoginServer", "TouchstoneAppAttestFormat",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Signature logins per second end to end on loopback beside bare P-256 verifications.
        .executableTarget(
            name: "touchstone-server-bench",
            dependencies: [
                "LoginServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                "LoopbackHTTP",
            ],
            swiftSettings: strictSettings
        ),
        // A minimal HTTP/1.1 client over swift-nio for the tests and the bench (not a product).
        .target(
            name: "LoopbackHTTP",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LoginServerTests",
            dependencies: [
                "LoginServer",
                "LoopbackHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                "TouchstoneAppAttestFormat",
            ],
            swiftSettings: strictSettings
        ),
    ]
)
