#if !canImport(Darwin)
import Foundation
import LocalAuthentication
@testable import TouchstoneSecurity
import Testing
import TouchstoneCommands
import TouchstoneTesting

/// `SecAddSharedWebCredential`, `SecRequestSharedWebCredential` and
/// `SecCreateSharedWebCredentialPassword` as KeychainAccess calls them on iOS: Apple's
/// signatures, completion handlers on another thread, credentials as dictionaries keyed by
/// `kSecAttrServer`, `kSecAttrAccount` and `kSecSharedPassword`.
@Suite("Shared web credentials (SecSharedCredential)")
struct SharedWebCredentialTests {
    /// The status a `SecAddSharedWebCredential` call reports (0 for a nil error).
    func add(_ sim: TestDevice, _ domain: String, _ account: String, _ password: String?) async -> Int {
        await withCheckedContinuation { continuation in
            LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
                SecAddSharedWebCredential(domain as CFString, account as CFString, password.map { $0 as CFString }) { error in
                    #expect(error == nil || error?.domain == NSOSStatusErrorDomain)
                    #expect(error.map { !$0.localizedDescription.isEmpty } ?? true)
                    continuation.resume(returning: error?.code ?? 0)
                }
            }
        }
    }

    /// The credentials a `SecRequestSharedWebCredential` call delivers, and its status.
    func request(_ sim: TestDevice, _ domain: String?, _ account: String?) async -> (credentials: [[String: String]], status: Int) {
        await withCheckedContinuation { continuation in
            LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
                SecRequestSharedWebCredential(domain.map { $0 as CFString }, account.map { $0 as CFString }) { array, error in
                    let credentials = (array as? [[String: String]]) ?? []
                    if let error, let message = SecCopyErrorMessageString(OSStatus(error.code), nil) as String? {
                        #expect(error.userInfo["NSDescription"] as? String == message)
                    }
                    #expect(array != nil, "an array, empty when nothing matched")
                    continuation.resume(returning: (credentials, error?.code ?? 0))
                }
            }
        }
    }

    @Test("a shared password is stored, found by domain and account, replaced and removed")
    func storeFindReplaceRemove() async throws {
        let sim = try TestDevice()
        #expect(await add(sim, "example.com", "ada", "abc-DEF-345-ghk") == 0)
        #expect(await add(sim, "example.com", "bob", "s3cret") == 0)
        #expect(await add(sim, "other.org", "ada", "elsewhere") == 0)

        let ada = await request(sim, "example.com", "ada")
        #expect(ada.status == 0)
        #expect(ada.credentials == [[kSecAttrServer as String: "example.com", kSecAttrAccount as String: "ada",
                                     kSecSharedPassword as String: "abc-DEF-345-ghk"]])
        // Without an account: every account of the site.
        let site = await request(sim, "example.com", nil)
        #expect(Set(site.credentials.compactMap { $0[kSecAttrAccount as String] }) == ["ada", "bob"])
        // Without a domain: every domain (the app is entitled to all of them here).
        #expect(await request(sim, nil, "ada").credentials.count == 2)

        #expect(await add(sim, "example.com", "ada", "changed") == 0)
        #expect(await request(sim, "example.com", "ada").credentials.first?[kSecSharedPassword as String] == "changed")
        #expect(await request(sim, "example.com", nil).credentials.count == 2, "replaced, not added again")

        #expect(await add(sim, "example.com", "ada", nil) == 0)
        let removed = await request(sim, "example.com", "ada")
        #expect(removed.credentials.isEmpty)
        #expect(removed.status == Int(errSecItemNotFound))
        #expect(await add(sim, "example.com", "ada", nil) == 0, "removing a password that is not there succeeds")
    }

    @Test("nothing stored: an empty array and errSecItemNotFound; an empty domain or account is errSecParam")
    func notFoundAndBadArguments() async throws {
        let sim = try TestDevice()
        let none = await request(sim, "example.com", nil)
        #expect(none.credentials.isEmpty)
        #expect(none.status == Int(errSecItemNotFound))
        #expect(await add(sim, "", "ada", "x") == Int(errSecParam))
        #expect(await add(sim, "example.com", "", "x") == Int(errSecParam))
    }

    @Test("a shared credential is kept as securityd keeps it (HTTPS, HTML form, synchronizable, label, comment, creator 'swca', Safari's group), and the app's own SecItem calls neither see that group nor may name it: errSecMissingEntitlement, as on iOS (SecItemServer.c)")
    func storedAsSafariKeepsIt() async throws {
        let sim = try TestDevice()
        #expect(await add(sim, "example.com", "ada", "pw") == 0)
        let stored = try #require(try sim.authenticator.keychain.items(service: "example.com", itemClass: .internetPassword).first)
        let attributes = stored.attributes
        #expect(attributes[kSecAttrAccessGroup as String] == .string("com.apple.cfnetwork"))
        #expect(attributes[kSecAttrProtocol as String] == .string(kSecAttrProtocolHTTPS as String))
        #expect(attributes[kSecAttrAuthenticationType as String] == .string(kSecAttrAuthenticationTypeHTMLForm as String))
        #expect(attributes[kSecAttrSynchronizable as String] == .bool(true))
        #expect(attributes[kSecAttrLabel as String] == .string("example.com (ada)"))
        #expect(attributes[kSecAttrComment as String] == .string("default"))
        #expect(attributes[kSecAttrCreator as String] == .integer(0x7377_6361))
        let statuses = LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { () -> [OSStatus] in
            let lookup = [kSecClass: kSecClassInternetPassword, kSecAttrServer: "example.com", kSecAttrAccount: "ada",
                          kSecAttrSynchronizable: kSecAttrSynchronizableAny, kSecReturnData: true] as [CFString: Any]
            var result: CFTypeRef?
            let named = lookup.merging([kSecAttrAccessGroup: "com.apple.cfnetwork"]) { $1 }
            let add = [kSecClass: kSecClassInternetPassword, kSecAttrServer: "example.org", kSecAttrAccount: "ada",
                       kSecAttrAccessGroup: "com.apple.cfnetwork", kSecValueData: Data("x".utf8)] as [CFString: Any]
            return [SecItemCopyMatching(lookup as CFDictionary, &result), SecItemCopyMatching(named as CFDictionary, &result),
                    SecItemAdd(add as CFDictionary, nil), SecItemDelete(named as CFDictionary)]
        }
        #expect(statuses == [errSecItemNotFound, errSecMissingEntitlement, errSecMissingEntitlement, errSecMissingEntitlement])
        // Still there for the functions themselves.
        #expect(await request(sim, "example.com", "ada").credentials.count == 1)
    }

    @Test("a credential an earlier version stored (not synchronizable, no HTML form) is still found; a new password replaces it with securityd's form, and a nil password removes either form")
    func earlierFormIsFoundAndReplaced() async throws {
        let sim = try TestDevice()
        let added = LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
            SharedWebCredentials.$asSafari.withValue(true) {
                SecItemAdd([kSecClass: kSecClassInternetPassword, kSecAttrAccessGroup: SharedWebCredentials.accessGroup,
                            kSecAttrProtocol: kSecAttrProtocolHTTPS, kSecAttrServer: "example.com", kSecAttrAccount: "ada",
                            kSecValueData: Data("old".utf8)] as [CFString: Any] as CFDictionary, nil)
            }
        }
        #expect(added == errSecSuccess)
        #expect(await request(sim, "example.com", "ada").credentials.map { $0[kSecSharedPassword as String] } == ["old"])
        #expect(await add(sim, "example.com", "ada", "new") == 0)
        let items = try sim.authenticator.keychain.items(service: "example.com", itemClass: .internetPassword)
        #expect(items.count == 1)
        #expect(items.first?.attributes[kSecAttrSynchronizable as String] == .bool(true))
        #expect(await request(sim, "example.com", "ada").credentials.map { $0[kSecSharedPassword as String] } == ["new"])
        #expect(await add(sim, "example.com", "ada", nil) == 0)
        #expect(try sim.authenticator.keychain.items(service: "example.com", itemClass: .internetPassword).isEmpty)
    }

    @Test("the work and the completion handler run with the caller's device: SecItem calls in the handler reach it")
    func handlerHasTheCallersDevice() async throws {
        let sim = try TestDevice()
        let added: Int32 = await withCheckedContinuation { continuation in
            LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
                SecAddSharedWebCredential("example.com" as CFString, "ada" as CFString, "pw" as CFString) { _ in
                    let item = [kSecClass: kSecClassGenericPassword, kSecAttrService: "from-the-handler",
                                kSecValueData: Data("v".utf8)] as [CFString: Any]
                    continuation.resume(returning: SecItemAdd(item as CFDictionary, nil))
                }
            }
        }
        #expect(added == errSecSuccess)
        let found = LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
            SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: "from-the-handler"] as CFDictionary, nil)
        }
        #expect(found == errSecSuccess, "the item is on the caller's device, not on the process's default one")
    }

    @Test("a locked device refuses to store a shared password, as it refuses any when-unlocked item")
    func lockedDeviceRefuses() async throws {
        let sim = try TestDevice(passcode: "1234")
        try LocalAuthenticationSystem.runSetup("lock", on: sim.authenticator)
        #expect(await add(sim, "example.com", "ada", "pw") == Int(errSecInteractionNotAllowed))
    }

    @Test("generated passwords: xxx-xxx-xxx-xxx from lowercase, capitals and digits without look-alikes, each kind present")
    func generatedPasswords() throws {
        let lowercase = Set("abcdefghkmnopqrstuvwxy"), capitals = Set("ABCDEFGHJKLMNPQRSTUVWXYZ"), digits = Set("3456789")
        var seen: Set<String> = []
        for _ in 0..<500 {
            let password = try #require(SecCreateSharedWebCredentialPassword() as String?)
            let groups = password.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.count == 4 && groups.allSatisfy { $0.count == 3 }, "\(password)")
            let characters = groups.joined()
            #expect(characters.allSatisfy { lowercase.contains($0) || capitals.contains($0) || digits.contains($0) }, "\(password)")
            #expect(characters.contains { lowercase.contains($0) } && characters.contains { capitals.contains($0) }
                && characters.contains { digits.contains($0) }, "\(password)")
            seen.insert(password)
        }
        #expect(seen.count == 500, "random, not repeated")
    }
}
#endif
