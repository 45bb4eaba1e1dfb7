#if !canImport(Darwin)
// Only these two imports: `import LocalAuthentication` must bring Foundation (NSError,
// UserDefaults, Data) and Security (SecItem*, kSec*, errSec*) with it, as Apple's module does.
import LocalAuthentication
import Testing

@Suite("Modules: import LocalAuthentication alone")
struct ImportOnlyLocalAuthenticationTests {
    @Test("import LocalAuthentication re-exports Foundation and Security")
    func reexports() {
        let error: NSError = LAError(.userCancel) as NSError
        #expect(error.domain == LAErrorDomain)
        let defaults: UserDefaults? = UserDefaults(suiteName: "touchstone.import-test")
        #expect(defaults != nil)
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValueData as String: Data()]
        #expect(query.count == 2)
        #expect(errSecItemNotFound == -25300)
        #expect(noErr == errSecSuccess)
    }
}
#endif
