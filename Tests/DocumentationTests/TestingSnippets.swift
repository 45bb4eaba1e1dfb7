// The code of the article "Testing your app's authentication"
// (Sources/Touchstone/Touchstone.docc/TestingYourAppsAuthentication.md). Every ```swift block
// of the article appears here verbatim; DocumentationTests checks it, and these tests run.

import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// The app code under test: plain LocalAuthentication, as on iOS.
enum Gate {
    static func unlock() async -> Bool {
        let context = LAContext()
        return (try? await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
                                                  localizedReason: "Unlock your notes")) ?? false
    }
}

@Suite("Article: Testing your app's authentication")
struct TestingSnippets {
    @Test("a device in one line")
    func oneLine() async throws {
        let device = try TestDevice()                   // Touch ID, passcode 1234, "thumb" enrolled
        device.enqueue(.noMatch, .present("thumb"))     // what the person does at the prompt
        let result = try await device.evaluate(.biometrics)
        #expect(result.methods == [.biometry])
    }

    @Test("outcomes, the clock and the trace")
    func outcomesClockTrace() async throws {
        let device = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        #expect(try await device.outcome(.biometrics, [.cancel]) == .userCancel)
        device.expectLastEvaluation(.failed(.userCancel), endedBy: .userCancel)

        for wrong in ["0000", "1111", "2222", "3333", "4444"] {
            _ = try device.device.enterPasscode(wrong)                      // five wrong passcodes
        }
        #expect(try device.device.passcodeStatus().delayRemaining == .seconds(60))
        device.advance(by: .seconds(60))                                    // no real waiting
        #expect(try device.device.passcodeStatus().delayRemaining == nil)
    }

    @Test("app code that calls LAContext() gets the test's device", .touchstoneDevice())
    func appCode() async throws {
        let device = try TestDevice.current
        device.enqueue(.present("thumb"))
        #expect(await Gate.unlock())
        device.expectLastEvaluation(.succeeded)

        try device.enroll("index")                      // a finger added in Settings
        device.enqueue(contentsOf: .failures(3))
        #expect(await !Gate.unlock())
        device.expectLastEvaluation(.failed(.authenticationFailed), endedBy: .touchIDThreeFailuresEnd)
    }

    @Test("without the trait: one scoped block")
    func scopedBlock() async throws {
        let device = try TestDevice(enrolled: [])
        let unlocked = await device.asDefaultDevice { await Gate.unlock() }
        #expect(!unlocked)
        device.expectLastEvaluation(.failed(.biometryNotEnrolled))
    }
}
