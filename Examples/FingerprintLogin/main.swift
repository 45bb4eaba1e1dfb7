// FingerprintLogin — seed 003 (《IOS指纹登录》) end to end, in its strong form (REFERENCE §11):
// after a password login the user enables fingerprint login; the device makes a Secure Enclave
// key with biometryCurrentSet and a long random device token (kept in a biometryCurrentSet
// keychain item, as the seed stores its ProfileTouchID), and the server binds
// (profile, token, public key). Later a fingerprint unlocks both; the device signs the server's
// challenge and the server, which keeps only public keys, verifies it. An enrollment change
// makes the key unusable: the app falls back to the password and binds again. A second variant
// does the same with iOS 16's LARightStore.
//
// App code (`LoginApp`, `RightsLoginApp`) is iOS code: only `import LocalAuthentication`. The
// server is a stub verifier in this file (`StubServer`, state in a JSON file) until the login
// server (Server/) exists. One step per run, against the device TOUCHSTONE_CONFIG names
// (TOUCHSTONE_SETUP / TOUCHSTONE_OUTCOMES as for the seed ports, Examples/SEEDS.md):
//
//   FingerprintLogin enable alice secret        # password login, then enable (one fingerprint)
//   FingerprintLogin login                      # fingerprint login (one fingerprint)
//   FingerprintLogin enable-right alice secret  # the same with LARightStore
//   FingerprintLogin login-right
//
// The server's state is kept in $FINGERPRINT_SERVER_STATE, else next to TOUCHSTONE_CONFIG.

import Foundation
import LocalAuthentication

// MARK: - The stub server (keeps only public keys)

struct StubServer {
    struct Device: Codable { var profile: String; var publicKey: Data }
    struct State: Codable {
        var passwords = ["alice": "secret", "bob": "hunter2"]
        var devices: [String: Device] = [:]  // device token → binding (one profile may have many devices)
    }

    let file: URL
    var state: State

    init() {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["FINGERPRINT_SERVER_STATE"] {
            file = URL(fileURLWithPath: path)
        } else if let config = environment["TOUCHSTONE_CONFIG"] {
            file = URL(fileURLWithPath: config).deletingLastPathComponent().appendingPathComponent("fingerprint-server.json")
        } else {
            file = URL(fileURLWithPath: "fingerprint-server.json")
        }
        state = (try? JSONDecoder().decode(State.self, from: Data(contentsOf: file))) ?? State()
    }

    func save() { try? JSONEncoder().encode(state).write(to: file) }

    func passwordLogin(_ profile: String, _ password: String) -> Bool { state.passwords[profile] == password }

    mutating func bind(profile: String, token: String, publicKey: Data) {
        state.devices = state.devices.filter { $0.value.profile != profile || $0.key == token }
        state.devices[token] = Device(profile: profile, publicKey: publicKey)
        save()
    }

    /// A fresh challenge (random, per login).
    func challenge() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0 ... 255) }) }

    /// The profile the token belongs to, when the signature over the challenge verifies with
    /// the device's public key.
    func verify(token: String, challenge: Data, signature: Data) -> String? {
        guard let device = state.devices[token] else { return nil }
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                         kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        guard let key = SecKeyCreateWithData(device.publicKey as CFData, attributes as CFDictionary, nil),
              SecKeyVerifySignature(key, .ecdsaSignatureMessageX962SHA256, challenge as CFData, signature as CFData, nil)
        else { return nil }
        return device.profile
    }
}

// MARK: - The app: Secure Enclave key + device token

final class LoginApp {
    static let keyTag = "com.example.fingerprint-login.key".data(using: .utf8)!
    static let tokenService = "com.example.fingerprint-login"
    var server = StubServer()

    func enable(profile: String, password: String) async {
        guard server.passwordLogin(profile, password) else { return print("password login: wrong password") }
        print("password login: ok profile=\(profile)")
        let context = LAContext()
        do {
            try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Enable fingerprint login")
        } catch {
            return print("enable: not enabled (\(describe(error)))")
        }
        clearLocalState()
        guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                           [.privateKeyUsage, .biometryCurrentSet], nil) else { return print("enable: no access control") }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.keyTag,
                                            kSecAttrAccessControl as String: access],
        ]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(key),
              let publicBytes = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            return print("enable: key creation failed (\(error.map { describe($0.takeRetainedValue()) } ?? "?"))")
        }
        // The seed's ProfileTouchID: long and random, stored under biometryCurrentSet.
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0 ... 255)) }.joined()
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.tokenService,
                                   kSecAttrAccount as String: "device-token", kSecValueData as String: Data(token.utf8),
                                   kSecAttrAccessControl as String: access]
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { return print("enable: token not stored (OSStatus \(status))") }
        server.bind(profile: profile, token: token, publicKey: publicBytes)
        print("enable: bound this device to \(profile) (public key \(publicBytes.count) bytes)")
    }

    func login() async {
        let context = LAContext()
        context.localizedReason = "Sign in with your fingerprint"
        do {
            try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in with your fingerprint")
        } catch {
            return print("login: cancelled or failed (\(describe(error)))")
        }
        // The evaluated context opens the token and the key without a second prompt.
        var result: CFTypeRef?
        let tokenQuery: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.tokenService,
                                         kSecAttrAccount as String: "device-token", kSecReturnData as String: true,
                                         kSecUseAuthenticationContext as String: context]
        let keyQuery: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.keyTag,
                                       kSecReturnRef as String: true, kSecUseAuthenticationContext as String: context]
        var keyResult: CFTypeRef?
        guard SecItemCopyMatching(tokenQuery as CFDictionary, &result) == errSecSuccess,
              let token = (result as? Data).flatMap({ String(data: $0, encoding: .utf8) }),
              SecItemCopyMatching(keyQuery as CFDictionary, &keyResult) == errSecSuccess,
              let key = keyResult as? SecKey else {
            clearLocalState()
            return print("login: fingerprint login is off or biometry changed: sign in with your password and enable it again")
        }
        let challenge = server.challenge()
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, challenge as CFData, &error) as Data? else {
            return print("login: signing failed (\(error.map { describe($0.takeRetainedValue()) } ?? "?"))")
        }
        if let profile = server.verify(token: token, challenge: challenge, signature: signature) {
            print("login: ok profile=\(profile) (challenge signature verified)")
        } else {
            print("login: the server refused the signature")
        }
    }

    func clearLocalState() {
        SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.keyTag] as CFDictionary)
        SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.tokenService] as CFDictionary)
    }
}

// MARK: - The app, iOS 16 variant: LARightStore

final class RightsLoginApp {
    static let identifier = "com.example.fingerprint-login.right"
    var server = StubServer()

    func enable(profile: String, password: String) async {
        guard server.passwordLogin(profile, password) else { return print("password login: wrong password") }
        print("password login: ok profile=\(profile)")
        let right = LARight(requirement: .biometryCurrentSet)
        do {
            try await right.authorize(localizedReason: "Enable fingerprint login")
            let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0 ... 255)) }.joined()
            let persisted = try await LARightStore.shared.saveRight(right, identifier: Self.identifier, secret: Data(token.utf8))
            let publicKey = try await persisted.key.publicKey.bytes
            server.bind(profile: profile, token: token, publicKey: publicKey)
            print("enable-right: bound this device to \(profile) (public key \(publicKey.count) bytes)")
        } catch {
            print("enable-right: not enabled (\(describe(error)))")
        }
    }

    func login() async {
        let right: LAPersistedRight
        do {
            right = try await LARightStore.shared.right(forIdentifier: Self.identifier)
        } catch {
            try? await LARightStore.shared.removeRight(forIdentifier: Self.identifier)
            return print("login-right: fingerprint login is off or biometry changed: sign in with your password and enable it again")
        }
        do {
            try await right.authorize(localizedReason: "Sign in with your fingerprint")
            let token = String(decoding: try await right.secret.rawData, as: UTF8.self)
            let challenge = server.challenge()
            let signature = try await right.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)
            if let profile = server.verify(token: token, challenge: challenge, signature: signature) {
                print("login-right: ok profile=\(profile) (challenge signature verified)")
            } else {
                print("login-right: the server refused the signature")
            }
        } catch {
            print("login-right: cancelled or failed (\(describe(error)))")
        }
    }
}

func describe(_ error: any Error) -> String {
    let nsError = error as NSError
    if nsError.domain == LAErrorDomain, let code = LAError.Code(rawValue: nsError.code) { return "LAError \(code) (\(nsError.code))" }
    return "\(nsError.domain) \(nsError.code)"
}

// MARK: - [driver]

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "enable" where arguments.count == 3: await LoginApp().enable(profile: arguments[1], password: arguments[2])
case "login" where arguments.count == 1: await LoginApp().login()
case "enable-right" where arguments.count == 3: await RightsLoginApp().enable(profile: arguments[1], password: arguments[2])
case "login-right" where arguments.count == 1: await RightsLoginApp().login()
default:
    FileHandle.standardError.write(Data("usage: FingerprintLogin enable <profile> <password> | login | enable-right <profile> <password> | login-right\n".utf8))
    exit(64)
}
