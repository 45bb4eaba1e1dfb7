// NotesLockApp — runs NotesLock's flow once against the device the environment describes
// (TOUCHSTONE_CONFIG / TOUCHSTONE_SETUP / TOUCHSTONE_OUTCOMES, see README "iOS code on Linux"):
//
//   TOUCHSTONE_SETUP="passcode set 1234; enroll thumb" TOUCHSTONE_OUTCOMES="thumb,nomatch,thumb" \
//     swift run NotesLockApp
//
// signs in with the password, turns biometric unlock on (one capture), locks, and unlocks
// (the rest of the captures). The app's tests are in Tests/ (swift test --filter NotesLockTests).

import LocalAuthentication
import NotesLock
import TouchstoneCommands

@MainActor
func run() async {
    let lock = NotesLock(accountPassword: "correct horse")
    print("sign in: \(lock.signIn(password: "correct horse") ? "ok" : "wrong password")")
    print("button: \(lock.biometricButtonTitle ?? "(no biometric unlock on this device)")")
    print("turn on biometric unlock: \(await lock.turnOnBiometricUnlock() ? "on" : "off")")
    lock.lock()
    print("unlock: \(await lock.unlock())")
    print("screen: \(lock.screen)")
}

// TOUCHSTONE_SETUP (and a SQLite store in TOUCHSTONE_CONFIG) need the command layer and every
// built-in plugin: one line opts in (docs/ADOPTING.md).
LocalAuthenticationSystem.bootstrap(.builtIn)
await run()
