// LinuxLogin — authenticates the person at this machine with their fingerprint (fprintd),
// falling back to their login password (PAM), through Apple's LocalAuthentication API, then
// opens a keychain item protected with biometryCurrentSet (issue 11, docs/LINUX.md).
//
//   swift run LinuxLogin                      # fingerprint, or the password after 3 failures
//   swift run LinuxLogin --user alice --service touchstone --scan-timeout 20s
//   swift run LinuxLogin --bus unix:path=/tmp/x/bus --confdir /tmp/x/pam   # the test rig
//
// The device (counters, lockout, keychain) lives in an encrypted file under --state (default
// ~/.local/share/touchstone-linuxlogin). On a laptop with a reader: install fprintd, enroll a
// finger (`fprintd-enroll` or GNOME Settings), and install pam.d/touchstone as
// /etc/pam.d/touchstone. The app part (`LoginApp`) is iOS code: only Apple's names.

import Foundation
import LocalAuthentication
import Touchstone
import TouchstoneBuiltins

// MARK: - The app (iOS code)

enum LoginApp {
    static let service = "LinuxLogin"
    static let account = "session-secret"

    /// Logs in: fingerprint, or the login password (deviceOwnerAuthentication). Returns the
    /// context that authenticated, or nil.
    static func login() async -> LAContext? {
        let context = LAContext()
        context.localizedFallbackTitle = "Use Password"
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) else {
            print("cannot authenticate: \(error?.localizedDescription ?? "unknown error")")
            return nil
        }
        if context.biometryType == .touchID {
            print("Touch the fingerprint reader (three failures ask for your password).")
        }
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "log in to LinuxLogin")
            print("Welcome.")
            return context
        } catch let error as LAError {
            print("not authenticated: \(error.code) (\(error.code.rawValue))")
        } catch {
            print("not authenticated: \(error)")
        }
        return nil
    }

    /// Reads the biometryCurrentSet secret, storing a new one when there is none (or when an
    /// enrollment change invalidated the old one).
    static func openSecret(with context: LAContext) {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecReturnData as String: true,
            kSecUseAuthenticationContext as String: context,
            kSecUseOperationPrompt as String: "open the session secret",
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            let secret = (result as? Data).map { String(decoding: $0, as: UTF8.self) } ?? "?"
            print("session secret: \(secret)")
        case errSecItemNotFound:
            print("no session secret yet (or the enrolled fingers changed): storing a new one")
            storeSecret()
        default:
            print("the session secret cannot be opened: \(status)")
        }
    }

    static func storeSecret() {
        let delete: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        _ = SecItemDelete(delete as CFDictionary)
        guard let access = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .biometryCurrentSet, nil)
        else { return print("no access control") }
        let secret = UUID().uuidString
        var item = delete
        item[kSecValueData as String] = Data(secret.utf8)
        item[kSecAttrAccessControl as String] = access
        let status = SecItemAdd(item as CFDictionary, nil)
        print(status == errSecSuccess ? "stored session secret \(secret)" : "cannot store the secret: \(status)")
    }
}

// MARK: - The device: linux.fprintd + linux.pam + encrypted storage

/// The person at the terminal: answers password prompts without echo (the fingerprint reader
/// answers biometric ones itself); anything else is a cancel.
struct TerminalPerson: Interaction {
    func nextAction(for prompt: Prompt) async throws -> UserAction {
        guard prompt.kind == .passcode else { return .cancel }
        guard let password = readPassword("Password for \(prompt.reason): ") else { return .cancel }
        return .passcode(password)
    }

    func interrupt() {}

    private func readPassword(_ label: String) -> String? {
        FileHandle.standardError.write(Data(label.utf8))
        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if isTerminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        return readLine(strippingNewline: true)
    }
}

struct Options {
    var sensor: [String: String] = ["scan-timeout": "30s"]
    var passcode: [String: String] = [:]
    var trace = false
    var state = FileManager.default.homeDirectoryForCurrentUser
        .appendingPathComponent(".local/share/touchstone-linuxlogin").path

    init(_ arguments: ArraySlice<String>) throws {
        var arguments = arguments
        while let flag = arguments.popFirst() {
            if flag == "--trace" {
                trace = true
                continue
            }
            guard let value = arguments.popFirst() else { throw UsageError.invalidArgument("\(flag) needs a value") }
            switch flag {
            case "--user": sensor["user"] = value; passcode["user"] = value
            case "--service": passcode["service"] = value
            case "--confdir": passcode["confdir"] = value
            case "--bus": sensor["bus"] = value
            case "--device": sensor["device"] = value
            case "--scan-timeout": sensor["scan-timeout"] = value
            case "--state": state = value
            default: throw UsageError.invalidArgument("unknown option \(flag)")
            }
        }
    }
}

enum UsageError: Error, CustomStringConvertible {
    case invalidArgument(String)
    var description: String {
        switch self {
        case let .invalidArgument(text):
            "\(text)\nusage: LinuxLogin [--user NAME] [--service PAM-SERVICE] [--confdir DIR] [--bus ADDRESS] [--device PATH] [--scan-timeout 30s] [--state DIR] [--trace]"
        }
    }
}

func makeDevice(_ options: Options) throws -> Authenticator {
    try FileManager.default.createDirectory(atPath: options.state, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    var composition = Composition()
    composition.app = "org.touchstone.LinuxLogin"
    composition.clock = .wall
    composition.sensor = PluginSelection("linux.fprintd", options: options.sensor)
    composition.passcode = PluginSelection("linux.pam", options: options.passcode)
    composition.storage = PluginSelection("storage.encrypted-file", options: [
        "path": "\(options.state)/device.store", "key-file": "\(options.state)/device.key",
    ])
    return try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(interaction: TerminalPerson())
}

do {
    let options = try Options(CommandLine.arguments.dropFirst())
    let device = try makeDevice(options)
    LocalAuthenticationSystem.bootstrap(authenticator: device)
    let context = await LoginApp.login()
    if options.trace, let trace = device.device.lastTrace { print(trace) }
    guard let context else { exit(1) }
    LoginApp.openSecret(with: context)
} catch {
    FileHandle.standardError.write(Data("LinuxLogin: \(error)\n".utf8))
    exit(2)
}
