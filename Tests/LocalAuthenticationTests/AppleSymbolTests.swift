#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// Apple's constants and the CoreFoundation shapes real iOS code spells out (issue 10 §2).
@Suite("Apple's symbols: kLA* and kSec* constants, errSec* texts, CF shapes")
struct AppleSymbolTests {
    @Test("§3 Apple's Int32 kLAError* constants equal the LAError.Code raw values")
    func laErrorConstants() {
        let pairs: [(Int32, LAError.Code)] = [
            (kLAErrorAuthenticationFailed, .authenticationFailed), (kLAErrorUserCancel, .userCancel),
            (kLAErrorUserFallback, .userFallback), (kLAErrorSystemCancel, .systemCancel),
            (kLAErrorPasscodeNotSet, .passcodeNotSet), (kLAErrorBiometryNotAvailable, .biometryNotAvailable),
            (kLAErrorTouchIDNotAvailable, .biometryNotAvailable), (kLAErrorBiometryNotEnrolled, .biometryNotEnrolled),
            (kLAErrorTouchIDNotEnrolled, .biometryNotEnrolled), (kLAErrorBiometryLockout, .biometryLockout),
            (kLAErrorTouchIDLockout, .biometryLockout), (kLAErrorAppCancel, .appCancel),
            (kLAErrorInvalidContext, .invalidContext), (kLAErrorCompanionNotAvailable, .companionNotAvailable),
            (kLAErrorWatchNotAvailable, .companionNotAvailable), (kLAErrorBiometryNotPaired, .biometryNotPaired),
            (kLAErrorBiometryDisconnected, .biometryDisconnected), (kLAErrorInvalidDimensions, .invalidDimensions),
            (kLAErrorNotInteractive, .notInteractive),
        ]
        for (constant, code) in pairs { #expect(Int(constant) == code.rawValue) }
    }

    @Test("§2 §4 §8 kLAPolicy*, kLABiometryType*, kLACredentialType*, kLAAccessControlOperation*, kLACompanionType* constants")
    func otherLAConstants() {
        #expect(Int(kLAPolicyDeviceOwnerAuthenticationWithBiometrics) == LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue)
        #expect(Int(kLAPolicyDeviceOwnerAuthentication) == LAPolicy.deviceOwnerAuthentication.rawValue)
        #expect(Int(kLAPolicyDeviceOwnerAuthenticationWithCompanion) == LAPolicy.deviceOwnerAuthenticationWithCompanion.rawValue)
        #expect(Int(kLAPolicyDeviceOwnerAuthenticationWithBiometricsOrCompanion) == LAPolicy.deviceOwnerAuthenticationWithBiometricsOrCompanion.rawValue)
        #expect(Int(kLAPolicyDeviceOwnerAuthenticationWithWristDetection) == LAPolicy.deviceOwnerAuthenticationWithWristDetection.rawValue)
        #expect([kLABiometryTypeNone, kLABiometryTypeTouchID, kLABiometryTypeFaceID, kLABiometryTypeOpticID].map(Int.init)
                == LABiometryType.allCases.map(\.rawValue))
        #expect(Int(kLACredentialTypeApplicationPassword) == LACredentialType.applicationPassword.rawValue)
        #expect(Int(kLACredentialSmartCardPIN) == LACredentialType.smartCardPIN.rawValue)
        #expect([kLAAccessControlOperationCreateItem, kLAAccessControlOperationUseItem, kLAAccessControlOperationCreateKey,
                 kLAAccessControlOperationUseKeySign, kLAAccessControlOperationUseKeyDecrypt,
                 kLAAccessControlOperationUseKeyKeyExchange].map(Int.init) == LAAccessControlOperation.allCases.map(\.rawValue))
        #expect(Int(kLACompanionTypeWatch) == LACompanionType.watch.rawValue && LACompanionType.watch.rawValue == 1)
        #expect(Int(kLACompanionTypeMac) == LACompanionType.mac.rawValue && LACompanionType.mac.rawValue == 2)
        #expect(LABiometryType.LABiometryNone == .none)
        #expect(kLAErrorDomain == LAErrorDomain)
    }

    @Test("maxBiometryFailures is accepted and has no effect")
    func maxBiometryFailures() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        context.maxBiometryFailures = 1
        #expect(context.maxBiometryFailures == 1)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .noMatch, .noMatch], on: context)
                == .authenticationFailed)
    }

    @Test("§9 status codes: noErr, errSecUnimplemented, errSecMissingEntitlement and Apple's SecCopyErrorMessageString texts")
    func statusCodes() {
        #expect(noErr == 0 && errSecSuccess == 0)
        #expect(errSecUnimplemented == -4 && errSecMissingEntitlement == -34018 && errSecInteractionNotAllowed == -25308)
        #expect(SecCopyErrorMessageString(errSecSuccess, nil) as String? == "No error.")
        #expect(SecCopyErrorMessageString(errSecDuplicateItem, nil) as String? == "The specified item already exists in the keychain.")
        #expect(SecCopyErrorMessageString(errSecMissingEntitlement, nil) as String? == "A required entitlement isn't present.")
        #expect(SecCopyErrorMessageString(errSecInteractionNotAllowed, nil) as String? == "User interaction is not allowed.")
        #expect(SecCopyErrorMessageString(-12_345, nil) as String? == "OSStatus -12345")
    }

    @Test("SecCopyErrorMessageString gives SecBase.h's text for every errSec code, returned here or not")
    func everyStatusHasApplesText() throws {
        #expect(SecCopyErrorMessageString(errSecRestrictedAPI, nil) as String?
                == "Client is restricted and is not permitted to perform this operation.")
        #expect(SecCopyErrorMessageString(errSecHostNameMismatch, nil) as String? == "A host name mismatch has occurred.")
        #expect(SecCopyErrorMessageString(errSecNotTrusted, nil) as String? == "The certificate was not trusted.")
        // SecBase.h has had no text for the MobileMe codes since the iOS 11 SDK.
        #expect(SecCopyErrorMessageString(errSecMobileMeRequestQueued, nil) as String? == "OSStatus -67657")

        let table = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/api-coverage/error-messages.tsv")
        let rows = try String(contentsOf: table, encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(rows.count > 360)
        for row in rows {
            let status = try #require(OSStatus(String(row[0])))
            #expect(SecCopyErrorMessageString(status, nil) as String? == String(row[3]), "\(row[1])")
        }
    }

    @Test("kSecAttrProtocol has all 31 values and kSecAttrAuthenticationType its 8, with Apple's strings")
    func protocolAndAuthenticationTypes() {
        let protocols: [CFString] = [
            kSecAttrProtocolFTP, kSecAttrProtocolFTPAccount, kSecAttrProtocolHTTP, kSecAttrProtocolIRC, kSecAttrProtocolNNTP,
            kSecAttrProtocolPOP3, kSecAttrProtocolSMTP, kSecAttrProtocolSOCKS, kSecAttrProtocolIMAP, kSecAttrProtocolLDAP,
            kSecAttrProtocolAppleTalk, kSecAttrProtocolAFP, kSecAttrProtocolTelnet, kSecAttrProtocolSSH, kSecAttrProtocolFTPS,
            kSecAttrProtocolHTTPS, kSecAttrProtocolHTTPProxy, kSecAttrProtocolHTTPSProxy, kSecAttrProtocolFTPProxy,
            kSecAttrProtocolSMB, kSecAttrProtocolRTSP, kSecAttrProtocolRTSPProxy, kSecAttrProtocolDAAP, kSecAttrProtocolEPPC,
            kSecAttrProtocolIPP, kSecAttrProtocolNNTPS, kSecAttrProtocolLDAPS, kSecAttrProtocolTelnetS, kSecAttrProtocolIMAPS,
            kSecAttrProtocolIRCS, kSecAttrProtocolPOP3S,
        ]
        #expect(Set(protocols.map { $0 as String }).count == 31)
        #expect(kSecAttrProtocolHTTPS as String == "htps")
        let types: [CFString] = [
            kSecAttrAuthenticationTypeNTLM, kSecAttrAuthenticationTypeMSN, kSecAttrAuthenticationTypeDPA,
            kSecAttrAuthenticationTypeRPA, kSecAttrAuthenticationTypeHTTPBasic, kSecAttrAuthenticationTypeHTTPDigest,
            kSecAttrAuthenticationTypeHTMLForm, kSecAttrAuthenticationTypeDefault,
        ]
        #expect(Set(types.map { $0 as String }).count == 8)
        #expect(kSecAttrAuthenticationTypeHTMLForm as String == "form")
    }

    @Test("CF shapes: [String?: AnyObject] and [String: Data] as CFDictionary, kSec* as AnyObject, [CFString: Any], CFTypeRef out-parameters")
    func coreFoundationShapes() async throws {
        let sim = try TestDevice()
        let (statuses, data, all) = await sim.blocking { () -> ([OSStatus], Data?, Int) in
            let legacy: [String?: AnyObject] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a" as AnyObject,
                                                kSecValueData as String: Data("v".utf8) as AnyObject]
            let constant: AnyObject = kSecAttrAccessibleWhenUnlocked
            let modern = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "a"] as CFDictionary
            let update: [String: Data] = [kSecValueData as String: Data("w".utf8)]
            var statuses = [SecItemAdd(legacy as CFDictionary, nil), SecItemUpdate(modern, update as CFDictionary)]
            var result: CFTypeRef?
            let read: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
                                       kSecReturnData as String: kCFBooleanTrue!, kSecAttrAccessible as String: constant]
            statuses.append(SecItemCopyMatching(read as CFDictionary, &result))
            let data = result as? Data
            var list: AnyObject?
            let listQuery = [kSecClass: kSecClassGenericPassword, kSecReturnAttributes: kCFBooleanTrue as Any,
                             kSecMatchLimit: kSecMatchLimitAll] as [CFString: Any]
            statuses.append(SecItemCopyMatching(listQuery as CFDictionary, &list))
            return (statuses, data, (list as? [[String: Any]])?.count ?? -1)
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecSuccess, errSecSuccess])
        #expect(data == Data("w".utf8))
        #expect(all == 1)
    }

    @Test("a kSec* constant finds its entry in an [AnyHashable: Any] result, as NSString does on Apple platforms")
    func anyHashableLookups() async throws {
        let sim = try TestDevice()
        let found = await sim.blocking { () -> [Bool] in
            _ = SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: Data("k".utf8)] as CFDictionary, nil)
            var result: AnyObject?
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: kCFBooleanTrue!,
                                        kSecMatchLimit as String: kSecMatchLimitAll]
            _ = SecItemCopyMatching(query as CFDictionary, &result)
            let items = result as? [[AnyHashable: Any]] ?? []
            return [items.first?[kSecAttrAccount] as? Data == Data("k".utf8),
                    items.first?[kSecAttrAccount as String] as? Data == Data("k".utf8),
                    AnyHashable(kSecClass) == AnyHashable("class")]
        }
        #expect(found == [true, true, true])
    }

    @Test("CFError domains: kCFErrorDomainOSStatus is Security's NSOSStatusErrorDomain (as a test double builds its errors with CFErrorCreate), and POSIX, Mach, Cocoa have Apple's strings")
    func cfErrorDomains() {
        let made: CFError = CFErrorCreate(nil, kCFErrorDomainOSStatus, CFIndex(errSecParam), nil)
        #expect(CFErrorGetDomain(made) as String == NSOSStatusErrorDomain)
        #expect([kCFErrorDomainPOSIX, kCFErrorDomainOSStatus, kCFErrorDomainMach, kCFErrorDomainCocoa].map { $0 as String }
            == ["NSPOSIXErrorDomain", "NSOSStatusErrorDomain", "NSMachErrorDomain", "NSCocoaErrorDomain"])
    }

    @Test("CFError functions: CFErrorGetDomain, CFErrorGetCode, CFErrorCopyUserInfo, CFErrorCopyDescription; CFOptionFlags")
    func cfErrorFunctions() {
        var error: Unmanaged<CFError>?
        _ = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, [.or, .and], &error)
        guard let cfError = error?.takeRetainedValue() else {
            Issue.record("expected an error")
            return
        }
        #expect(CFErrorGetDomain(cfError) as String == NSOSStatusErrorDomain)
        #expect(CFErrorGetCode(cfError) == CFIndex(errSecParam))
        #expect(CFErrorCopyUserInfo(cfError).count >= 1)
        #expect(!(CFErrorCopyDescription(cfError) as String).isEmpty)
        let flags: CFOptionFlags = 0
        #expect(flags == 0)
        #expect(String(kCFBundleIdentifierKey) == "CFBundleIdentifier")
    }

    @Test("MacTypes: FourCharCode and OSType are UInt32, four characters packed big-endian, as code that spells keychain classes as codes expects")
    func fourCharCodes() {
        let code: FourCharCode = "genp".utf8.reduce(0) { $0 << 8 | FourCharCode($1) }
        let type: OSType = code
        #expect(code == 0x6765_6E70 && type == code)
        #expect(MemoryLayout<FourCharCode>.size == 4)
    }

    @Test("SecTrust is declared, so that code naming it compiles (an import item's trust, a pinning delegate's parameter); none is ever made here")
    func secTrustIsDeclared() {
        let trust: SecTrust? = nil
        let item: [String: Any] = [kSecImportItemTrust as String: trust as Any]
        #expect(item[kSecImportItemTrust as String].flatMap { $0 as? SecTrust } == nil)
    }
}
#endif
