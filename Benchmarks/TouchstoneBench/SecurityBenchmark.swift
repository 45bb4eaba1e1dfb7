import Foundation
import TouchstoneAppAttest
import TouchstoneAppAttestFormat
import TouchstoneSecurity
import TouchstoneBuiltins

/// `touchstone-bench security`: the Apple-shaped calls iOS code makes, on the in-memory
/// simulated device, beside the same work through Touchstone's own `Keychain` API in the same
/// run, and the ratio:
/// - `SecItemCopyMatching` with `kSecReturnData` against `Keychain.read` (async, awaited);
/// - `SecItemUpdate` of the value against `Keychain.update`.
///
/// The difference is the Apple-shaped layer: parsing the query dictionary, matching, and the
/// blocking bridge that runs the asynchronous engine work for a synchronous caller (a thread
/// that is not one of the concurrency pool's; see `runBlocking`). No goal is set; the lines
/// show what the layer costs. A last pair reads the item again with 200 other items stored:
/// a call reads only the records of the service and class it names. Last, a `SecTrust` made
/// and evaluated for a two-certificate chain to a custom anchor (the device's App Attest
/// chain: a P-256 leaf its P-384 CA issued, under the test root), beside the two signature
/// checks any evaluation of it makes (`SecKeyVerifySignature`, the same primitive).
func runSecurityBenchmark(iterations: Int = 5_000, rounds: Int = 3) async throws {
    let (authenticator, _) = try makeEnrolledBenchDevice()
    let keychain = authenticator.keychain
    let value = Data("correct horse battery staple".utf8)
    try keychain.add(value, service: "bench", account: "alice")

    let query: CFDictionary = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "bench",
        kSecAttrAccount as String: "alice",
        kSecReturnData as String: true,
    ] as CFDictionary
    let matchOnly: CFDictionary = [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: "bench",
        kSecAttrAccount as String: "alice",
    ] as CFDictionary
    let update: CFDictionary = [kSecValueData as String: value] as CFDictionary

    func copyMatching(_ count: Int) throws -> Duration {
        try LocalAuthenticationSystem.withAuthenticator(authenticator) {
            try ContinuousClock().measure {
                for _ in 0..<count {
                    var result: CFTypeRef?
                    let status = SecItemCopyMatching(query, &result)
                    guard status == errSecSuccess, (result as? Data)?.count == value.count else {
                        throw BenchmarkError.unexpected("SecItemCopyMatching: \(status)")
                    }
                }
            }
        }
    }

    func directRead(_ count: Int) async throws -> Duration {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                let data = try await keychain.read(service: "bench", account: "alice")
                guard data.count == value.count else { throw BenchmarkError.unexpected("read") }
            }
        }
    }

    func secUpdate(_ count: Int) throws -> Duration {
        try LocalAuthenticationSystem.withAuthenticator(authenticator) {
            try ContinuousClock().measure {
                for _ in 0..<count {
                    let status = SecItemUpdate(matchOnly, update)
                    guard status == errSecSuccess else { throw BenchmarkError.unexpected("SecItemUpdate: \(status)") }
                }
            }
        }
    }

    func directUpdate(_ count: Int) async throws -> Duration {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                try await keychain.update(value, service: "bench", account: "alice")
            }
        }
    }

    _ = try copyMatching(iterations / 10)
    _ = try await directRead(iterations / 10)
    _ = try secUpdate(iterations / 10)
    _ = try await directUpdate(iterations / 10)
    var best: [String: Duration] = [:]
    func keep(_ name: String, _ elapsed: Duration) { best[name] = min(best[name] ?? .seconds(1_000), elapsed) }
    for _ in 0..<rounds {
        keep("copy_matching", try copyMatching(iterations))
        keep("direct_read", try await directRead(iterations))
        keep("update", try secUpdate(iterations))
        keep("direct_update", try await directUpdate(iterations))
    }
    func latency(_ name: String) -> Double { (best[name] ?? .seconds(1)).seconds * 1e6 / Double(iterations) }
    report("security.copy_matching.latency", latency("copy_matching"), "us")
    report("security.direct_read.latency", latency("direct_read"), "us")
    report("security.copy_matching.ratio", latency("copy_matching") / latency("direct_read"), "x")
    report("security.update.latency", latency("update"), "us")
    report("security.direct_update.latency", latency("direct_update"), "us")
    report("security.update.ratio", latency("update") / latency("direct_update"), "x")

    // The same read with 200 other items in the keychain (other services): a call reads only
    // the records of the service and class it names, so it should cost the same.
    for index in 0..<200 {
        try keychain.add(value, service: "other-\(index)", account: "alice")
    }
    _ = try copyMatching(iterations / 10)
    for _ in 0..<rounds { keep("crowded", try copyMatching(iterations)) }
    report("security.copy_matching.with_200_other_items.latency", latency("crowded"), "us")
    report("security.copy_matching.with_200_other_items.ratio", latency("crowded") / latency("copy_matching"), "x")
    try runTrustBenchmark(authenticator, iterations: iterations / 5, rounds: rounds)
}

/// `security.trust.*`: SecTrust evaluations of the App Attest chain, beside its two signature
/// checks.
private func runTrustBenchmark(_ authenticator: Authenticator, iterations: Int, rounds: Int) throws {
    let appAttest = authenticator.appAttest
    let keyID = try appAttest.generateKey()
    let attestation = try AttestationObject(decoding: appAttest.attestKey(keyID, clientDataHash: Data(repeating: 7, count: 32)))
    let chain = (attestation.certificates + [try appAttest.testRoot().derEncoded]).compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
    guard chain.count == 3 else { throw BenchmarkError.unexpected("the App Attest chain has \(chain.count) certificates") }
    let policy = SecPolicyCreateBasicX509()

    func evaluate() throws {
        var trust: SecTrust?
        guard SecTrustCreateWithCertificates(Array(chain.prefix(2)) as CFArray, policy, &trust) == errSecSuccess, let trust else {
            throw BenchmarkError.unexpected("SecTrustCreateWithCertificates")
        }
        SecTrustSetAnchorCertificates(trust, [chain[2]] as CFArray)
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else { throw BenchmarkError.unexpected("\(error.map { "\($0)" } ?? "untrusted")") }
    }
    // The two checks: the leaf's signature under the CA's key, the CA's under the root's.
    let checks = try zip(chain.dropLast(), chain.dropFirst()).map { signed, issuer in
        guard let check = signed.signatureCheck, let key = SecCertificateCopyKey(issuer) else {
            throw BenchmarkError.unexpected("a chain certificate's key or signature algorithm")
        }
        return (key, check.algorithm, check.signed, check.signature)
    }
    func verify() throws {
        for (key, algorithm, signed, signature) in checks where !SecKeyVerifySignature(key, algorithm, signed, signature, nil) {
            throw BenchmarkError.unexpected("a chain signature does not verify")
        }
    }
    func best(_ body: () throws -> Void) throws -> Double {
        for _ in 0 ..< max(1, iterations / 10) { try body() }
        var fastest = Duration.seconds(1_000)
        for _ in 0 ..< rounds { fastest = min(fastest, try ContinuousClock().measure { for _ in 0 ..< iterations { try body() } }) }
        return fastest.seconds * 1e6 / Double(iterations)
    }
    let evaluation = try best(evaluate)
    let signatures = try best(verify)
    report("security.trust.evaluate.latency", evaluation, "us")
    report("security.trust.signature_checks.latency", signatures, "us")
    report("security.trust.ratio", evaluation / signatures, "x")
}

