#if !canImport(Darwin)
import CryptoKit
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// CryptoKit's `SecureEnclave.P256.Signing.PrivateKey` as iOS code uses it (`import CryptoKit`).
@Suite("CryptoKit: SecureEnclave.P256.Signing.PrivateKey")
struct CryptoKitSecureEnclaveTests {
    let challenge = Data("challenge-ck".utf8)

    @Test("a key made with biometryCurrentSet signs after Touch ID; its public key verifies; dataRepresentation restores it")
    func signVerifyRestore() async throws {
        let sim = try TestDevice()
        let challenge = challenge
        sim.user.enqueue([.present("thumb"), .present("thumb")])
        let results = await sim.blocking { () -> [Bool] in
            do {
                #expect(SecureEnclave.isAvailable)
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                             [.privateKeyUsage, .biometryCurrentSet], nil)!
                let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
                let signature = try key.signature(for: challenge)
                let restored = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: key.dataRepresentation)
                let again = try restored.signature(for: SHA256.hash(data: challenge))
                return [key.publicKey.isValidSignature(signature, for: challenge),
                        restored.publicKey.isValidSignature(again, for: challenge),
                        !key.publicKey.isValidSignature(signature, for: Data("other".utf8)),
                        key.publicKey.x963Representation == restored.publicKey.x963Representation]
            } catch {
                Issue.record("\(error)")
                return []
            }
        }
        #expect(results == [true, true, true, true])
    }

    @Test("a cancelled prompt throws LAError.userCancel; after an enrollment change the key throws a CryptoKit error")
    func cancelAndInvalidation() async throws {
        let sim = try TestDevice()
        let challenge = challenge
        let blob = await sim.blocking { () -> Data in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                         [.privateKeyUsage, .biometryCurrentSet], nil)!
            return (try? SecureEnclave.P256.Signing.PrivateKey(accessControl: access).dataRepresentation) ?? Data()
        }
        sim.user.enqueue([.cancel])
        let cancelled = await sim.blocking { () -> Bool in
            do {
                _ = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: challenge)
                return false
            } catch let error as LAError {
                return error.code == .userCancel
            } catch {
                return false
            }
        }
        #expect(cancelled)
        try sim.device.enroll("index")
        let invalidated = await sim.blocking { () -> Bool in
            do {
                _ = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: challenge)
                return false
            } catch let error as CryptoKitError {
                if case .underlyingCoreCryptoError(error: errSecItemNotFound) = error { return true }
                return false
            } catch {
                return false
            }
        }
        #expect(invalidated)
        #expect(sim.user.pending.isEmpty)
    }

    @Test("a dataRepresentation does not open on another device")
    func otherDevice() async throws {
        let first = try TestDevice()
        let blob = await first.blocking { (try? SecureEnclave.P256.Signing.PrivateKey().dataRepresentation) ?? Data() }
        let second = try TestDevice(seed: 8)  // another device secret (the same seed would be a clone)
        let challenge = challenge
        let opened = await second.blocking { () -> Bool in
            (try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: challenge)) != nil
        }
        #expect(!blob.isEmpty && !opened)
    }

    @Test("ML-DSA Secure Enclave keys (iOS 26) are not simulated: creating or opening one throws errSecUnimplemented")
    func postQuantumKeysThrowUnimplemented() throws {
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage], nil)!
        #expect(throws: CryptoKitError.underlyingCoreCryptoError(error: errSecUnimplemented)) {
            _ = try SecureEnclave.MLDSA65.PrivateKey(accessControl: access)
        }
        #expect(throws: CryptoKitError.underlyingCoreCryptoError(error: errSecUnimplemented)) {
            _ = try SecureEnclave.MLDSA87.PrivateKey(dataRepresentation: Data([1, 2, 3]))
        }
    }
}
#endif
