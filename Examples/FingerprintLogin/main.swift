// FingerprintLogin — seed 003 (《IOS指纹登录》) end to end, in its strong form (REFERENCE §11),
// against touchstone-server (Server/, docs/SERVER.md) over HTTP:
// after a password login the user enables fingerprint login; the device makes a Secure Enclave
// key with biometryCurrentSet and the server binds its public key to the account
// (POST /v1/devices). Later a fingerprint unlocks the key; the device signs the server's
// challenge (POST /v1/challenges) and the server, which keeps only public keys, verifies it
// (POST /v1/logins). An enrollment change makes the key unusable: the app falls back to the
// password and binds a new key, replacing the old binding. A second variant does the same with
// iOS 16's LARightStore; a third binds an App Attest key the server verifies (AppAttestLoginApp.swift).
//
// App code (`LoginApp`, `RightsLoginApp`, `LoginServer`) is iOS code: `import
// LocalAuthentication` and URLSession (FoundationNetworking on Linux). One step per run,
// against the device TOUCHSTONE_CONFIG names (TOUCHSTONE_SETUP / TOUCHSTONE_OUTCOMES as for
// the seed ports, Examples/SEEDS.md); the first argument is the server's URL:
//
//   FingerprintLogin http://127.0.0.1:8080 register alice 'correct horse'
//   FingerprintLogin http://127.0.0.1:8080 enable alice 'correct horse'   # password, then one fingerprint
//   FingerprintLogin http://127.0.0.1:8080 login                          # fingerprint login
//   FingerprintLogin http://127.0.0.1:8080 enable-right alice 'correct horse'  # the same with LARightStore
//   FingerprintLogin http://127.0.0.1:8080 login-right
//   FingerprintLogin http://127.0.0.1:8080 enable-attest alice 'correct horse'  # App Attest (server: --app-attest-root)
//   FingerprintLogin http://127.0.0.1:8080 login-attest
//
// scripts/login-demo.sh starts a server on a free loopback port and runs the whole story.
// Output lines are deterministic (no IDs, tokens or times); exit status 0 whatever the login
// result, 64 for a usage error, 69 when the server cannot be reached.

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import DeviceCheck
import LocalAuthentication
import TouchstoneCommands  // [driver] Linux only: SQLite stores and TOUCHSTONE_SETUP

// MARK: - The server's HTTP API (docs/SERVER.md)

/// A failed request: the server's `{"error","message"}`, or no answer at all.
enum ServerError: Error {
    case http(status: Int, code: String, message: String)
    case unreachable(String)

    var text: String {
        switch self {
        case let .http(status, code, message): "\(code) (HTTP \(status)): \(message)"
        case let .unreachable(reason): "server unreachable: \(reason)"
        }
    }
}

struct LoginServer {
    let base: URL

    /// POSTs (or DELETEs) JSON and returns the JSON object answered (empty for 204).
    func call(_ method: String, _ path: String, _ body: [String: String]? = nil, bearer: String? = nil) async throws -> [String: Any] {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = method
        request.timeoutInterval = 10
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw ServerError.unreachable("\(base.absoluteString) (\((error as NSError).localizedDescription))")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard (200 ..< 300).contains(status) else {
            throw ServerError.http(status: status, code: object["error"] as? String ?? "http_\(status)",
                                   message: object["message"] as? String ?? "")
        }
        return object
    }

    func register(_ username: String, _ password: String) async throws {
        _ = try await call("POST", "v1/accounts", ["username": username, "password": password])
    }

    /// A password login: the session token and the profile.
    func passwordLogin(_ username: String, _ password: String) async throws -> (token: String, profileID: String) {
        let answer = try await call("POST", "v1/sessions", ["username": username, "password": password])
        return (answer["token"] as? String ?? "", answer["profileID"] as? String ?? "")
    }

    /// Binds a public key (65-byte X9.63) to the session's account; the device's ID.
    func bind(publicKey: Data, name: String, token: String) async throws -> String {
        let answer = try await call("POST", "v1/devices", ["kind": "key", "publicKey": publicKey.base64EncodedString(), "name": name], bearer: token)
        return answer["deviceID"] as? String ?? ""
    }

    /// Forgets a binding (an unknown one is fine: it is gone either way).
    func unbind(deviceID: String, token: String) async throws {
        do {
            _ = try await call("DELETE", "v1/devices/\(deviceID)", bearer: token)
        } catch ServerError.http(status: 404, _, _) {}
    }

    /// A fresh challenge for the device (32 random bytes, valid 60 s, usable once).
    func challenge(deviceID: String) async throws -> Data {
        let answer = try await call("POST", "v1/challenges", ["deviceID": deviceID])
        return Data(base64Encoded: answer["challenge"] as? String ?? "") ?? Data()
    }

    /// The signature login: the profile signed in.
    func login(deviceID: String, challenge: Data, signature: Data) async throws -> String {
        let answer = try await call("POST", "v1/logins", ["deviceID": deviceID, "challenge": challenge.base64EncodedString(),
                                                          "signature": signature.base64EncodedString()])
        return answer["profileID"] as? String ?? ""
    }
}

// MARK: - What the app remembers (not secret): the binding, in a plain keychain item

struct Binding: Codable {
    var username: String
    var profileID: String
    var deviceID: String

    static let service = "com.example.fingerprint-login"

    static func load(_ account: String) -> Binding? { loadRecord(account) }
    func save(_ account: String) { saveRecord(self, account) }
    static func remove(_ account: String) { removeRecord(account) }
}

/// A small Codable value in a generic-password keychain item of the app's service.
func loadRecord<Value: Decodable>(_ account: String) -> Value? {
    var result: CFTypeRef?
    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Binding.service,
                                kSecAttrAccount as String: account, kSecReturnData as String: true]
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
    return try? JSONDecoder().decode(Value.self, from: data)
}

/// Replaces the item of `account` with `value`, readable after the first unlock, on this device only.
func saveRecord<Value: Encodable>(_ value: Value, _ account: String) {
    removeRecord(account)
    guard let data = try? JSONEncoder().encode(value) else { return }
    let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Binding.service,
                               kSecAttrAccount as String: account, kSecValueData as String: data,
                               kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
    _ = SecItemAdd(item as CFDictionary, nil)
}

func removeRecord(_ account: String) {
    SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Binding.service,
                   kSecAttrAccount as String: account] as CFDictionary)
}

// MARK: - The app: Secure Enclave key

final class LoginApp {
    static let keyTag = Data("com.example.fingerprint-login.key".utf8)
    let server: LoginServer

    init(server: LoginServer) { self.server = server }

    func register(_ username: String, _ password: String) async {
        do {
            try await server.register(username, password)
            print("register: ok user=\(username)")
        } catch {
            print("register: \(describe(error))")
        }
    }

    func enable(username: String, password: String) async {
        guard let session = await passwordSignIn(server, username, password) else { return }
        let context = LAContext()
        do {
            try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Enable fingerprint login")
        } catch {
            return print("enable: not enabled (\(describe(error)))")
        }
        // A new key replaces the old one (and its binding): after an enrollment change the old
        // one cannot sign any more.
        if let old = Binding.load("binding") {
            do {
                try await server.unbind(deviceID: old.deviceID, token: session.token)
            } catch {
                return print("enable: the old binding could not be removed (\(describe(error)))")
            }
            Binding.remove("binding")
        }
        SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.keyTag] as CFDictionary)
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
        do {
            let deviceID = try await server.bind(publicKey: publicBytes, name: "FingerprintLogin example", token: session.token)
            Binding(username: username, profileID: session.profileID, deviceID: deviceID).save("binding")
            print("enable: bound this device to \(username) (public key \(publicBytes.count) bytes)")
        } catch {
            SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.keyTag] as CFDictionary)
            print("enable: not bound (\(describe(error)))")
        }
    }

    func login() async {
        guard let binding = Binding.load("binding") else {
            return print("login: fingerprint login is off: sign in with your password and enable it")
        }
        let context = LAContext()
        do {
            try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in with your fingerprint")
        } catch {
            return print("login: cancelled or failed (\(describe(error)))")
        }
        // The evaluated context opens the key without a second prompt.
        let keyQuery: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.keyTag,
                                       kSecReturnRef as String: true, kSecUseAuthenticationContext as String: context]
        var keyResult: CFTypeRef?
        let status = SecItemCopyMatching(keyQuery as CFDictionary, &keyResult)
        guard status == errSecSuccess, let key = keyResult as? SecKey else {
            // The key is invalidated (enrollment change) or gone: the binding stays until the
            // next enable replaces it.
            return print("login: fingerprint login is off or biometry changed: sign in with your password and enable it again")
        }
        do {
            let challenge = try await server.challenge(deviceID: binding.deviceID)
            var error: Unmanaged<CFError>?
            guard let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, challenge as CFData, &error) as Data? else {
                return print("login: signing failed (\(error.map { describe($0.takeRetainedValue()) } ?? "?"))")
            }
            let profileID = try await server.login(deviceID: binding.deviceID, challenge: challenge, signature: signature)
            let who = profileID == binding.profileID ? binding.username : "another profile"
            print("login: ok user=\(who) (the server verified the challenge signature)")
        } catch {
            print("login: refused (\(describe(error)))")
        }
    }
}

// MARK: - The app, iOS 16 variant: LARightStore

final class RightsLoginApp {
    static let identifier = "com.example.fingerprint-login.right"
    let server: LoginServer

    init(server: LoginServer) { self.server = server }

    func enable(username: String, password: String) async {
        guard let session = await passwordSignIn(server, username, password) else { return }
        let right = LARight(requirement: .biometryCurrentSet)
        do {
            try await right.authorize(localizedReason: "Enable fingerprint login")
            if let old = Binding.load("binding-right") {
                try await server.unbind(deviceID: old.deviceID, token: session.token)
                Binding.remove("binding-right")
            }
            try? await LARightStore.shared.removeRight(forIdentifier: Self.identifier)
            let persisted = try await LARightStore.shared.saveRight(right, identifier: Self.identifier)
            let publicKey = try await persisted.key.publicKey.bytes
            let deviceID = try await server.bind(publicKey: publicKey, name: "FingerprintLogin example (LARight)", token: session.token)
            Binding(username: username, profileID: session.profileID, deviceID: deviceID).save("binding-right")
            print("enable-right: bound this device to \(username) (public key \(publicKey.count) bytes)")
        } catch {
            print("enable-right: not enabled (\(describe(error)))")
        }
    }

    func login() async {
        let right: LAPersistedRight
        guard let binding = Binding.load("binding-right") else {
            return print("login-right: fingerprint login is off: sign in with your password and enable it")
        }
        do {
            right = try await LARightStore.shared.right(forIdentifier: Self.identifier)
        } catch {
            return print("login-right: fingerprint login is off or biometry changed: sign in with your password and enable it again")
        }
        do {
            try await right.authorize(localizedReason: "Sign in with your fingerprint")
            let challenge = try await server.challenge(deviceID: binding.deviceID)
            let signature = try await right.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)
            let profileID = try await server.login(deviceID: binding.deviceID, challenge: challenge, signature: signature)
            let who = profileID == binding.profileID ? binding.username : "another profile"
            print("login-right: ok user=\(who) (the server verified the challenge signature)")
        } catch {
            print("login-right: cancelled or failed (\(describe(error)))")
        }
    }
}

func describe(_ error: any Error) -> String {
    if let error = error as? ServerError { return error.text }
    let nsError = error as NSError
    if nsError.domain == LAErrorDomain, let code = LAError.Code(rawValue: nsError.code) { return "LAError \(code) (\(nsError.code))" }
    if nsError.domain == DCErrorDomain, let code = DCError.Code(rawValue: nsError.code) { return "DCError \(code) (\(nsError.code))" }
    return "\(nsError.domain) \(nsError.code)"
}

// MARK: - [driver]

// The demo keeps the device in SQLite and changes it with TOUCHSTONE_SETUP: both come with
// every built-in plugin, which this program opts in to (docs/ADOPTING.md).
LocalAuthenticationSystem.bootstrap(.builtIn)

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: FingerprintLogin <server-url> register <user> <password> | enable <user> <password> | login"
    + " | enable-right <user> <password> | login-right | enable-attest <user> <password> | login-attest\n"
guard arguments.count >= 2, let base = URL(string: arguments[0]), ["http", "https"].contains(base.scheme ?? ""), base.host != nil else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
let step = Array(arguments.dropFirst())
let valid: [String: Int] = ["register": 3, "enable": 3, "login": 1, "enable-right": 3, "login-right": 1, "enable-attest": 3, "login-attest": 1]
guard let name = step.first, valid[name] == step.count else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
let server = LoginServer(base: base)
// Not app code: a clear exit status when no server answers, so a script fails loudly.
do {
    _ = try await server.call("GET", "health")
} catch {
    FileHandle.standardError.write(Data("FingerprintLogin: \(describe(error))\n".utf8))
    exit(69)
}
switch name {
case "register": await LoginApp(server: server).register(step[1], step[2])
case "enable": await LoginApp(server: server).enable(username: step[1], password: step[2])
case "login": await LoginApp(server: server).login()
case "enable-right": await RightsLoginApp(server: server).enable(username: step[1], password: step[2])
case "enable-attest": await AttestedLoginApp(server: server).enable(username: step[1], password: step[2])
case "login-attest": await AttestedLoginApp(server: server).login()
default: await RightsLoginApp(server: server).login()
}

/// The password sign-in both app variants start with; prints its result, nil when refused.
func passwordSignIn(_ server: LoginServer, _ username: String, _ password: String) async -> (token: String, profileID: String)? {
    do {
        let session = try await server.passwordLogin(username, password)
        print("password login: ok user=\(username)")
        return session
    } catch {
        print("password login: \(describe(error))")
        return nil
    }
}

