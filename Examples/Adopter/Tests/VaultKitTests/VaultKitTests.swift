// The vault's tests, on a simulated device on Linux (TouchstoneTesting). On Apple platforms
// they would need a real device, so they are compiled for Linux only.
#if canImport(TouchstoneTesting)
import CryptoKit
import Foundation
import Security
import Testing
import TouchstoneTesting
import VaultKit

@Suite("Vault", .touchstoneDevice())  // a fresh Touch ID device per test: passcode 1234, "thumb" enrolled
struct VaultTests {
    let vault = Vault()

    @Test("biometrics can be used with a finger enrolled, not without one", .touchstoneDevice(enrolled: []))
    func biometricsNeedAnEnrolledFinger() throws {
        #expect(!vault.canUseBiometrics())
        try TestDevice.current.enroll("thumb")
        #expect(vault.canUseBiometrics())
    }

    // `Record` is the app's own type; Touchstone's engine has one of that name too, which the
    // test kit does not re-export, so this file can name the app's (docs/ADOPTING.md).
    @Test("the vault lists its records by account after one match: a lookup of protected items' attributes asks too, as on iOS")
    func recordsListAfterOneMatch() throws {
        try vault.store(Data("one".utf8), account: "bob")
        try vault.store(Data("two".utf8), account: "alice")
        try TestDevice.current.enqueue(.present("thumb"))
        let records: [Record] = try vault.records(reason: "List your secrets")
        #expect(records == [Record(service: vault.service, account: "alice"), Record(service: vault.service, account: "bob")])
        #expect(try TestDevice.current.user.pending.isEmpty, "one prompt opened both")
    }

    @Test("a stored secret reads back after a match")
    func storedSecretReadsBackAfterAMatch() throws {
        try vault.store(Data("s3cret".utf8), account: "alice")
        try TestDevice.current.enqueue(.present("thumb"))
        #expect(try vault.read(account: "alice", reason: "Show the secret") == Data("s3cret".utf8))
    }

    @Test("three failed matches end the prompt: errSecAuthFailed, and nothing is read")
    func threeFailedMatchesAreAnAuthenticationFailure() throws {
        try vault.store(Data("s3cret".utf8), account: "alice")
        try TestDevice.current.enqueue(contentsOf: .failures(3))
        #expect(throws: Vault.Failure.keychain(errSecAuthFailed)) {
            try vault.read(account: "alice", reason: "Show the secret")
        }
    }

    @Test("a finger enrolled after the secret was stored makes it unreadable")
    func enrollmentChangeInvalidatesTheSecret() throws {
        try vault.store(Data("s3cret".utf8), account: "alice")
        let device = try TestDevice.current
        try device.enroll("index")
        device.enqueue(.present("thumb"))
        #expect(throws: Vault.Failure.keychain(errSecItemNotFound)) {
            try vault.read(account: "alice", reason: "Show the secret")
        }
    }

    @Test("the app unlocks with the passcode after the fallback button, and stays locked on cancel")
    func unlockFallsBackToThePasscode() async throws {
        let device = try TestDevice.current
        device.enqueue(.noMatch, .fallback, .passcode("1234"))
        #expect(await vault.unlock(reason: "Unlock the vault"))
        device.enqueue(.cancel)
        #expect(await !vault.unlock(reason: "Unlock the vault"))
    }

    @Test("a public key's fingerprint is its SHA-256, through CommonCrypto")
    func fingerprintIsTheSHA256() throws {
        let key = P256.Signing.PrivateKey().publicKey.x963Representation
        let expected = SHA256.hash(data: key).map { String(format: "%02x", $0) }.joined()
        #expect(vault.fingerprint(of: key) == expected)
    }

    @Test("a Secure Enclave key signs after a match and its public key verifies the signature")
    func secureEnclaveKeySigns() throws {
        let key = try vault.makeSigningKey()
        try TestDevice.current.enqueue(.present("thumb"))
        let message = Data("challenge".utf8)
        let signature = try key.signature(for: message)
        #expect(key.publicKey.isValidSignature(signature, for: message))
    }
}
#endif
