// swift-tools-version: 6.0
import PackageDescription

/// Settings every Touchstone target shares: Swift 6 language mode (strict concurrency) and
/// `ExistentialAny`, as in swift-log's manifest.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// Links the Swift runtime and Foundation statically on Linux (what
/// `swift build --static-swift-stdlib` does, for one executable).
let staticSwiftRuntime: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-use-ld=lld"], .when(platforms: [.linux])),
]
/// The compile half of it: the executable's module is compiled against the static runtime's
/// modules, whose link entries name the static libraries Foundation needs.
let staticSwiftRuntimeCompile: [SwiftSetting] = [
    .unsafeFlags(["-static-stdlib"], .when(platforms: [.linux])),
]

/// swift-log's `Logging` module.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

/// A built-in plugin: one target under `Plugins/<Name>`, depending on the core only.
func plugin(_ name: String, extra: [Target.Dependency] = []) -> Target {
    .target(
        name: name,
        dependencies: ["Touchstone"] + extra,
        path: "Plugins/\(name)",
        swiftSettings: strictSettings
    )
}

/// A runnable example app under `Examples/<Name>`.
func example(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: name,
        dependencies: dependencies,
        path: "Examples/\(name)",
        swiftSettings: strictSettings
    )
}

let package = Package(
    name: "Touchstone",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Touchstone", targets: ["Touchstone"]),
        .library(name: "TouchstoneSimulation", targets: ["TouchstoneSimulation"]),
        // The built-in plugins that need nothing but Swift (what the Apple-named modules are
        // made of), and all of them (adds SQLite, fprintd and PAM).
        .library(name: "TouchstonePortable", targets: ["TouchstonePortable"]),
        .library(name: "TouchstoneBuiltins", targets: ["TouchstoneBuiltins"]),
        // Each built-in plugin on its own, to register into a registry of your choosing.
        .library(name: "StandardPolicies", targets: ["StandardPolicies"]),
        .library(name: "MemoryStorage", targets: ["MemoryStorage"]),
        .library(name: "SimulatedPasscode", targets: ["SimulatedPasscode"]),
        .library(name: "ChangeDetectors", targets: ["ChangeDetectors"]),
        .library(name: "SQLiteStorage", targets: ["SQLiteStorage"]),
        .library(name: "EncryptedFileStorage", targets: ["EncryptedFileStorage"]),
        .library(name: "LinuxFprintd", targets: ["LinuxFprintd"]),
        .library(name: "LinuxPAM", targets: ["LinuxPAM"]),
        .library(name: "Security", targets: ["Security"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "CryptoKit", targets: ["CryptoKit"]),
        .library(name: "CommonCrypto", targets: ["CommonCrypto", "CommonCryptoImplementation"]),
        // App Attest: Apple's formats and a server-side verifier (no Touchstone in it), the
        // device side over an authenticator, and `DeviceCheck` under Apple's names.
        .library(name: "TouchstoneAppAttestFormat", targets: ["TouchstoneAppAttestFormat"]),
        .library(name: "TouchstoneAppAttest", targets: ["TouchstoneAppAttest"]),
        .library(name: "DeviceCheck", targets: ["DeviceCheck"]),
        .library(name: "TouchstoneCommands", targets: ["TouchstoneCommands"]),
        .library(name: "TouchstoneREPL", targets: ["TouchstoneREPL"]),
        // The test kit: a simulated device in one line, scripted outcomes, the manual clock,
        // trace assertions and a Swift Testing trait (as swift-metrics' MetricsTestKit).
        .library(name: "TouchstoneTesting", targets: ["TouchstoneTesting"]),
        .executable(name: "touchstone", targets: ["touchstone"]),
        .executable(name: "touchstone-bench", targets: ["TouchstoneBench"]),
    ],
    dependencies: [
        // 4.x: CryptoKit's ML-DSA and ML-KEM, and RSA PKCS#1 v1.5 encryption.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        // Logging: the core, the plugins and the REPL log through swift-log's `Logger`; the
        // application picks the handler (the REPL: standard error, `--log-level`).
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // DER for App Attest's certificates (already in the graph through swift-crypto).
        // Not swift-certificates: its X509 module compiles Apple-only code under
        // `#if canImport(Security)`, which finds our own `Security` module
        // (TouchstoneAppAttestFormat/Certificate.swift).
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        // RSA's public operation on its own (m^e mod n), which swift-crypto does not offer: the
        // raw and digest RSA forms of `SecKey` verify and encrypt with it. Pure Swift, no system
        // library; the private operation stays BoringSSL's (`SecKey+RSARaw.swift`).
        .package(url: "https://github.com/attaswift/BigInt.git", from: "6.0.0"),
        // `swift package generate-documentation` (DocC catalog in Sources/Touchstone/Touchstone.docc).
        // A command plugin: nothing of it is built by `swift build`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Core: vocabulary, plugin protocols, registry, device model, evaluation engine.
        .target(
            name: "Touchstone",
            dependencies: [.product(name: "Crypto", package: "swift-crypto"), logging],
            swiftSettings: strictSettings
        ),

        // The simulation, beside the core (as NIOEmbedded is beside NIOCore): the manual clock,
        // the scripted person, the simulated sensors and companion, virtual-time persistence
        // and the OS upgrade.
        .target(
            name: "TouchstoneSimulation",
            dependencies: ["Touchstone"],
            swiftSettings: strictSettings
        ),

        // Built-in plugins, each depending on the core only.
        plugin("StandardPolicies"),
        plugin("MemoryStorage"),
        plugin("SimulatedPasscode", extra: [.product(name: "_CryptoExtras", package: "swift-crypto")]),
        plugin("ChangeDetectors"),
        plugin("SQLiteStorage", extra: [
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        plugin("EncryptedFileStorage", extra: [
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),

        // Real Linux authenticators (issue 11): fprintd over sd-bus, the login password over PAM.
        // Headers only (libsystemd-dev, libpam0g-dev in /usr/include; scripts/install-deps.sh
        // installs them): the plugins open libsystemd.so.0 and libpam.so.0 with dlopen on first
        // use, so no pkg-config link flags here, and `touchstone` starts without either library.
        .systemLibrary(name: "CSDBus", path: "Sources/CSDBus"),
        .systemLibrary(name: "CPAM", path: "Sources/CPAM"),
        // The dlopen loader both shims fill their function tables with.
        .target(name: "CDynamicLibrary"),
        plugin("LinuxFprintd", extra: ["CSDBus", "CDynamicLibrary", logging]),
        plugin("LinuxPAM", extra: ["CPAM", "CDynamicLibrary", logging]),

        // The built-in plugins in two explicit lists: the portable ones (pure Swift and
        // swift-crypto: what `LocalAuthentication`, `Security`, `CryptoKit` and
        // `TouchstoneTesting` are made of, so an adopting app needs no system package), and
        // all of them (adds SQLite through GRDB, fprintd and PAM).
        .target(
            name: "TouchstonePortable",
            dependencies: [
                "Touchstone", "TouchstoneSimulation", "StandardPolicies", "MemoryStorage",
                "SimulatedPasscode", "ChangeDetectors", "EncryptedFileStorage", logging,
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TouchstoneBuiltins",
            dependencies: ["TouchstonePortable", "SQLiteStorage", "LinuxFprintd", "LinuxPAM"],
            swiftSettings: strictSettings
        ),


        // Apple's API names over the engine (Linux only: on Apple platforms the real
        // frameworks are used and these modules only re-export them). `Security` is the
        // keychain half (SecItem*, kSec*, errSec*, CF shapes); `LocalAuthentication` depends on
        // it and re-exports it, as Apple's framework does. Their closure is the core, the
        // simulation, the portable plugins, swift-crypto and swift-log: nothing a Swift
        // toolchain lacks (docs/ADOPTING.md).
        .target(
            name: "TouchstoneSecurity",
            dependencies: [
                "Touchstone", "TouchstonePortable", "TouchstoneSimulation",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),  // RSA keys
                .product(name: "BigInt", package: "BigInt"),  // RSA's raw public operation
                .product(name: "SwiftASN1", package: "swift-asn1"),  // SecCertificate's X.509
                "TouchstoneAppAttestFormat",  // its X.509 validity times (no Touchstone in it)
                "TouchstoneOpenSSL",  // SecPKCS12Import
                logging,
            ],
            swiftSettings: strictSettings
        ),
        // The module apps import as `Security`: all of `TouchstoneSecurity`, and what code that
        // reads `#if canImport(Security)` as "Apple's Foundation" needs of FoundationNetworking
        // (Alamofire's server-trust code). Apart because FoundationNetworking loads libcurl,
        // which the statically linked `touchstone` cannot link: Touchstone's own modules
        // import `TouchstoneSecurity`.
        .target(
            name: "Security",
            dependencies: ["TouchstoneSecurity"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocalAuthentication",
            dependencies: ["TouchstoneSecurity", "Touchstone", "TouchstoneSimulation"],
            swiftSettings: strictSettings
        ),
        // CryptoKit's `SecureEnclave` keys over the simulated Secure Enclave; re-exports
        // swift-crypto, so `import CryptoKit` works unchanged (Linux only: depend on it with
        // `condition: .when(platforms: [.linux])`).
        .target(
            name: "CryptoKit",
            dependencies: ["LocalAuthentication", "TouchstoneSecurity", "Touchstone", "TouchstoneSimulation", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),

        // CommonCrypto (digests, HMAC, AES with CCCrypt and cryptors, PBKDF2, AES key wrap,
        // random bytes): its C header as the module `CommonCrypto`, so Swift imports it as it
        // does Apple's (C's pointer conversions included) and iOS code that imports it compiles
        // unchanged; the functions are defined in Swift with @_cdecl, over swift-crypto (Linux
        // only, as the other Apple-named modules). A C module is also seen only by the targets
        // that depend on it: swift-crypto's `#if canImport(CommonCrypto)` stays false.
        .target(name: "CommonCrypto"),
        // The system's OpenSSL 3 libcrypto, opened with dlopen at run time (never linked, no
        // -dev package): PKCS #12 files for Security, the ciphers before AES for CommonCrypto.
        .target(name: "TouchstoneOpenSSL", swiftSettings: strictSettings),
        .target(
            name: "CommonCryptoImplementation",
            dependencies: [
                "CommonCrypto",
                "TouchstoneOpenSSL",  // DES, triple DES, CAST, RC4, Blowfish
                "Touchstone",  // SHA-224, which swift-crypto does not offer; `Locked`
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),  // AES's block function, PBKDF2
            ],
            swiftSettings: strictSettings
        ),

        // App Attest (issue 36, REFERENCE §12). `TouchstoneAppAttestFormat`: CBOR, the attestation
        // and assertion formats and a verifier, over swift-crypto and swift-asn1 only (what a
        // server needs). `TouchstoneAppAttest`: keys, counters, the device's test CA and faults
        // on an authenticator. `DeviceCheck`: `DCAppAttestService`, `DCDevice`, `DCError` on the
        // default device (Linux only, as the other Apple-named modules).
        .target(
            name: "TouchstoneAppAttestFormat",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "TouchstoneAppAttest",
            dependencies: ["TouchstoneAppAttestFormat", "Touchstone", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "DeviceCheck",
            dependencies: ["TouchstoneAppAttest", "TouchstoneSecurity", "Touchstone"],
            swiftSettings: strictSettings
        ),

        // The headless command layer: the REPL's commands, tokenizer, session, output model
        // (text and JSON) and errors, with no terminal and no libedit. The REPL runs it at a
        // terminal; `TOUCHSTONE_SETUP` runs it before an app starts, in programs that opt in
        // with `LocalAuthenticationSystem.bootstrap(.builtIn)` (every built-in plugin too).
        // Commands that need the `LocalAuthentication` module (`right`) are registered by the
        // REPL, above it.
        .target(
            name: "TouchstoneCommands",
            dependencies: ["Touchstone", "TouchstoneBuiltins", "TouchstoneSimulation", "TouchstoneSecurity", "TouchstoneAppAttestFormat", "TouchstoneAppAttest",
                           .product(name: "Crypto", package: "swift-crypto"), logging],
            swiftSettings: strictSettings
        ),

        // The REPL: libedit shim, REPL library (terminal, line editing, completion, the
        // `right` commands, over the command layer), executable.
        .systemLibrary(
            name: "CLibEdit",
            path: "Sources/CLibEdit",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(
            name: "TouchstoneREPL",
            dependencies: ["TouchstoneCommands", "Touchstone", "TouchstoneBuiltins", "TouchstoneSimulation", "CLibEdit", "LocalAuthentication",
                           "TouchstoneAppAttest", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        // The `touchstone` command line (ArgumentParser and the quick everyday reader).
        .target(
            name: "TouchstoneCLI",
            dependencies: [
                "TouchstoneREPL", "TouchstoneCommands", "Touchstone", "TouchstoneBuiltins",
                .product(name: "ArgumentParser", package: "swift-argument-parser"), logging,
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "touchstone",
            dependencies: ["TouchstoneCLI"],
            swiftSettings: strictSettings + staticSwiftRuntimeCompile,
            // The Swift runtime and Foundation linked in: the dynamic loader then maps 11
            // libraries instead of 25 and resolves no Swift symbols at start, which halves the
            // time to the first prompt (docs/REPL.md, "Performance").
            linkerSettings: staticSwiftRuntime
        ),

        // The test kit, for app developers' tests and ours.
        .target(
            name: "TouchstoneTesting",
            dependencies: ["Touchstone", "TouchstoneSimulation", "TouchstonePortable", "LocalAuthentication", "TouchstoneSecurity"],
            swiftSettings: strictSettings
        ),

        example("ChangeDetection", dependencies: ["Touchstone", "TouchstoneBuiltins"]),
        // Seed ports: iOS code against Apple's API names (only the import lines differ).
        example("Seed000TouchIDManager", dependencies: ["LocalAuthentication", "TouchstoneCommands"]),
        example("Seed001Availability", dependencies: ["LocalAuthentication", "TouchstoneCommands"]),
        example("Seed002DomainStateLogin", dependencies: ["LocalAuthentication", "TouchstoneCommands"]),
        example("Seed004CachedState", dependencies: ["LocalAuthentication", "TouchstoneCommands"]),
        // Seed 003's fingerprint login with a Secure Enclave key (and LARightStore), against
        // touchstone-server over URLSession (FoundationNetworking: this executable only).
        example("FingerprintLogin", dependencies: ["LocalAuthentication", "DeviceCheck", "CryptoKit", "TouchstoneCommands"]),
        // Issue 11: a real fingerprint (fprintd) with the login password (PAM) as fallback.
        .executableTarget(
            name: "LinuxLogin",
            dependencies: ["LocalAuthentication", "Touchstone", "TouchstoneBuiltins"],
            path: "Examples/LinuxLogin",
            exclude: ["pam.d", "virtual-reader.touchstone", "README.md"],
            swiftSettings: strictSettings
        ),

        // NotesLock: a notes app's lock screen (LocalAuthentication + a biometryCurrentSet
        // keychain item), its command-line driver, and its tests written with TouchstoneTesting.
        .target(
            name: "NotesLock",
            dependencies: ["LocalAuthentication"],
            path: "Examples/NotesLock/NotesLock",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "NotesLockApp",
            dependencies: ["NotesLock", "LocalAuthentication", "TouchstoneCommands"],
            path: "Examples/NotesLock/App",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NotesLockTests",
            dependencies: ["NotesLock", "LocalAuthentication", "TouchstoneTesting"],
            path: "Examples/NotesLock/Tests",
            swiftSettings: strictSettings
        ),

        // touchstone-bench's allocation counter: malloc and friends forwarded to glibc, counted.
        .target(name: "BenchAllocationCounter", path: "Benchmarks/BenchAllocationCounter"),
        .executableTarget(
            name: "TouchstoneBench",
            dependencies: [
                "Touchstone", "TouchstoneBuiltins", "BenchAllocationCounter", "TouchstoneSecurity", "TouchstoneAppAttest", "TouchstoneAppAttestFormat",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/TouchstoneBench",
            swiftSettings: strictSettings
        ),
        // Baseline for `touchstone-bench repl`: a Swift executable that only prints and exits.
        .executableTarget(name: "BenchHello", path: "Benchmarks/BenchHello", swiftSettings: strictSettings),
        // The same hello world linked as `touchstone` is (static Swift runtime): a second baseline.
        .executableTarget(name: "BenchHelloStatic", path: "Benchmarks/BenchHelloStatic",
                          swiftSettings: strictSettings + staticSwiftRuntimeCompile,
                          linkerSettings: staticSwiftRuntime),

        // Test helper: a child process the storage crash-injection tests kill with SIGKILL.
        .executableTarget(
            name: "StorageCrashChild",
            dependencies: ["Touchstone", "TouchstoneBuiltins"],
            path: "Tests/Fixtures/StorageCrashChild",
            swiftSettings: strictSettings
        ),

        // Shared by the test targets: child processes without Foundation's Process.
        .target(name: "CTestSupport", path: "Tests/CSupport"),
        .target(name: "TestSupport", dependencies: ["CTestSupport"], path: "Tests/Support", swiftSettings: strictSettings),
        .testTarget(
            name: "CommonCryptoTests",
            dependencies: ["CommonCrypto", "CommonCryptoImplementation"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TouchstoneTests",
            dependencies: ["Touchstone", "TouchstoneBuiltins", "TouchstoneSimulation", "TouchstoneTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "TestSupport",
                "Touchstone", "TouchstoneBuiltins", "TouchstoneTesting", "SQLiteStorage", "EncryptedFileStorage", "StorageCrashChild",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocalAuthenticationTests",
            dependencies: ["LocalAuthentication", "Security", "TouchstoneSecurity", "CryptoKit", "Touchstone", "TouchstoneBuiltins", "TouchstoneCommands", "TouchstoneTesting", "TestSupport",
                           logging, .product(name: "InMemoryLogging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "AppAttestTests",
            dependencies: ["TouchstoneAppAttestFormat", "TouchstoneAppAttest", "DeviceCheck", "Security", "Touchstone", "TouchstoneTesting", "TestSupport",
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TouchstoneTestingTests",
            dependencies: ["TouchstoneTesting", "LocalAuthentication", "TouchstoneBuiltins"],
            swiftSettings: strictSettings
        ),
        // Documentation that compiles: the DocC articles' code and the doc-comment examples,
        // built and run; a test checks every ```swift block of the docs appears here verbatim.
        .testTarget(
            name: "DocumentationTests",
            dependencies: [
                "Touchstone", "TouchstoneBuiltins", "TouchstoneCommands", "TouchstoneREPL", "TouchstoneTesting",
                "LocalAuthentication", "Security", "CryptoKit", "MemoryStorage", "LinuxFprintd",
                "DeviceCheck", "TouchstoneAppAttest", "TouchstoneAppAttestFormat",
            ],
            swiftSettings: strictSettings
        ),
        // Integration tests of the Linux authenticators against a private fprintd
        // (scripts/fprint-testenv.sh, started by the tests) and PAM with pam_matrix.
        .testTarget(
            name: "LinuxAuthTests",
            dependencies: ["LinuxFprintd", "LinuxPAM", "Touchstone", "TouchstoneBuiltins", logging,
                           .product(name: "InMemoryLogging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TouchstoneREPLTests",
            dependencies: [
                "TouchstoneREPL", "TouchstoneCommands", "Touchstone", "TouchstoneBuiltins", "LocalAuthentication", "TestSupport",
                // LaunchOptionsParityTests: the executable's quick command-line reader against ArgumentParser.
                "TouchstoneCLI", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // AppAttestCommandTests verify what `attest` prints.
                "TouchstoneAppAttestFormat", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
