import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Passcodes, item values and application passwords never appear in traces, errors or
/// descriptions.
@Suite("Secrets stay secret")
struct SecretTests {
    @Test("item values and passcodes never reach traces, errors or descriptions")
    func nothingLeaks() async throws {
        let secret = "VALUE-7f3c9a"
        let passcode = "271828"
        let applicationPassword = "APP-PASS-5e1d"
        let rig = try TestDevice(passcode: passcode)
        var texts: [String] = []
        try rig.keychain.add(secret, service: "s", account: "plain")
        try rig.keychain.add(secret, service: "s", account: "bio", accessControl: AccessControl(flags: .biometryCurrentSet))
        let context = rig.authenticator.makeContext()
        _ = context.setCredential(Data(applicationPassword.utf8), type: .applicationPassword)
        try rig.keychain.add(secret, service: "s", account: "sealed",
                             accessControl: AccessControl(flags: [.applicationPassword, .devicePasscode]), context: context)
        for result in [
            await rig.read("s", "sealed", [.passcode("000000"), .passcode(passcode)]),
            await rig.read("s", "sealed", [.passcode(passcode)], context: context),
            await rig.read("s", "bio", [.cancel]),
        ] {
            texts.append("\(result)")
        }
        try rig.device.enroll("index")
        texts.append("\(await rig.read("s", "bio"))")
        texts.append(rig.device.lastTrace?.description ?? "")
        texts.append(context.lastTrace?.description ?? "")
        texts.append(try rig.keychain.items().description)
        texts.append(try rig.device.storage.list(namespace: Keychain.namespace).map { "\($0.key) \($0.attributes)" }.description)
        let joined = texts.joined(separator: "\n")
        #expect(!joined.contains(passcode))
        #expect(!joined.contains(applicationPassword))
        // The sealed read succeeded once: the value appears only in that success result.
        #expect(joined.components(separatedBy: secret).count - 1 == 1)
        #expect(joined.contains("passcode:****"))
    }

    @Test("an encrypted store never holds values or names in clear")
    func encryptedFileIsOpaque() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let rig = try TestDevice(storage: Backend.encrypted.selection(in: directory), registry: .builtIn)
        try rig.keychain.add("VISIBLE-SECRET", service: "bank", account: "alice")
        let bytes = try Data(contentsOf: try #require(Backend.encrypted.file(in: directory)))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("VISIBLE-SECRET") && !text.contains("alice") && !text.contains("bank"))
    }
}
