#if !canImport(Darwin)
// Only these two imports: `import Security` must bring Foundation with it, as Apple's does.
import Security
import Testing

@Suite("Modules: import Security alone")
struct ImportOnlySecurityTests {
    @Test("import Security re-exports Foundation and has the keychain surface")
    func reexports() {
        let item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                   kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecValueData as String: Data("x".utf8)]
        #expect(item.count == 4)
        let error = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam))
        #expect(CFErrorGetCode(error) == -50)
        #expect(SecCopyErrorMessageString(errSecParam, nil) as String? == "One or more parameters passed to a function were not valid.")
    }
}
#endif
