// swift-tools-version: 6.0
// The parallel-use suite that `make test` runs under ThreadSanitizer (scripts/tsan.sh --ci):
// many threads and tasks on one device, its storage, its clock and the Apple-named modules.
// A package of its own so that the sanitized build holds only what these tests reach (the
// core, the simulation, the portable plugins, LocalAuthentication and Security), which keeps
// it within CI's time; `scripts/tsan.sh` with no option runs the root package's whole suite
// under ThreadSanitizer instead.
import PackageDescription

let package = Package(
    name: "ThreadSanitizer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Touchstone", path: "../.."),
    ],
    targets: [
        .testTarget(
            name: "ParallelUseTests",
            dependencies: [
                .product(name: "Touchstone", package: "Touchstone"),
                .product(name: "TouchstoneSimulation", package: "Touchstone"),
                .product(name: "TouchstonePortable", package: "Touchstone"),
                .product(name: "TouchstoneTesting", package: "Touchstone"),
                .product(name: "LocalAuthentication", package: "Touchstone"),
                .product(name: "Security", package: "Touchstone"),
            ]
        ),
    ]
)
