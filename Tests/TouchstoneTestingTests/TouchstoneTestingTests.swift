// The test kit's own tests: what TestDevice, the trace assertions and the .touchstoneDevice()
// trait promise app developers.

import Foundation
import LocalAuthentication
import Testing
import TouchstoneBuiltins
import TouchstoneTesting

@Suite("TestDevice")
struct TestDeviceTests {
    @Test("the one-line device: Touch ID, passcode 1234, thumb enrolled, in memory, manual clock")
    func defaults() throws {
        let device = try TestDevice()
        #expect(device.device.biometryType == .touchID)
        #expect(try device.device.isPasscodeSet)
        #expect(try device.device.enrolledNames() == ["thumb"])
        #expect(device.authenticator.composition.storage.id == "storage.memory")
        let start = device.clock.now
        device.advance(by: .seconds(90))
        #expect(start.duration(to: device.clock.now) == .seconds(90))
    }

    @Test("a persistent store opened twice keeps its passcode and enrollments (set up once)")
    func reopen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = PluginSelection("storage.sqlite", options: ["path": directory.appendingPathComponent("d.sqlite").path])
        _ = try TestDevice(enrolled: ["thumb", "index"], storage: storage, registry: .builtIn)
        let again = try TestDevice(enrolled: ["thumb", "index"], storage: storage, registry: .builtIn)
        #expect(try again.device.enrolledNames() == ["thumb", "index"])
    }

    @Test("outcome, canEvaluate and the trace of a lockout")
    func lockout() async throws {
        let device = try TestDevice()
        #expect(try await device.outcome(.biometrics, .failures(3)) == .authenticationFailed)
        #expect(try await device.outcome(.biometrics, .failures(2)) == .biometryLockout)
        #expect(try device.canEvaluate(.biometrics) == .biometryLockout)
        let trace = try #require(device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut,
                                                             applied: [.fiveFailuresLockOut]))
        #expect(trace.outcome == .failed(.biometryLockout))
        #expect(trace.endingRule == .fiveFailuresLockOut)
    }

    @Test("a wrong expectation records an issue that names what differs")
    func wrongExpectationRecordsIssue() async throws {
        let device = try TestDevice()
        device.enqueue(.cancel)
        _ = try? await device.evaluate(.biometrics)
        withKnownIssue {
            device.expectLastEvaluation(.succeeded, endedBy: .matchResetsFailures)
        } matching: { issue in
            "\(issue)".contains("user.cancel")
        }
        let trace = try #require(device.lastTrace)
        #expect(trace.differences(outcome: .failed(.userCancel), endedBy: .userCancel) == [])
        #expect(trace.differences(outcome: .succeeded).count == 1)
    }

    @Test("with nothing evaluated yet, the expectation says so")
    func nothingEvaluated() throws {
        let device = try TestDevice()
        withKnownIssue {
            device.expectLastEvaluation(.succeeded)
        }
    }

    @Test("an evaluation held on screen can be cancelled by a second one")
    func onScreen() async throws {
        let device = try TestDevice()
        device.user.waitsForActions = true
        let first = Task { try await device.outcome(.biometrics) }
        await device.untilEvaluationIsOnScreen()
        let second = Task { try await device.outcome(.biometrics) }
        #expect(try await first.value == .systemCancel)
        device.enqueue(.present("thumb"))
        #expect(try await second.value == nil)
    }

    @Test("under the trait, a scripting mistake (nothing queued for a prompt) is an issue, though the app saw a system cancel")
    func scriptingMistakeIsAnIssue() async throws {
        let trait = TouchstoneDeviceTrait { try TestDevice() }
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let context = LAContext()
                do {
                    try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
                    Issue.record("the evaluation succeeded with nothing queued")
                } catch let error as LAError {
                    #expect(error.code == .systemCancel)
                }
            }
        } matching: { issue in
            "\(issue)".contains("scripting mistake")
        }
    }

    @Test("outcomes in the REPL's spelling")
    func scriptSpelling() async throws {
        let device = try TestDevice()
        try device.enqueue(script: "nomatch, nomatch thumb")
        #expect(try await device.outcome(.biometrics) == nil)
        #expect(throws: ConfigurationError.self) { try device.enqueue(script: "thumb, wait:forever") }
    }

    @Test("TestDevice.current outside the trait is a clear error")
    func currentWithoutTrait() {
        #expect(throws: TestDeviceError.noDeviceForThisTest) { try TestDevice.current }
    }

    @Test("processDefault is the process's default device, the one an LAContext made on a DispatchQueue uses: the same each time, with the passcode and identities asked for, whatever device a test's scope holds")
    func processDefaultIsTheProcessDevice() async throws {
        let device = try TestDevice.processDefault(enrolled: ["thumb"])
        #expect(try TestDevice.processDefault().authenticator === device.authenticator)
        #expect(try device.device.isPasscodeSet)
        #expect(try device.device.enrolledNames().contains("thumb"))
        let inside = try await TestDevice().asDefaultDevice { try TestDevice.processDefault() }
        #expect(inside.authenticator === device.authenticator)
        device.enqueue(.present("thumb"))
        let succeeded = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "On a queue") { success, _ in
                    continuation.resume(returning: success)
                }
            }
        }
        #expect(succeeded)
        #expect(device.user.pending.isEmpty, "the queue's context prompted on the process's device")
        // A scripting mistake (nothing queued) is the test's: the call ends as a system cancel
        // and is listed; the process goes on (it stops for a device TOUCHSTONE_OUTCOMES drives).
        let mistakes = device.scriptingMistakes.count
        let code = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            DispatchQueue.global().async {
                LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Nothing queued") { _, error in
                    continuation.resume(returning: (error as NSError?)?.code)
                }
            }
        }
        #expect(code == Int(kLAErrorSystemCancel))
        #expect(device.scriptingMistakes.count == mistakes + 1)
    }

    @Test("answerUnscriptedPrompts: a prompt nothing is queued for is answered as the owner would (the finger, then the passcode), queued actions first; a closure that gives nil keeps the queue's rule")
    func unscriptedPromptsAnswered() async throws {
        let device = try TestDevice()
        device.answerUnscriptedPrompts()
        #expect(try await device.evaluate(.biometricsAndPasscode).methods == [.biometry, .passcode])
        #expect(try await device.outcome(.biometrics, [.cancel]) == .userCancel)
        #expect(device.user.lastPrompt?.kind == .biometric)
        device.user.whenNothingIsQueued = { prompt in prompt.kind == .passcode ? .passcode("1234") : nil }
        await #expect(throws: SimulationError.self) { try await device.evaluate(.biometrics) }
        // A passcode the keypad turns down is not typed again (the keypad counts what it
        // turned down): the prompt is cancelled instead of asked forever.
        device.answerUnscriptedPrompts(passcode: "0000")
        #expect(try await device.outcome(.biometricsAndPasscode) == .userCancel)
        #expect(device.user.lastPrompt?.kind == .passcode && device.user.lastPrompt?.failuresSoFar == 1)
    }
}

@Suite("The .touchstoneDevice() trait", .touchstoneDevice(sensor: "sim.faceid", enrolled: ["alice"]))
struct TouchstoneDeviceTraitTests {
    @Test("a suite's trait gives each test its device, which LAContext() uses")
    func laContextUsesTheTestDevice() async throws {
        let device = try TestDevice.current
        let context = LAContext()
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
        #expect(context.biometryType == .faceID)
        device.enqueue(.present("alice"))
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in"))
        device.expectLastEvaluation(.succeeded)
    }

    @Test("each case gets a fresh device: a lockout in one is not in the other", arguments: [false, true])
    func fresh(lockOut: Bool) async throws {
        let device = try TestDevice.current
        #expect(try device.device.biometryStatus().consecutiveFailures == 0)
        if lockOut {
            device.enqueue(contentsOf: .failures(2) + [.cancel])   // Face ID stops scanning after 2
            _ = try? await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "x")
        }
    }

    @Test("SecItem calls through blocking(_:) reach the test's device")
    func blockingReachesTheDevice() async throws {
        let device = try TestDevice.current
        let status = await device.blocking {
            SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "kit",
                        kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8)] as CFDictionary, nil)
        }
        #expect(status == errSecSuccess)
        #expect(try device.keychain.items(service: "kit").count == 1)
    }
}
