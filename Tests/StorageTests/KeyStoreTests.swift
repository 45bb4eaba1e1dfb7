import Crypto
import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// The simulated Secure Enclave (REFERENCE §10) through the core SDK, one rule per test. The
/// rules are the keychain's (same code): these tests check that keys obey them.
@Suite("Secure Enclave keys (REFERENCE §10)")
struct KeyStoreTests {
    let challenge = Data("server-challenge-42".utf8)

    func access(_ flags: AccessControlFlags, _ accessibility: Accessibility = .whenUnlockedThisDeviceOnly) throws -> AccessControl {
        try AccessControl(accessibility, flags: flags.union(.privateKeyUsage))
    }

    /// Signs with `actions` queued; the DER signature or the keychain error.
    func sign(_ rig: TestDevice, _ key: EnclaveKey, _ actions: [UserAction], context: AuthenticationContext? = nil,
              message: Data? = nil) async -> Result<Data, KeychainError> {
        rig.user.enqueue(actions)
        do {
            return .success(try await rig.authenticator.keys.sign(message ?? challenge, with: key, context: context, reason: "Sign in"))
        } catch let error as KeychainError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .failure(KeychainError(.storageFailure))
        }
    }

    @Test("stored public keys are found by tag and label, are not among the private keys, belong to one app, and are deleted")
    func storedPublicKeys() throws {
        let rig = try TestDevice()
        let keys = rig.authenticator.keys
        let privateKey = try keys.create(accessControl: access([]), tag: Data("login".utf8))
        let server = P256.Signing.PrivateKey().publicKey.x963Representation
        let stored = try keys.storePublicKey(server, tag: Data("login".utf8), label: "server")
        #expect(try keys.keys(tag: Data("login".utf8)) == [privateKey])
        #expect(try keys.publicKeys(tag: Data("login".utf8)) == [stored])
        #expect(try keys.publicKeys(label: "other").isEmpty)
        #expect(throws: KeychainError.self) { try keys.storePublicKey(server) }  // errSecDuplicateItem
        #expect((try? keys.storePublicKey(Data(repeating: 4, count: 65))) == nil)  // not on the curve
        #expect(try rig.authenticator.forApp("com.example.other").keys.publicKeys().isEmpty)
        try keys.deletePublicKey(stored)
        #expect(try keys.publicKeys().isEmpty)
        #expect(try keys.keys() == [privateKey])
        #expect(throws: KeychainError.self) { try keys.deletePublicKey(stored) }
    }

    @Test("software keys export their bytes, import them back, keep a given application label and their access control; enclave keys export nothing")
    func softwareKeys() async throws {
        let rig = try TestDevice()
        let keys = rig.authenticator.keys
        let enclave = try keys.create(accessControl: access([]))
        await #expect(throws: KeychainError.self) { try await keys.exportPrivateKey(enclave) }
        #expect(throws: KeychainError.self) { try keys.importPrivateKey(Data(repeating: 4, count: 97)) }  // not a key
        #expect(throws: KeychainError.self) { try keys.importPrivateKey(Data(repeating: 1, count: 64)) }  // wrong length

        let original = P256.Signing.PrivateKey()
        let imported = try keys.importPrivateKey(original.x963Representation)
        #expect(imported.isSoftware && !imported.isPermanent && imported.publicKeyData == original.publicKey.x963Representation)
        #expect(try await keys.exportPrivateKey(imported) == original.x963Representation)

        // Stored with an app-chosen application label and a user-presence access control: found
        // by that label, and the export asks for the user first.
        let label = Data("com.example.dpop.privateKey".utf8)
        let stored = try keys.store(imported, tag: Data("dpop".utf8), applicationLabel: label,
                                    accessControl: try AccessControl(.whenUnlocked, flags: .userPresence))
        #expect(stored.applicationLabel == label && stored.id == imported.id && stored.flags == .userPresence)
        #expect(try keys.keys(tag: Data("dpop".utf8)) == [stored])
        rig.user.enqueue([.present("thumb")])
        #expect(try await keys.exportPrivateKey(stored, reason: "Export") == original.x963Representation)
        #expect(rig.user.pending.isEmpty)
        #expect(rig.device.lastTrace?.steps.contains { $0.event == .matched("thumb") } == true)

        let created = try keys.create(accessControl: access([]), permanent: false, software: true)
        #expect(created.isSoftware && "\(created)".contains("software"))
        let exported = try await keys.exportPrivateKey(created)
        #expect(try P256.Signing.PrivateKey(x963Representation: exported).publicKey.x963Representation == created.publicKeyData)
    }

    @Test("a signature made after a fingerprint verifies with the exported public key")
    func signatureVerifies() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryCurrentSet), tag: Data("login".utf8))
        #expect(key.publicKeyData.count == 65 && key.publicKeyData.first == 0x04)
        let der = try await sign(rig, key, [.present("thumb")]).get()
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        #expect(try key.signingPublicKey.isValidSignature(signature, for: challenge))
        #expect(rig.device.lastTrace?.policy == "access-control(biometryCurrentSet)")
        #expect(rig.user.pending.isEmpty)
    }

    @Test("a tampered message does not verify")
    func tamperedMessageFails() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryAny))
        let der = try await sign(rig, key, [.present("thumb")]).get()
        let signature = try P256.Signing.ECDSASignature(derRepresentation: der)
        #expect(!(try key.signingPublicKey.isValidSignature(signature, for: Data("server-challenge-43".utf8))))
    }

    @Test("signatures are DER: SEQUENCE of two INTEGERs, at most 72 bytes")
    func derFormat() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access([]))
        let der = try await sign(rig, key, []).get()
        #expect(der.first == 0x30)
        #expect(Int(der[der.startIndex + 1]) == der.count - 2)
        #expect(der[der.startIndex + 2] == 0x02)
        #expect(der.count <= 72 && der.count >= 8)
        // A digest signature verifies against the message's SHA-256.
        let digestDER = try await rig.authenticator.keys.sign(digest: Data(SHA256.hash(data: challenge)), with: key)
        #expect(try key.signingPublicKey.isValidSignature(P256.Signing.ECDSASignature(derRepresentation: digestDER), for: challenge))
    }

    @Test("a cancelled prompt is errSecUserCanceled with LAError userCancel, and nothing is signed")
    func cancel() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryCurrentSet))
        let result = await sign(rig, key, [.cancel])
        #expect(result.kind == .cancelled)
        if case let .failure(error) = result { #expect(error.authenticationCode == .userCancel && error.osStatus == -128) }
    }

    @Test("under lockout a biometric key cannot sign: errSecAuthFailed (lockedOut)")
    func lockout() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryAny))
        #expect(await sign(rig, key, Array(repeating: .noMatch, count: 3)).kind == .authenticationFailed)
        #expect(await sign(rig, key, Array(repeating: .noMatch, count: 2)).kind == .lockedOut)
        let result = await sign(rig, key, [])
        #expect(result.kind == .lockedOut)
        if case let .failure(error) = result { #expect(error.authenticationCode == .biometryLockout && error.osStatus == -25293) }
    }

    @Test("interactionNotAllowed: signing that needs the user is errSecInteractionNotAllowed")
    func interactionNotAllowed() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryAny))
        let context = rig.authenticator.makeContext()
        context.interactionNotAllowed = true
        #expect(await sign(rig, key, [], context: context).kind == .interactionNotAllowed)
    }

    @Test("a context that already evaluated signs without a second prompt")
    func evaluatedContextSignsWithoutPrompt() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryCurrentSet))
        let context = rig.authenticator.makeContext()
        rig.user.enqueue([.present("thumb")])
        try await context.evaluateAccessControl(key.accessControl, operation: .useKeySign, reason: "Sign in")
        // No outcome queued: a prompt would be a scripting mistake.
        let first = try await sign(rig, key, [], context: context).get()
        let second = try await sign(rig, key, [], context: context).get()
        #expect(!first.isEmpty && !second.isEmpty)
        // A fresh context asks again.
        #expect(await sign(rig, key, [.cancel]).kind == .cancelled)
    }

    @Test("a biometryCurrentSet key is unusable after an enrollment change, even if undone")
    func currentSetKeyAfterEnrollmentChange() async throws {
        let rig = try TestDevice()
        let keys = rig.authenticator.keys
        let key = try keys.create(accessControl: access(.biometryCurrentSet), tag: Data("login".utf8))
        let anyKey = try keys.create(accessControl: access(.biometryAny), tag: Data("any".utf8))
        try rig.device.enroll("index")
        try rig.device.unenroll("index")
        #expect(try keys.isInvalidated(key))
        let result = await sign(rig, key, [.present("thumb")])
        #expect(result.kind == .invalidated && result.status == -25300)
        #expect(rig.user.pending.count == 1)  // refused without prompting
        rig.user.enqueue([])
        #expect(try keys.keys(tag: Data("login".utf8)).isEmpty)
        #expect(try keys.keys(tag: Data("login".utf8), includingInvalidated: true).count == 1)
        // biometryAny survives the change.
        _ = try await sign(rig, anyKey, [.present("thumb")]).get()
    }

    @Test("removing the passcode deletes whenPasscodeSetThisDeviceOnly keys")
    func passcodeRemovalDeletesKeys() async throws {
        let rig = try TestDevice()
        let keys = rig.authenticator.keys
        let key = try keys.create(accessControl: access(.biometryAny, .whenPasscodeSetThisDeviceOnly), tag: Data("bound".utf8))
        _ = try keys.create(accessControl: access(.biometryAny), tag: Data("kept".utf8))
        try rig.device.clearPasscode()
        #expect(try keys.keys(tag: Data("bound".utf8), includingInvalidated: true).isEmpty)
        #expect(try keys.keys(tag: Data("kept".utf8)).count == 1)
        #expect(await sign(rig, key, []).kind == .itemNotFound)
        // And no new one without a passcode.
        #expect(throws: KeychainError.self) {
            try keys.create(accessControl: access(.biometryAny, .whenPasscodeSetThisDeviceOnly))
        }
    }

    @Test("keys survive a restart of a persistent device, sealed at rest")
    func restartPersistence() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let publicKey: Data
        do {
            let rig = try TestDevice(storage: Backend.sqlite.selection(in: directory), registry: .builtIn)
            let key = try rig.authenticator.keys.create(accessControl: access(.biometryCurrentSet), tag: Data("login".utf8), label: "Login")
            publicKey = key.publicKeyData
            // The private scalar is nowhere in the record in clear.
            let record = try #require(try rig.device.storage.list(namespace: KeyStore.namespace).first)
            #expect(record.value.count > 0)
            #expect(!String(decoding: record.value, as: UTF8.self).contains("rawRepresentation"))
        }
        let reopened = try TestDevice(storage: Backend.sqlite.selection(in: directory), registry: .builtIn)
        let key = try #require(try reopened.authenticator.keys.keys(tag: Data("login".utf8)).first)
        #expect(key.publicKeyData == publicKey && key.label == "Login")
        let der = try await sign(reopened, key, [.present("thumb")]).get()
        #expect(try key.signingPublicKey.isValidSignature(P256.Signing.ECDSASignature(derRepresentation: der), for: challenge))
    }

    @Test("a deleted key cannot sign; ephemeral keys are never stored")
    func deletionAndEphemeral() async throws {
        let rig = try TestDevice()
        let keys = rig.authenticator.keys
        let key = try keys.create(accessControl: access([]), tag: Data("t".utf8))
        try keys.delete(key)
        #expect(await sign(rig, key, []).kind == .itemNotFound)
        #expect(throws: KeychainError.self) { try keys.delete(key) }
        let ephemeral = try keys.create(accessControl: access([]), permanent: false)
        #expect(try keys.keys().isEmpty)
        _ = try await sign(rig, ephemeral, []).get()
    }

    @Test("ECIES round-trip and Apple's byte layout: ephemeral key || ciphertext || tag, X9.63 KDF")
    func eciesRoundTripAndFormat() async throws {
        let rig = try TestDevice()
        let key = try rig.authenticator.keys.create(accessControl: access(.biometryAny))
        let plaintext = Data("device-token-0123456789".utf8)
        let box = try ECIES.seal(plaintext, to: key.publicKeyData)
        #expect(box.count == 65 + plaintext.count + 16)
        #expect(box.first == 0x04)
        rig.user.enqueue([.present("thumb")])
        #expect(try await rig.authenticator.keys.decrypt(box, with: key, reason: "Unlock") == plaintext)
        // Independently: the shared secret through key exchange, the X9.63 KDF, AES-128-GCM with the 16-byte IV.
        let ephemeral = Data(box.prefix(65))
        rig.user.enqueue([.present("thumb")])
        let secret = try await rig.authenticator.keys.sharedSecret(with: ephemeral, using: key, reason: "Unlock")
        let material = ECIES.x963KDF(secret, sharedInfo: ephemeral, count: 32)
        let sealed = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: material.suffix(16)),
                                           ciphertext: box.dropFirst(65).dropLast(16), tag: box.suffix(16))
        #expect(try AES.GCM.open(sealed, using: SymmetricKey(data: material.prefix(16))) == plaintext)
        // A flipped byte does not open.
        var altered = box
        altered[altered.count - 1] ^= 1
        rig.user.enqueue([.present("thumb")])
        await #expect(throws: KeychainError.self) { try await rig.authenticator.keys.decrypt(altered, with: key, reason: "Unlock") }
    }

    @Test("the X9.63 KDF matches a published SHA-256 test vector")
    func x963Vector() {
        // NIST CAVS ANSI X9.63-2001 vector, SHA-256, 192-bit Z, no shared info, 128-bit output.
        let z = Data(hex: "96c05619d56c328ab95fe84b18264b08725b85e33fd34f08")
        let output = ECIES.x963KDF(z, sharedInfo: Data(), count: 16)
        #expect(output == Data(hex: "443024c3dae66b95e6f5670601558f71"))
    }
}

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index ..< next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }
}
