// libFuzzer target: SecItemAdd / CopyMatching / Update / Delete with dictionaries built from
// the input — any class, any of the keychain's keys, and values of every type a caller might
// pass by mistake (a string where data belongs, a number for a flag, a date, an array, a
// nested dictionary, another constant) — on the default in-memory device. Every call must
// answer with a status; an item that was added must be found and deleted again.
import Foundation
import FuzzSupport
import Security

nonisolated(unsafe) let classes: [Any] = [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate,
                      kSecClassIdentity, "genp", "bogus", 1]
nonisolated(unsafe) let keys: [CFString] = [
    kSecAttrService, kSecAttrAccount, kSecValueData, kSecAttrAccessible, kSecAttrAccessControl, kSecAttrAccessGroup,
    kSecAttrSynchronizable, kSecAttrLabel, kSecAttrDescription, kSecAttrComment, kSecAttrGeneric, kSecAttrServer,
    kSecAttrPort, kSecAttrProtocol, kSecAttrPath, kSecAttrSecurityDomain, kSecAttrAuthenticationType, kSecAttrType,
    kSecAttrCreator, kSecAttrIsInvisible, kSecAttrIsNegative, kSecAttrKeyType, kSecAttrKeyClass, kSecAttrKeySizeInBits,
    kSecAttrApplicationTag, kSecAttrApplicationLabel, kSecAttrIsPermanent, kSecAttrTokenID, kSecValueRef,
    kSecValuePersistentRef, kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef,
    kSecMatchLimit, kSecMatchItemList, kSecMatchCaseInsensitive, kSecUseDataProtectionKeychain,
    kSecUseAuthenticationUI, kSecUseOperationPrompt, kSecAttrCreationDate, kSecAttrModificationDate,
    kSecAttrCertificateType, kSecAttrSerialNumber, kSecAttrIssuer, kSecAttrSubject, kSecClass,
]
nonisolated(unsafe) let constants: [Any] = [
    kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
    kSecAttrSynchronizableAny, kSecMatchLimitOne, kSecMatchLimitAll, kSecAttrKeyTypeRSA, kSecAttrKeyTypeECSECPrimeRandom,
    kSecAttrKeyClassPrivate, kSecAttrKeyClassSymmetric, kSecAttrProtocolHTTPS, kSecAttrAuthenticationTypeDefault,
    kSecAttrTokenIDSecureEnclave, kSecUseAuthenticationUIFail, kSecUseAuthenticationUISkip,
]

/// A value of some type, from the input.
func value(_ input: inout FuzzInput, depth: Int = 0) -> Any {
    switch input.int(in: 0...11) {
    case 0: return String(decoding: input.data(maxCount: 24), as: UTF8.self)
    case 1: return input.data(maxCount: 40)
    case 2: return NSNumber(value: input.int(in: 0...65_535) - 2)
    case 3: return input.bool()
    case 4: return input.pick([Int64.max, Int64.min, Int64(UInt32.max) + 1, -1])
    case 5: return Date(timeIntervalSince1970: Double(input.int(in: 0...65_535)) * input.pick([1, 1e9, -1e9, .infinity, .nan]))
    case 6: return input.pick(constants)
    case 7: return NSNull()
    case 8: return depth < 2 ? [value(&input, depth: depth + 1), value(&input, depth: depth + 1)] : "x"
    case 9: return depth < 2 ? [String(input.pick(keys)): value(&input, depth: depth + 1)] : 0
    case 10: return Double(input.int(in: 0...1000)) / 7
    default: return input.pick(["fuzz", "", "a\u{2400}b", "\u{0}"] as [String])
    }
}

func dictionary(_ input: inout FuzzInput) -> [String: Any] {
    var entries: [String: Any] = [:]
    if input.byte() != 0 { entries[kSecClass as String] = input.pick(classes) }
    for _ in 0..<input.int(in: 0...7) {
        entries[input.pick(keys) as String] = value(&input)
    }
    return entries
}

fuzz { input in
    for _ in 0..<input.int(in: 1...4) {
        let first = dictionary(&input)
        var result: CFTypeRef?
        let wantsResult = input.bool()
        switch input.int(in: 0...3) {
        case 0 where wantsResult: _ = SecItemAdd(first as CFDictionary, &result)
        case 0: _ = SecItemAdd(first as CFDictionary, nil)
        case 1 where wantsResult: _ = SecItemCopyMatching(first as CFDictionary, &result)
        case 1: _ = SecItemCopyMatching(first as CFDictionary, nil)
        case 2: _ = SecItemUpdate(first as CFDictionary, dictionary(&input) as CFDictionary)
        default: _ = SecItemDelete(first as CFDictionary)
        }
    }
    // Each run starts from an empty keychain (libFuzzer wants a run to depend on its input only).
    for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate] {
        let query: [String: Any] = [kSecClass as String: itemClass, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
        _ = SecItemDelete(query as CFDictionary)
    }
}
