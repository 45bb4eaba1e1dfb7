import Crypto
import Foundation
import TouchstoneBuiltins

/// `touchstone-bench keys`: signatures per second with a Secure Enclave key through the full
/// path — the key's access-control evaluation (a fingerprint on a fresh context each time),
/// reading and unsealing the key (HKDF + AES-GCM), P-256 ECDSA — beside swift-crypto's bare
/// P-256 signature over the same message, in the same run. Also the path without the prompt
/// (a context that already evaluated). Goal: the full path within 2x of the bare signature.
func runKeysBenchmark(iterations: Int = 5_000, rounds: Int = 3) async throws {
    let (authenticator, user) = try makeEnrolledBenchDevice()
    let keys = authenticator.keys
    let key = try keys.create(accessControl: AccessControl(.whenUnlockedThisDeviceOnly, flags: [.privateKeyUsage, .biometryCurrentSet]),
                              tag: Data("bench".utf8))
    let message = Data("server-challenge-0123456789abcdef".utf8)
    let bare = P256.Signing.PrivateKey()

    func full(_ count: Int) async throws -> Duration {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                user.enqueue(.present("thumb"))
                let signature = try await keys.sign(message, with: key, context: authenticator.makeContext(), reason: "Bench")
                guard signature.count > 8 else { throw BenchmarkError.unexpected("signature") }
            }
        }
    }

    let evaluated = authenticator.makeContext()
    user.enqueue(.present("thumb"))
    try await evaluated.evaluateAccessControl(key.accessControl, operation: .useKeySign, reason: "Bench")
    func reused(_ count: Int) async throws -> Duration {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                let signature = try await keys.sign(message, with: key, context: evaluated, reason: "Bench")
                guard signature.count > 8 else { throw BenchmarkError.unexpected("signature") }
            }
        }
    }

    func baseline(_ count: Int) throws -> Duration {
        try ContinuousClock().measure {
            for _ in 0..<count {
                let signature = try bare.signature(for: message).derRepresentation
                guard signature.count > 8 else { throw BenchmarkError.unexpected("signature") }
            }
        }
    }

    _ = try await full(iterations / 10)
    _ = try await reused(iterations / 10)
    _ = try baseline(iterations / 10)
    var bestFull = Duration.seconds(1_000)
    var bestReused = Duration.seconds(1_000)
    var bestBaseline = Duration.seconds(1_000)
    for _ in 0..<rounds {
        bestFull = min(bestFull, try await full(iterations))
        bestReused = min(bestReused, try await reused(iterations))
        bestBaseline = min(bestBaseline, try baseline(iterations))
    }
    let fullRate = Double(iterations) / bestFull.seconds
    let reusedRate = Double(iterations) / bestReused.seconds
    let baselineRate = Double(iterations) / bestBaseline.seconds
    report("keys.sign.full.rate", fullRate, "signatures/s")
    report("keys.sign.evaluated-context.rate", reusedRate, "signatures/s")
    report("keys.sign.bare-p256.rate", baselineRate, "signatures/s")
    report("keys.sign.full.latency", bestFull.seconds / Double(iterations) * 1e9, "ns")
    report("keys.sign.bare-p256.latency", bestBaseline.seconds / Double(iterations) * 1e9, "ns")
    report("keys.ratio", baselineRate / fullRate, "x")
    report("keys.evaluated-context.ratio", baselineRate / reusedRate, "x")
    // Goal: the full path within 2x of the bare signature (1 = met, 0 = missed).
    report("keys.goal.ratio_at_most_2", baselineRate / fullRate <= 2 ? 1 : 0, "met")
}
