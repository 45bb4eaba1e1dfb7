// ChangeDetection: the seed 000 / 002 / 004 flow, played on a simulated Touch ID device.
//
// An app lets the user turn on biometric login after a password sign-in. It stores the
// device's domain state as a baseline. On later launches it compares the current state with
// the baseline: unchanged → biometric login; changed → someone added or removed a finger, so
// the app clears the baseline, asks for its own password and re-baselines; unknown (biometry
// locked out) → it cannot tell, so it does not treat it as a change.
//
// Run: swift run ChangeDetection

import Foundation
import TouchstoneBuiltins

/// The app's side: its own password check and the biometric login switch.
struct NotesApp {
    let authenticator: Authenticator
    let account: String
    let user: ScriptedInteraction

    func say(_ text: String) { print(text) }

    /// Signs in with the app's own password (the fallback when biometrics changed).
    func signInWithPassword(_ password: String) -> Bool {
        let ok = password == "correct horse"
        say("  app password sign-in for \(account): \(ok ? "accepted" : "rejected")")
        return ok
    }

    /// Turns biometric login on: stores the current domain state as the baseline.
    func enableBiometricLogin() throws {
        try authenticator.saveBaseline(account: account)
        say("  biometric login enabled; baseline stored for \(account)")
    }

    /// One launch: check for a change, then log in the way the verdict allows.
    func launch(presenting actions: [UserAction]) async throws {
        let verdict = try authenticator.checkForChange(account: account)
        say("  change check: \(verdict.rawValue)")
        switch verdict {
        case .notEnabled:
            say("  biometric login is off; showing the password screen")
        case .changed:
            say("  biometrics changed since login was enabled: clearing the baseline")
            try authenticator.clearBaseline(account: account)
            if signInWithPassword("correct horse") {
                try enableBiometricLogin()
            }
        case .unknown:
            say("  biometry is locked out; cannot tell whether it changed. Unlocking with the device passcode")
            user.enqueue([.passcode("1234")])
            let result = try await authenticator.makeContext().evaluate(policyNamed: "owner", reason: "Unlock biometric login")
            say("  unlocked by \(result.methods.map(\.rawValue).joined(separator: "+")); biometry usable again")
        case .unchanged:
            user.enqueue(actions)
            do {
                let result = try await authenticator.makeContext().evaluate(policyNamed: "biometrics", reason: "Sign in to Notes")
                say("  biometric login succeeded (\(result.methods.map(\.rawValue).joined(separator: "+")))")
            } catch let error as AuthenticationError {
                say("  biometric login failed: \(error.code.name) (\(error.code.rawValue)) → \(error.code.category.rawValue)")
            }
        }
    }
}

@main
struct ChangeDetection {
    static func main() async {
        do {
            try await run()
        } catch {
            print("error: \(error)")
            exit(1)
        }
    }

    static func run() async throws {
        // A reproducible simulated device: Touch ID, passcode 1234, one finger enrolled.
        var builder = AuthenticatorBuilder(registry: .builtIn)
        builder.composition.app = "com.example.notes"
        builder.composition.seed = 2026
        try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])
        let user = ScriptedInteraction()
        let authenticator = try builder.build(interaction: user)
        let device = authenticator.device
        try device.setPasscode("1234")
        try device.enroll("right-thumb")
        let app = NotesApp(authenticator: authenticator, account: "alice", user: user)

        // Enrollment changes arrive as events too (with no detail of what changed).
        let changes = device.enrollmentChanges()
        let watcher = Task {
            var count = 0
            for await change in changes {
                count += 1
                print("  [event] enrolled set changed (#\(change.sequence))")
                if count == 1 { break }
            }
        }

        print("1. Alice signs in with her password and turns on biometric login")
        _ = app.signInWithPassword("correct horse")
        try app.enableBiometricLogin()

        print("2. Next launch: Alice touches the sensor")
        try await app.launch(presenting: [.present("right-thumb")])

        print("3. Someone enrolls another finger on the device")
        try device.enroll("stranger")
        await watcher.value

        print("4. Next launch: the change is detected")
        try await app.launch(presenting: [.present("stranger")])

        print("5. After re-baselining, biometric login works again")
        try await app.launch(presenting: [.present("right-thumb")])

        print("6. Five failed touches lock biometry out")
        user.enqueue(Array(repeating: .noMatch, count: 3))
        _ = try? await authenticator.makeContext().evaluate(policyNamed: "biometrics", reason: "Sign in to Notes")
        user.enqueue(Array(repeating: .noMatch, count: 2))
        _ = try? await authenticator.makeContext().evaluate(policyNamed: "biometrics", reason: "Sign in to Notes")
        print("  lockout: \(try device.biometryStatus().isLockedOut)")

        print("7. Next launch: locked out is 'unknown', not 'changed'")
        try await app.launch(presenting: [])

        print("8. And the following launch signs in with the finger again")
        try await app.launch(presenting: [.present("right-thumb")])

        if let trace = device.lastTrace {
            print("\nTrace of the last evaluation:\n\(trace)")
        }
    }
}
