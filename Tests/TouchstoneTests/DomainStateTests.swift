import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §7: domain state.
@Suite("§7 Domain state")
struct DomainStateTests {
    private func current(_ rig: TestDevice, app: String? = nil) throws -> Data? {
        let authenticator = app.map { rig.authenticator.forApp($0) } ?? rig.authenticator
        let context = authenticator.makeContext()
        _ = try context.canEvaluate(authenticator.policy(named: "biometrics"))
        return context.evaluatedPolicyDomainState
    }

    @Test("nil until can-evaluate succeeds for a biometric policy")
    func nilUntilCanEvaluate() throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        #expect(context.evaluatedPolicyDomainState == nil)
        _ = try rig.canEvaluate("owner", on: context)
        #expect(context.evaluatedPolicyDomainState == nil)
        _ = try rig.canEvaluate("biometrics", on: context)
        #expect(context.evaluatedPolicyDomainState?.count == 32)
    }

    @Test("nil when can-evaluate fails")
    func nilWhenCanEvaluateFails() throws {
        let rig = try TestDevice(enrolled: [])
        #expect(try current(rig) == nil)
    }

    @Test("set by a successful biometric evaluation, not by a passcode one")
    func setByBiometricEvaluation() async throws {
        let rig = try TestDevice()
        let passcodeOnly = rig.authenticator.makeContext()
        _ = try await rig.evaluate("owner", [.noMatch, .fallback, .passcode("1234")], on: passcodeOnly)
        #expect(passcodeOnly.evaluatedPolicyDomainState == nil)
        let biometric = rig.authenticator.makeContext()
        _ = try await rig.evaluate("biometrics", [.present("thumb")], on: biometric)
        #expect(biometric.evaluatedPolicyDomainState == (try current(rig)))
    }

    @Test("a context keeps the captured value until it evaluates again (our rule)")
    func capturedValueIsStable() throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        _ = try rig.canEvaluate("biometrics", on: context)
        let before = context.evaluatedPolicyDomainState
        try rig.device.enroll("index")
        #expect(context.evaluatedPolicyDomainState == before)
        _ = try rig.canEvaluate("biometrics", on: context)
        #expect(context.evaluatedPolicyDomainState != before)
    }

    @Test("changes when the enrolled set changes, and depends only on the resulting set")
    func dependsOnResultingSet() throws {
        let rig = try TestDevice()
        let original = try current(rig)
        try rig.device.enroll("index")
        let added = try current(rig)
        #expect(added != original)
        try rig.device.unenroll("index")
        #expect(try current(rig) == original)
    }

    @Test("re-enrolling the same finger is a different template")
    func reenrollChanges() throws {
        let rig = try TestDevice()
        let original = try current(rig)
        try rig.device.reenroll("thumb")
        #expect(try current(rig) != original)
        try rig.device.unenroll("thumb")
        try rig.device.enroll("thumb")
        #expect(try current(rig) != original)
    }

    @Test("differs between apps on the same device")
    func differsBetweenApps() throws {
        let rig = try TestDevice()
        #expect(try current(rig, app: "com.a") != current(rig, app: "com.b"))
        #expect(try current(rig, app: "com.a") == current(rig, app: "com.a"))
    }

    @Test("an OS upgrade changes it although nothing was enrolled or removed")
    func osUpgradeChanges() throws {
        let rig = try TestDevice()
        let before = try current(rig)
        try rig.device.simulateOSUpgrade()
        #expect(try current(rig) != before)
    }

    @Test("the same seed reproduces the same values")
    func reproducibleWithSeed() throws {
        #expect(try current(TestDevice(seed: 42)) == current(TestDevice(seed: 42)))
        #expect(try current(TestDevice(seed: 42)) != current(TestDevice(seed: 43)))
    }

    @Test("domainState: biometry hash nil when nothing enrolled; companion and combined hashes")
    func newerShape() throws {
        let rig = try TestDevice(enrolled: [], companion: ["type": "watch"])
        let context = rig.authenticator.makeContext()
        #expect(context.domainState == .empty)
        // Policy 4 passes through its companion: companion hashes, no biometry hash.
        #expect(try rig.canEvaluate("biometrics-or-companion", on: context) == nil)
        let empty = context.domainState
        #expect(empty.biometry.stateHash == nil)
        #expect(empty.biometry.biometryType == .touchID)
        #expect(empty.companion.availableCompanionTypes == [.watch])
        #expect(empty.companion.stateHash(for: .watch) != nil)
        #expect(empty.companion.stateHash(for: .mac) == nil)
        #expect(empty.stateHash != nil)
        try rig.device.enroll("thumb")
        _ = try rig.canEvaluate("biometrics", on: context)
        let enrolled = context.domainState
        #expect(enrolled.biometry.stateHash != nil)
        #expect(enrolled.stateHash != empty.stateHash)
        #expect(enrolled.companion.stateHash == empty.companion.stateHash)
    }

    @Test("domainState is not readable when evaluatedPolicyDomainState is not: a failing can-evaluate captures nothing")
    func domainStateNotReadableWhenEvaluatedPolicyDomainStateIsNot() throws {
        let rig = try TestDevice(enrolled: [])
        let context = rig.authenticator.makeContext()
        #expect(try rig.canEvaluate("biometrics", on: context) == .biometryNotEnrolled)
        #expect(context.evaluatedPolicyDomainState == nil)
        #expect(context.domainState == .empty)
    }

    @Test("domainState.biometry.stateHash is history-based; evaluatedPolicyDomainState is result-based")
    func newHashByHistoryOldPropertyByResult() throws {
        let rig = try TestDevice()
        let before = rig.authenticator.makeContext()
        #expect(try rig.canEvaluate("biometrics", on: before) == nil)
        try rig.device.enroll("index")
        try rig.device.unenroll("index")
        let after = rig.authenticator.makeContext()
        #expect(try rig.canEvaluate("biometrics", on: after) == nil)
        #expect(after.evaluatedPolicyDomainState == before.evaluatedPolicyDomainState, "same resulting set, same old value")
        #expect(after.domainState.biometry.stateHash != before.domainState.biometry.stateHash, "add then remove: a new hash")
        #expect(after.domainState.biometry.stateHash != nil)
    }
}

@Suite("Domain state memo")
struct DomainStateMemoTests {
    /// The value a fresh evaluation captures now.
    func captured(_ rig: TestDevice, app: Authenticator? = nil) async throws -> Data? {
        try await evaluated(rig, app: app).evaluatedPolicyDomainState
    }

    /// A context after a successful evaluation.
    func evaluated(_ rig: TestDevice, app: Authenticator? = nil) async throws -> AuthenticationContext {
        let authenticator = app ?? rig.authenticator
        let context = authenticator.makeContext()
        rig.user.enqueue(.present("thumb"))
        _ = try await context.evaluate(authenticator.policy(.biometrics), reason: "Unlock")
        return context
    }

    /// The value derived from scratch, bypassing every memo.
    func derived(_ rig: TestDevice, appID: String) throws -> Data? {
        let snapshot = try rig.device.snapshot(in: StorageTransaction(read: { try rig.device.storage.read($0) }))
        return DomainStateDerivation.biometryHash(key: snapshot.secretKey, appID: appID, osEpoch: snapshot.state.osEpoch,
                                                  identities: snapshot.state.identities)
    }

    @Test("the memoized domain state is never stale: each enrollment change, OS upgrade and app gets the value derived from scratch; counter changes keep it")
    func memoIsNeverStale() async throws {
        let rig = try TestDevice()
        let other = try AuthenticatorBuilder(registry: .builtIn, composition: {
            var composition = rig.authenticator.composition
            composition.app = "com.example.other"
            return composition
        }()).build(reusing: rig.authenticator)
        var seen: Set<Data> = []
        func check(_ step: String) async throws {
            let value = try #require(try await captured(rig), "\(step)")
            #expect(value == (try derived(rig, appID: rig.authenticator.appID)), "\(step)")
            // The history-based hash and the combined one, memoized too.
            let snapshot = try rig.device.snapshot(in: StorageTransaction(read: { try rig.device.storage.read($0) }))
            let history = DomainStateDerivation.biometryHash(
                key: snapshot.secretKey, appID: rig.authenticator.appID, osEpoch: snapshot.state.osEpoch,
                identities: snapshot.state.identities, history: snapshot.state.enrollmentSequence)
            let domainState = try await evaluated(rig).domainState
            #expect(domainState.biometry.stateHash == history, "\(step)")
            #expect(domainState.stateHash == DomainStateDerivation.combined(key: snapshot.secretKey, parts: [history, nil]), "\(step)")
            let otherValue = try await captured(rig, app: other)
            #expect(otherValue == (try derived(rig, appID: "com.example.other")), "\(step)")
            #expect(otherValue != value, "\(step)")
            seen.insert(value)
        }
        try await check("enrolled thumb")
        let first = try #require(try await captured(rig))
        rig.user.enqueue([.noMatch, .present("thumb")])
        _ = try await rig.authenticator.makeContext().evaluate(.biometrics, reason: "Unlock")
        #expect(try await captured(rig) == first, "a failed match (a counter change) keeps the value")
        try rig.device.enroll("index")
        try await check("enrolled index")
        try rig.device.reenroll("index")
        try await check("re-enrolled index")
        try rig.device.unenroll("index")
        #expect(try await captured(rig) == first, "back to the first set: the first value (set-based)")
        try rig.device.simulateOSUpgrade()
        try await check("after an OS upgrade")
        #expect(seen.count == 4)
    }
}
