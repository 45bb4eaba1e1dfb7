// NotesLock's tests, as an iOS developer would want to write them: the app code is untouched
// (it calls LAContext() and SecItem*), and each test gets its own simulated device from the
// `.touchstoneDevice()` trait, scripts what the person does at the prompt, and checks both what
// the app shows and why the evaluation ended (the trace's rule).

import LocalAuthentication
import NotesLock
import Testing
import TouchstoneTesting

@MainActor
@Suite("NotesLock: biometric unlock of a notes app", .touchstoneDevice(passcode: "1234", enrolled: ["thumb"]))
struct NotesLockTests {
    let device: TestDevice
    let app: NotesLock

    /// Each test starts signed in, with biometric unlock turned on (one fingerprint), locked.
    init() async throws {
        device = try TestDevice.current
        app = NotesLock(accountPassword: "correct horse")
        #expect(app.signIn(password: "correct horse"))
        device.enqueue(.present("thumb"))
        #expect(await app.turnOnBiometricUnlock())
        app.lock()
        #expect(app.screen == .locked)
    }

    @Test("the enrolled finger unlocks the notes")
    func enrolledFingerUnlocks() async throws {
        device.enqueue(.present("thumb"))
        #expect(await app.unlock() == .unlocked)
        #expect(app.screen == .unlocked)
        device.expectLastEvaluation(.succeeded, endedBy: .matchResetsFailures)
        #expect(device.scriptingMistakes.isEmpty)
    }

    @Test("a failed match, then the right finger: still one unlock")
    func failedMatchThenRightFinger() async throws {
        device.enqueue(.noMatch, .present("thumb"))
        #expect(await app.unlock() == .unlocked)
        #expect(try device.device.biometryStatus().consecutiveFailures == 0)
    }

    @Test("Cancel keeps the lock screen and asks for nothing")
    func cancelKeepsTheLockScreen() async throws {
        device.enqueue(.cancel)
        #expect(await app.unlock() == .cancelled)
        #expect(app.screen == .locked)
        device.expectLastEvaluation(.failed(.userCancel), endedBy: .userCancel)
    }

    @Test("\"Use Password\" after a failed match shows the password field")
    func fallbackShowsThePasswordField() async throws {
        device.enqueue(.noMatch, .fallback)
        #expect(await app.unlock() == .usePassword(.fallback))
        #expect(device.user.lastPrompt?.fallbackButton == "Use Password")
        device.expectLastEvaluation(.failed(.userFallback), endedBy: .fallbackEndsWithUserFallback)
    }

    @Test("three failed matches end the prompt; the password field appears")
    func threeFailures() async throws {
        device.enqueue(contentsOf: .failures(3))
        #expect(await app.unlock() == .usePassword(.failed))
        device.expectLastEvaluation(.failed(.authenticationFailed), endedBy: .touchIDThreeFailuresEnd)
    }

    @Test("five failures lock biometry out; time alone does not lift it, the device passcode does")
    func lockoutNeedsThePasscode() async throws {
        device.enqueue(contentsOf: .failures(3))
        #expect(await app.unlock() == .usePassword(.failed))
        device.enqueue(contentsOf: .failures(2))
        #expect(await app.unlock() == .usePassword(.lockedOut))
        device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut)
        #expect(app.biometricButtonTitle == nil)

        device.advance(by: .seconds(24 * 3600))
        #expect(await app.unlock() == .usePassword(.lockedOut))

        _ = try device.device.enterPasscode("1234")                 // at the lock screen of the phone
        device.enqueue(.present("thumb"))
        #expect(await app.unlock() == .unlocked)
    }

    @Test("a finger added in Settings turns biometric unlock off: password, then turn it on again")
    func enrollmentChangeTurnsBiometricUnlockOff() async throws {
        try device.enroll("index")
        device.enqueue(.present("index"))
        #expect(await app.unlock() == .usePassword(.biometryChanged))
        #expect(!app.isBiometricUnlockOn)

        #expect(app.signIn(password: "correct horse"))
        device.enqueue(.present("index"))
        #expect(await app.turnOnBiometricUnlock())
        app.lock()
        device.enqueue(.present("index"))
        #expect(await app.unlock() == .unlocked)
    }

    @Test("signing out forgets the session key")
    func signOut() async throws {
        app.signOut()
        #expect(app.screen == .signedOut)
        #expect(await app.unlock() == .usePassword(.biometricUnlockOff))
    }
}

@MainActor
@Suite("NotesLock on other devices")
struct NotesLockDeviceTests {
    @Test("the button says Face ID on a Face ID device", .touchstoneDevice(sensor: "sim.faceid", enrolled: ["alice"]))
    func faceIDButton() throws {
        #expect(NotesLock(accountPassword: "pw").biometricButtonTitle == "Unlock with Face ID")
    }

    @Test("with nothing enrolled there is no biometric button and it cannot be turned on",
          .touchstoneDevice(enrolled: []))
    func nothingEnrolled() async throws {
        let app = NotesLock(accountPassword: "pw")
        #expect(app.biometricButtonTitle == nil)
        app.signIn(password: "pw")
        #expect(await !app.turnOnBiometricUnlock())
        try TestDevice.current.expectLastEvaluation(.failed(.biometryNotEnrolled))
    }

    @Test("parallel tests have their own devices: a lockout in one case is not seen in the other",
          .touchstoneDevice(), arguments: [false, true])
    func devicesAreNotShared(lockOut: Bool) async throws {
        let device = try TestDevice.current
        if lockOut {
            _ = try? await device.evaluate(.biometrics, .failures(3))   // Touch ID ends a prompt after 3
            _ = try? await device.evaluate(.biometrics, .failures(2))   // the 5th in a row locks out
        }
        #expect(try device.device.biometryStatus().isLockedOut == lockOut)
        #expect(NotesLock(accountPassword: "pw").biometricButtonTitle == (lockOut ? nil : "Unlock with Touch ID"))
    }
}
