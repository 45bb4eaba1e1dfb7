import Foundation
import InMemoryLogging
import Logging
import Security
import Synchronization
import Testing
import Touchstone

/// `TOUCHSTONE_LOG_LEVEL`: the status a failed `SecItem*` call returns does not say why; the
/// log does, at debug, and the device built from the environment logs at the level asked for.
@Suite("SecItem logging (TOUCHSTONE_LOG_LEVEL)")
struct SecItemLoggingTests {
    /// One test at a time replaces the calls' logger, which is the process's.
    private static let callLoggerInUse = Mutex(())

    /// Runs `body` with the keychain calls' logger replaced by one that keeps what it logs at
    /// debug; the handler that kept it.
    static func capturingCallLog(_ body: () throws -> Void) rethrows -> InMemoryLogHandler {
        try callLoggerInUse.withLock { _ in
            let handler = InMemoryLogHandler()
            var logger = Logger(label: "touchstone.test") { _ in handler }
            logger.logLevel = .debug
            let previous = LocalAuthenticationSystem.callLogger.withLock { current in
                defer { current = logger }
                return current
            }
            defer { LocalAuthenticationSystem.callLogger.withLock { $0 = previous } }
            try body()
            return handler
        }
    }

    @Test("a SecItem call refused for its query logs the status and the reason at debug")
    func aRefusedQueryIsLoggedWithItsReason() {
        // A value that is not data: errSecParam, before any device is involved.
        var status: OSStatus = 0
        let handler = Self.capturingCallLog {
            status = SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "logged",
                                 kSecAttrAccount as String: "logged", kSecValueData as String: [1, 2]] as CFDictionary, nil)
        }
        #expect(status == errSecParam)
        let entries = handler.entries.filter { $0.metadata["security.osstatus"] == "\(errSecParam)" }
        let entry = entries.first { "\($0.error.map { "\($0)" } ?? "")".contains("kSecValueData must be Data") }
        #expect(entry?.level == .debug, "\(handler.entries.map { "\($0.message) \($0.metadata) \(String(describing: $0.error))" })")
        #expect(entry.map { "\($0.message)" } == "a keychain call failed")
    }

    @Test("TOUCHSTONE_LOG_LEVEL sets the level of the device built from the environment; unset, nothing is logged; a word that is not a level is refused, naming the variable")
    func theEnvironmentsLevel() throws {
        let debug = try LocalAuthenticationSystem.makeAuthenticator(environment: [LocalAuthenticationSystem.logLevelVariable: "debug"])
        #expect(debug.device.logger.logLevel == .debug)
        #expect(debug.device.logger.handler is StreamLogHandler)
        let unset = try LocalAuthenticationSystem.makeAuthenticator(environment: [:])
        #expect(unset.device.logger.handler is SwiftLogNoOpLogHandler)
        #expect {
            try LocalAuthenticationSystem.makeAuthenticator(environment: [LocalAuthenticationSystem.logLevelVariable: "loud"])
        } throws: { error in
            "\(error)".contains("TOUCHSTONE_LOG_LEVEL") && "\(error)".contains("'loud' is not a level")
        }
    }
}
