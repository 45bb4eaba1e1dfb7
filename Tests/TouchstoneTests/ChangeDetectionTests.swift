import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §10: change detection as the seeds use it.
@Suite("§10 Change detection")
struct ChangeDetectionTests {
    @Test("no stored baseline: not enabled")
    func notEnabled() throws {
        #expect(try TestDevice().authenticator.checkForChange(account: "alice") == .notEnabled)
    }

    @Test("unchanged, then changed after a finger is added; re-baselining makes it unchanged")
    func changedAfterEnrollment() throws {
        let rig = try TestDevice()
        try rig.authenticator.saveBaseline(account: "alice")
        #expect(try rig.authenticator.checkForChange(account: "alice") == .unchanged)
        try rig.device.enroll("index")
        #expect(try rig.authenticator.checkForChange(account: "alice") == .changed)
        try rig.authenticator.clearBaseline(account: "alice")
        #expect(try rig.authenticator.checkForChange(account: "alice") == .notEnabled)
        try rig.authenticator.saveBaseline(account: "alice")
        #expect(try rig.authenticator.checkForChange(account: "alice") == .unchanged)
    }

    @Test("while biometry is locked out the verdict is unknown, not changed (seed 000)")
    func unknownWhileLockedOut() async throws {
        let rig = try TestDevice()
        try rig.authenticator.saveBaseline(account: "alice")
        _ = try await rig.outcome("biometrics", .failures(3))
        _ = try await rig.outcome("biometrics", .failures(2))
        #expect(try rig.authenticator.checkForChange(account: "alice") == .unknown)
        _ = try await rig.evaluate("owner", [.passcode("1234")])
        #expect(try rig.authenticator.checkForChange(account: "alice") == .unchanged)
    }

    @Test("removing every identity reads as changed")
    func allRemovedIsChanged() throws {
        let rig = try TestDevice()
        try rig.authenticator.saveBaseline(account: "alice")
        try rig.device.unenroll("thumb")
        #expect(try rig.authenticator.checkForChange(account: "alice") == .changed)
    }

    @Test("baselines are kept per app and per account")
    func perAppAndAccount() throws {
        let rig = try TestDevice()
        let other = rig.authenticator.forApp("com.example.other")
        try rig.authenticator.saveBaseline(account: "alice")
        #expect(try other.checkForChange(account: "alice") == .notEnabled)
        #expect(try rig.authenticator.checkForChange(account: "bob") == .notEnabled)
        try rig.authenticator.saveBaseline(account: "bob")
        #expect(try rig.authenticator.detector.accounts(in: rig.authenticator) == ["alice", "bob"])
        #expect(try other.detector.accounts(in: other).isEmpty)
    }

    @Test("saving a baseline when nothing can be read throws the reason")
    func saveWithoutState() throws {
        let rig = try TestDevice(enrolled: [])
        #expect(throws: AuthenticationError(.biometryNotEnrolled, recovery: "Enroll an identity in the device's settings.")) {
            try rig.authenticator.saveBaseline(account: "alice")
        }
    }

    @Test("the event detector counts any change, even one undone later")
    func eventDetector() throws {
        var composition = Composition()
        composition.seed = 1
        composition.detector = PluginSelection("detector.events")
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build()
        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("thumb")
        try authenticator.saveBaseline(account: "alice")
        #expect(try authenticator.checkForChange(account: "alice") == .unchanged)
        try authenticator.device.enroll("index")
        try authenticator.device.unenroll("index")
        #expect(try authenticator.checkForChange(account: "alice") == .changed)
    }

    @Test("the enrollment event stream reports each change and nothing about what changed")
    func eventStream() async throws {
        let rig = try TestDevice()
        let stream = rig.device.enrollmentChanges()
        try rig.device.enroll("index")
        try rig.device.unenroll("index")
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.sequence == 2)
        #expect(second?.sequence == 3)
        // The element type carries only a sequence number and a time.
        #expect(Mirror(reflecting: try #require(first)).children.map(\.label) == ["sequence", "at"])
    }
}
