#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// Records the environment's changes and lets a test wait for the next one.
final class EnvironmentRecorder: NSObject, LAEnvironmentObserver, @unchecked Sendable {
    // @unchecked: every field is behind the lock.
    private struct State {
        var changes: [(old: LAEnvironmentState, new: LAEnvironmentState)] = []
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Locked(State())

    func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironmentState) {
        let new = environment.state
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.changes.append((oldState, new))
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    var count: Int { state.withLock { $0.changes.count } }

    /// Waits until at least `count` changes were recorded; returns the last one.
    func change(_ count: Int) async -> (old: LAEnvironmentState, new: LAEnvironmentState) {
        while true {
            let ready = state.withLock { $0.changes.count >= count ? $0.changes[count - 1] : nil }
            if let ready { return ready }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.changes.count >= count { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
}

/// iOS 18's `LAEnvironment` (issue 10 §2): the status query in Apple's shape, with observers.
@Suite("LAEnvironment: mechanisms and observers")
struct LAEnvironmentTests {
    @Test("state: biometry (type, enrolled, locked out, history-based stateHash), user password, companions, allMechanisms")
    func state() async throws {
        let sim = try TestDevice(companion: ["type": "watch"])
        let environment = LAEnvironment(authenticator: sim.authenticator)
        let state = environment.state
        let biometry = try #require(state.biometry)
        #expect(biometry.biometryType == .touchID)
        #expect(biometry.isEnrolled && !biometry.isLockedOut && biometry.isUsable)
        #expect(!biometry.builtInSensorInaccessible)
        #expect(biometry.localizedName == "Touch ID")
        #expect(state.userPassword?.isSet == true)
        #expect(state.companions.map(\.type) == [.watch])
        #expect(state.allMechanisms.count == 3)
        let context = sim.makeLAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        #expect(biometry.stateHash == context.domainState.biometry.stateHash, "the same history-based hash as domainState")

        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2)) == .biometryLockout)
        #expect(environment.state.biometry?.isLockedOut == true)
        #expect(environment.state.biometry?.isUsable == false)

        let bare = try TestDevice(sensor: nil, passcode: nil, enrolled: [])
        let none = LAEnvironment(authenticator: bare.authenticator).state
        #expect(none.biometry == nil)
        #expect(none.userPassword?.isSet == false)
        #expect(none.allMechanisms.count == 1)
    }

    @Test("observers hear about enrollment, lockout and passcode changes, with the old state")
    func observers() async throws {
        let sim = try TestDevice(enrolled: [])
        let environment = LAEnvironment(authenticator: sim.authenticator)
        let recorder = EnvironmentRecorder()
        environment.addObserver(recorder)

        try sim.device.enroll("thumb")
        let enrolled = await recorder.change(1)
        #expect(enrolled.old.biometry?.isEnrolled == false)
        #expect(enrolled.new.biometry?.isEnrolled == true)

        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2)) == .biometryLockout)
        var lockout = await recorder.change(2)
        var seen = 2
        while lockout.new.biometry?.isLockedOut != true {
            seen += 1
            lockout = await recorder.change(seen)
        }
        #expect(lockout.old.biometry?.isLockedOut == false)

        try sim.device.clearPasscode()
        seen += 1
        let cleared = await recorder.change(seen)
        #expect(cleared.old.userPassword?.isSet == true)
        #expect(cleared.new.userPassword?.isSet == false)

        environment.removeObserver(recorder)
        let before = recorder.count
        try sim.device.setPasscode("1234")
        try sim.device.enroll("index")
        #expect(environment.state.userPassword?.isSet == true)
        #expect(recorder.count == before, "a removed observer hears nothing")
    }

    @Test("LAEnvironment.currentUser is the default device's, the same object each time")
    func currentUser() throws {
        let sim = try TestDevice()
        LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
            #expect(LAEnvironment.currentUser === LAEnvironment.currentUser)
            #expect(LAEnvironment.currentUser.state.biometry?.isEnrolled == true)
        }
    }
}
#endif
