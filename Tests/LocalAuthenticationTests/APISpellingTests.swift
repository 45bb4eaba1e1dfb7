#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// The forms Apple-platform client code uses compile and behave the same here.
@Suite("Apple API spellings")
struct APISpellingTests {
    @Test("LAError: error.code, _code, (error as NSError).code, Code(rawValue:), domain")
    func errorForms() {
        let error: any Error = LAError(.biometryLockout)
        #expect((error as? LAError)?.code == .biometryLockout)
        #expect(error._code == -8)
        #expect((error as NSError).code == -8)
        #expect((error as NSError).domain == "com.apple.LocalAuthentication")
        #expect(LAErrorDomain == "com.apple.LocalAuthentication")
        #expect(LAError.errorDomain == LAErrorDomain)
        #expect(LAError.Code(rawValue: -2) == .userCancel)
        #expect(LAError.Code(rawValue: 42)?.rawValue == 42, "as an imported NS_ENUM: never nil")
        #expect(LAError.userCancel.rawValue == -2)
        #expect(LAError(.userCancel, userInfo: [NSLocalizedDescriptionKey: "custom"]).localizedDescription == "custom")
        #expect(!error.localizedDescription.isEmpty)
    }

    @Test("catch LAError.userCancel and case LAError.x pattern-match")
    func patternMatching() {
        func classify(_ error: any Error) -> String {
            switch error {
            case LAError.userCancel, LAError.systemCancel, LAError.appCancel: return "cancel"
            case LAError.biometryLockout: return "lockout"
            default: return "other"
            }
        }
        #expect(classify(LAError(.systemCancel)) == "cancel")
        #expect(classify(LAError(.biometryLockout)) == "lockout")
        #expect(classify(NSError(domain: LAErrorDomain, code: -9)) == "cancel")
        #expect(classify(NSError(domain: "other", code: -2)) == "other")
        do {
            throw LAError(.userCancel)
        } catch LAError.userCancel {
            // matched
        } catch {
            Issue.record("catch LAError.userCancel did not match")
        }
    }

    @Test("the deprecated touchID names are the biometry codes")
    func deprecatedAliases() {
        #expect(LAError.touchIDNotAvailable == .biometryNotAvailable)
        #expect(LAError.touchIDNotEnrolled == .biometryNotEnrolled)
        #expect(LAError.touchIDLockout == .biometryLockout)
        #expect(LAError.Code.touchIDLockout.rawValue == -8)
        #expect(LAError.watchNotAvailable == .companionNotAvailable)
        switch LAError(.biometryNotEnrolled).code {
        case .touchIDNotEnrolled: break
        default: Issue.record("case .touchIDNotEnrolled did not match")
        }
        #expect(LAPolicy.deviceOwnerAuthenticationWithWatch == .deviceOwnerAuthenticationWithCompanion)
        #expect(LABiometryType.typeNone == LABiometryType.none)
        #expect(SecAccessControlCreateFlags.touchIDAny == .biometryAny)
        #expect(SecAccessControlCreateFlags.touchIDCurrentSet == .biometryCurrentSet)
    }

    @Test("canEvaluatePolicy takes &error or nil; the NSError is in LAErrorDomain")
    func errorPointer() throws {
        let sim = try TestDevice(enrolled: [])
        let context = sim.makeLAContext()
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.domain == LAErrorDomain)
        #expect(error?.code == LAError.biometryNotEnrolled.rawValue)
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))
    }

    @Test("an empty localizedReason is a TouchstoneError (Apple crashes), in both forms")
    func emptyReason() async throws {
        let sim = try TestDevice()
        do {
            _ = try await sim.makeLAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "")
            Issue.record("expected an error")
        } catch let error as TouchstoneError {
            #expect(error.code == .programmerError)
            #expect(error.message.contains("localizedReason"))
            #expect((error as NSError).domain == "Touchstone")
        }
        let reply = await sim.evaluatePolicyWithReply(.deviceOwnerAuthenticationWithBiometrics, [], reason: "")
        #expect(!reply.success)
        #expect((reply.error as? TouchstoneError)?.code == .programmerError)
    }

    @Test("replies arrive on a background queue")
    func replyQueue() async throws {
        let sim = try TestDevice()
        let reply = await sim.evaluatePolicyWithReply(.deviceOwnerAuthenticationWithBiometrics, [.present("thumb")])
        #expect(reply.success)
        #expect(reply.error == nil)
        #expect(!reply.onMainThread)
    }

    @Test("a dry outcome queue is a scripting mistake reported to the script author; the app sees LAError.systemCancel, never a foreign error or a hang")
    func dryQueue() async throws {
        let sim = try TestDevice()
        do {
            _ = try await sim.makeLAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
            Issue.record("expected an error")
        } catch let error as LAError {
            #expect(error.code == .systemCancel)
            #expect(error.localizedDescription.contains("scripting mistake"))
        }
        #expect(sim.scriptingMistakes.count == 1)
        #expect(sim.scriptingMistakes.first?.contains("the scripted queue is empty") == true)
    }

    @Test("CoreFoundation spellings: as CFDictionary, kSecClass as String, CFTypeRef result, kCFBooleanTrue!")
    func coreFoundationSpellings() async throws {
        let sim = try TestDevice()
        let (add, copy, data, attributes) = await sim.blocking { () -> (OSStatus, OSStatus, Data?, [String: String]) in
            let item: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "svc",
                kSecAttrAccount as String: "acct",
                kSecValueData as String: Data("secret".utf8),
            ]
            let add = SecItemAdd(item as CFDictionary, nil)
            var query = item
            query.removeValue(forKey: kSecValueData as String)
            query[kSecReturnData as String] = kCFBooleanTrue!
            var result: CFTypeRef?
            let copy = SecItemCopyMatching(query as CFDictionary, &result)
            var attributesQuery = query
            attributesQuery[kSecReturnAttributes as String] = kCFBooleanTrue
            attributesQuery[kSecReturnData as String] = false
            var attributes: AnyObject?
            SecItemCopyMatching(attributesQuery as CFDictionary, &attributes)
            let strings = ((attributes as? [String: Any]) ?? [:]).compactMapValues { $0 as? String }
            return (add, copy, result as? Data, strings)
        }
        #expect(add == errSecSuccess)
        #expect(copy == errSecSuccess)
        #expect(data == Data("secret".utf8))
        #expect(attributes[kSecAttrAccount as String] == "acct")
        #expect(attributes[kSecAttrService as String] == "svc")
        #expect(attributes[kSecAttrAccessible as String] == kSecAttrAccessibleWhenUnlocked as String)
    }

    @Test("SecAccessControlCreateWithFlags reports errSecParam through Unmanaged<CFError>")
    func accessControlError() {
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked,
                                                     [.biometryAny, .or, .and, .devicePasscode], &error)
        #expect(access == nil)
        let nsError = error?.takeRetainedValue()
        #expect(nsError?.code == Int(errSecParam))
        #expect(nsError?.domain == NSOSStatusErrorDomain)
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil) != nil)
        #expect(SecAccessControlCreateWithFlags(nil, "bogus" as CFString, .userPresence, nil) == nil)
        #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) as String? == "The specified item could not be found in the keychain.")
    }

    @Test("subclassing LAContext (mocks) works")
    func subclassing() {
        final class MockContext: LAContext, @unchecked Sendable {
            override func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool { true }
        }
        #expect(MockContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
    }
}
#endif
