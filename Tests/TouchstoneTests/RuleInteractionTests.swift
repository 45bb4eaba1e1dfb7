import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Rules that meet in one scenario (an enrollment change undone, a companion under lockout, a
/// passcode unlock inside the reuse window), each pinned by the scenario that once broke it.
@Suite("Where rules meet: invalidation, companions, the reuse window")
struct RuleInteractionTests {
    @Test("a biometryCurrentSet item stays invalidated after a finger is added and removed again (§9)")
    func currentSetInvalidationIsPermanent() async throws {
        let rig = try TestDevice()
        let keychain = rig.authenticator.keychain
        try keychain.add(Data("v".utf8), service: "cs", account: "a",
                         accessControl: try AccessControl(flags: [.biometryCurrentSet]))
        try rig.device.enroll("index")
        try rig.device.unenroll("index")
        rig.user.enqueue([.present("thumb")])
        await #expect {
            try await keychain.read(service: "cs", account: "a")
        } throws: { error in
            (error as? KeychainError)?.status.rawValue == -25300
        }
    }

    @Test("can-evaluate of policy 4 through a companion does not reveal the biometric domain state while locked out (§7)")
    func policy4DoesNotLeakDomainStateUnderLockout() async throws {
        let rig = try TestDevice(companion: [:])
        _ = try await rig.outcome("biometrics", .failures(3))
        _ = try await rig.outcome("biometrics", .failures(2))
        let context = rig.authenticator.makeContext()
        #expect(try rig.canEvaluate("biometrics-or-companion", on: context) == nil)
        #expect(context.evaluatedPolicyDomainState == nil)
    }

    @Test("policy 4 still needs a device passcode when a companion stands in (§6)")
    func policy4NeedsPasscode() throws {
        let rig = try TestDevice(passcode: nil, companion: [:])
        #expect(try rig.canEvaluate("biometrics-or-companion") == .passcodeNotSet)
    }

    @Test("a lock-screen passcode unlock closes the biometric reuse window (§8)")
    func passcodeUnlockClosesReuseWindow() async throws {
        let rig = try TestDevice()
        try rig.device.unlock(with: "thumb")
        rig.clock.advance(by: .seconds(10))
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        let context = rig.authenticator.makeContext()
        context.touchIDAuthenticationAllowableReuseDuration = .seconds(300)
        #expect(try await rig.evaluate("biometrics", [.present("thumb")], on: context).methods == [.biometry])
    }

    @Test("an in-app passcode (device-owner) does not close the reuse window")
    func inAppPasscodeKeepsReuseWindow() async throws {
        let rig = try TestDevice()
        try rig.device.unlock(with: "thumb")
        _ = try await rig.evaluate("owner", [.noMatch, .fallback, .passcode("1234")])
        let context = rig.authenticator.makeContext()
        context.touchIDAuthenticationAllowableReuseDuration = .seconds(300)
        #expect(try await rig.evaluate("biometrics", [], on: context).methods == [.reuse])
    }
}
