// libFuzzer target: SecKey calls with bytes from outside — key data of every type and class
// (SecKeyCreateWithData), signatures to verify, ciphertexts to decrypt, peer keys for a key
// exchange, key-generation parameters, legacy raw calls, and Secure Enclave key blobs
// (CryptoKit's dataRepresentation) — each under every algorithm.
import CryptoKit
import Foundation
import FuzzSupport
import Security

let algorithms: [SecKeyAlgorithm] = [kSecKeyAlgorithmRSASignatureRaw, kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw, kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1, kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224, kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256, kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384, kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512, kSecKeyAlgorithmRSASignatureDigestPSSSHA1, kSecKeyAlgorithmRSASignatureDigestPSSSHA224, kSecKeyAlgorithmRSASignatureDigestPSSSHA256, kSecKeyAlgorithmRSASignatureDigestPSSSHA384, kSecKeyAlgorithmRSASignatureDigestPSSSHA512, kSecKeyAlgorithmRSASignatureMessagePSSSHA1, kSecKeyAlgorithmRSASignatureMessagePSSSHA224, kSecKeyAlgorithmRSASignatureMessagePSSSHA256, kSecKeyAlgorithmRSASignatureMessagePSSSHA384, kSecKeyAlgorithmRSASignatureMessagePSSSHA512, kSecKeyAlgorithmECDSASignatureRFC4754, kSecKeyAlgorithmECDSASignatureDigestX962, kSecKeyAlgorithmECDSASignatureDigestX962SHA1, kSecKeyAlgorithmECDSASignatureDigestX962SHA224, kSecKeyAlgorithmECDSASignatureDigestX962SHA256, kSecKeyAlgorithmECDSASignatureDigestX962SHA384, kSecKeyAlgorithmECDSASignatureDigestX962SHA512, kSecKeyAlgorithmECDSASignatureMessageX962SHA1, kSecKeyAlgorithmECDSASignatureMessageX962SHA224, kSecKeyAlgorithmECDSASignatureMessageX962SHA256, kSecKeyAlgorithmECDSASignatureMessageX962SHA384, kSecKeyAlgorithmECDSASignatureMessageX962SHA512, kSecKeyAlgorithmECDSASignatureDigestRFC4754, kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1, kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224, kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256, kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384, kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512, kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1, kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224, kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256, kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384, kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512, kSecKeyAlgorithmRSAEncryptionRaw, kSecKeyAlgorithmRSAEncryptionPKCS1, kSecKeyAlgorithmRSAEncryptionOAEPSHA1, kSecKeyAlgorithmRSAEncryptionOAEPSHA224, kSecKeyAlgorithmRSAEncryptionOAEPSHA256, kSecKeyAlgorithmRSAEncryptionOAEPSHA384, kSecKeyAlgorithmRSAEncryptionOAEPSHA512, kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM, kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM, kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM, kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM, kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM, kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM, kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM, kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM, kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM, kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM, kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM, kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM, kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM, kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM, kSecKeyAlgorithmECDHKeyExchangeStandard, kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1, kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224, kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256, kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384, kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512, kSecKeyAlgorithmECDHKeyExchangeCofactor, kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1, kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224, kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256, kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384, kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512]

nonisolated(unsafe) let keyTypes: [Any] = [kSecAttrKeyTypeRSA, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyTypeEC, "42", 73, "bogus", Data([1])]
nonisolated(unsafe) let keyClasses: [Any] = [kSecAttrKeyClassPublic, kSecAttrKeyClassPrivate, kSecAttrKeyClassSymmetric, "0", 1, 2, Data()]
nonisolated(unsafe) let sizes: [Any] = [256, 384, 521, 1024, 2048, 0, -1, Int.max, Int.min, "256", 3.5]

/// The fixed keys the operations run against: software P-256, P-384 and RSA-2048 key pairs.
struct Keys {
    let privateKeys: [SecKey]
    let publicKeys: [SecKey]

    init?() {
        var privateKeys: [SecKey] = []
        for (type, bits) in [(kSecAttrKeyTypeECSECPrimeRandom, 256), (kSecAttrKeyTypeECSECPrimeRandom, 384), (kSecAttrKeyTypeRSA, 2048)] {
            let parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits]
            guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, nil) else { return nil }
            privateKeys.append(key)
        }
        self.privateKeys = privateKeys
        publicKeys = privateKeys.compactMap(SecKeyCopyPublicKey)
    }
}

guard let keys = Keys() else { fatalError("the fuzz target's keys could not be made") }
// A Secure Enclave key of this process's device (a blob opens only on the device that made it):
// the input edits its blob.
guard let enclaveBlob = try? SecureEnclave.P256.Signing.PrivateKey().dataRepresentation else {
    fatalError("the fuzz target's Secure Enclave key could not be made")
}
writeSeedsIfAsked {
    var seeds: [Data] = []
    // Case 0 reads: the case, "has a type" (0), the type's index, "has a class" (0), the class's
    // index, "has a size" (even: no), then the key's bytes.
    // (type: 0 RSA, 1 EC; class: 0 public, 1 private): the RSA and P-256 keys, each half.
    let halves: [(type: UInt8, keyClass: UInt8, key: SecKey?)] = [
        (0, 1, keys.privateKeys.last), (1, 1, keys.privateKeys.first), (0, 0, keys.publicKeys.last), (1, 0, keys.publicKeys.first),
    ]
    for (type, keyClass, key) in halves {
        guard let key else { continue }
        if let data = SecKeyCopyExternalRepresentation(key, nil) {
            seeds.append(Data([0, 0, type, 0, keyClass, 0]) + (data as Data))
        }
    }
    seeds.append(Data([6]))  // the blob unedited
    return seeds
}

func exercise(_ key: SecKey, _ input: inout FuzzInput) {
    _ = SecKeyCopyAttributes(key)
    _ = SecKeyCopyExternalRepresentation(key, nil)
    _ = SecKeyGetBlockSize(key)
    let algorithm = input.pick(algorithms)
    for operation in [SecKeyOperationType.sign, .verify, .encrypt, .decrypt, .keyExchange] {
        _ = SecKeyIsAlgorithmSupported(key, operation, algorithm)
    }
    let message = input.data(maxCount: 300)
    _ = SecKeyCreateSignature(key, algorithm, message as CFData, nil)
    _ = SecKeyCreateEncryptedData(key, algorithm, message as CFData, nil)
}

fuzz { input in
    switch input.int(in: 0...6) {
    case 0:
        var attributes: [String: Any] = [:]
        if input.byte() != 1 { attributes[kSecAttrKeyType as String] = input.pick(keyTypes) }
        if input.byte() != 1 { attributes[kSecAttrKeyClass as String] = input.pick(keyClasses) }
        if input.bool() { attributes[kSecAttrKeySizeInBits as String] = input.pick(sizes) }
        let data = input.rest()
        guard let key = SecKeyCreateWithData(data as CFData, attributes as CFDictionary, nil) else { return }
        exercise(key, &input)
    case 1:
        let key = input.pick(keys.publicKeys + keys.privateKeys)
        let algorithm = input.pick(algorithms)
        let message = input.data(maxCount: 300)
        _ = SecKeyVerifySignature(key, algorithm, message as CFData, input.rest() as CFData, nil)
    case 2:
        let key = input.pick(keys.privateKeys + keys.publicKeys)
        _ = SecKeyCreateDecryptedData(key, input.pick(algorithms), input.rest() as CFData, nil)
    case 3:
        let key = input.pick(keys.privateKeys + keys.publicKeys)
        let algorithm = input.pick(algorithms)
        var parameters: [String: Any] = [:]
        if input.bool() { parameters[kSecKeyKeyExchangeParameterRequestedSize as String] = input.pick([0, 1, 16, 32, 65_536, 65_537, -1, Int.max] as [Any] + ["32"]) }
        if input.bool() { parameters[kSecKeyKeyExchangeParameterSharedInfo as String] = input.data(maxCount: 64) }
        let peerData = input.rest()
        let peerAttributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                             kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        let peer = SecKeyCreateWithData(peerData as CFData, peerAttributes as CFDictionary, nil) ?? input.pick(keys.publicKeys)
        _ = SecKeyCopyKeyExchangeResult(key, algorithm, peer, parameters as CFDictionary, nil)
    case 4:
        var parameters: [String: Any] = [kSecAttrKeyType as String: input.pick(keyTypes)]
        // RSA sizes stay small enough to generate quickly; everything else may be anything.
        let size = input.pick(sizes)
        let isRSA = (parameters[kSecAttrKeyType as String] as? String) == (kSecAttrKeyTypeRSA as String)
        parameters[kSecAttrKeySizeInBits as String] = isRSA ? input.pick([1024, 512, 0, -1, 3000] as [Any] + ["1024"]) : size
        if input.bool() { parameters[kSecAttrTokenID as String] = input.pick([kSecAttrTokenIDSecureEnclave, "x", 1] as [Any]) }
        if input.bool() { parameters[kSecAttrIsPermanent as String] = input.pick([true, false, "yes", 7] as [Any]) }
        if input.bool() { parameters[kSecAttrApplicationTag as String] = input.pick([Data("tag".utf8), "tag", 5] as [Any]) }
        if input.bool() { parameters[kSecPrivateKeyAttrs as String] = input.pick([[:] as [String: Any], "x", [kSecAttrIsPermanent as String: "no"]] as [Any]) }
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, nil) else { return }
        exercise(key, &input)
        _ = SecItemDelete([kSecClass as String: kSecClassKey] as CFDictionary)
    case 5:
        let key = input.pick(keys.privateKeys + keys.publicKeys)
        let padding = SecPadding(rawValue: UInt32(input.pick([0, 1, 2, 0x4000, 0x8000, 0x8004, 0xFFFF_FFFF])))
        let data = [UInt8](input.data(maxCount: 300))
        let other = [UInt8](input.rest())
        var room = input.int(in: 0...600)
        var output = [UInt8](repeating: 0, count: max(room, 1))
        let status: OSStatus = switch data.count % 4 {
        case 0: SecKeyRawSign(key, padding, data, data.count, &output, &room)
        case 1: SecKeyRawVerify(key, padding, data, data.count, other, other.count)
        case 2: SecKeyEncrypt(key, padding, data, data.count, &output, &room)
        default: SecKeyDecrypt(key, padding, data, data.count, &output, &room)
        }
        precondition(status != errSecSuccess || room <= output.count, "claimed \(room) bytes written into \(output.count)")
    default:
        // The blob with bytes set (position, value) and perhaps cut short.
        var blob = enclaveBlob
        if input.bool() { blob = blob.prefix(input.int(in: 0...blob.count)) }
        while !input.isEmpty, !blob.isEmpty {
            let position = blob.startIndex + input.int(in: 0...(blob.count - 1))
            blob[position] = input.byte()
        }
        if let key = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob) {
            _ = try? key.signature(for: Data("m".utf8))
        }
        _ = try? SecureEnclave.P256.KeyAgreement.PrivateKey(dataRepresentation: blob)
    }
}
