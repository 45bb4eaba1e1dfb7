import Foundation
import Touchstone
import TouchstoneCommands

/// What the `login` commands remember in one REPL session: the server, the account signed in,
/// its bearer token (never printed) and the device binding made by `login enable`.
extension CommandSession {
    /// The `login` commands' state, kept in the session's feature storage (the session belongs
    /// to the headless command layer, below the REPL that adds these commands).
    var login: LoginState {
        get { self[state: LoginStateKey.self] }
        set { self[state: LoginStateKey.self] = newValue }
    }
}

/// Where a session keeps its ``LoginState``.
enum LoginStateKey: CommandSessionStateKey {
    static var initial: LoginState { LoginState() }
}

struct LoginState: Sendable {
    /// The server (`login server`, else `TOUCHSTONE_LOGIN_SERVER`, else `make server`'s address).
    var endpoint: LoginEndpoint?
    /// The username of the last register or password sign-in.
    var username: String?
    /// The profile that username or the bound device belongs to.
    var profileID: String?
    /// The bearer token of the current session (a secret: never printed, traced or stored).
    var token: String?
    /// How the current session was opened: `password`, `fingerprint` or `appattest`.
    var signedInBy: String?
    /// The server's ID for this device's key.
    var deviceID: String?
    /// The name (application tag) of the key `login enable` made.
    var keyName: String?
    /// The App Attest key `login attest` made and bound, and the server's ID for it.
    var attestKeyID: String?
    var attestDeviceID: String?

    /// The default server: `make server` listens there.
    static let defaultServer = "http://127.0.0.1:8080"
}

extension CommandTable {
    /// `login server|register|password|enable|fingerprint|status|disable`: seed 003's app
    /// (REFERENCE §11) against a running touchstone-server, in its strong form: a Secure
    /// Enclave key with biometryCurrentSet signs the server's challenge.
    static func loginCommands() -> [Command] {
        [
            Command(
                name: "login",
                summary: "seed 003's fingerprint login against touchstone-server: register, password, enable, fingerprint",
                usage: "login server [url] | login register <user> [password] | login password <user> [password] | "
                    + "login enable [name] | login fingerprint [outcome ...] | login attest [name] | login assert | login status | login disable",
                example: "login fingerprint thumb",
                moreExamples: [
                    "login server http://127.0.0.1:8080",
                    "login register alice 'correct horse'",
                    "login password alice 'correct horse'",
                    "login enable",
                    "login attest",
                    "login assert",
                    "login status",
                    "login disable",
                ],
                details: [
                    "Plays the app of seed 003 against a running touchstone-server (make server; docs/SERVER.md).",
                    "server: the server's http:// URL (default $TOUCHSTONE_LOGIN_SERVER, else \(LoginState.defaultServer));",
                    "plain http only (put TLS in front of the server). register creates an account (POST /v1/accounts);",
                    "password signs in (POST /v1/sessions) and keeps the session token in memory, never printed.",
                    "On a terminal an omitted password is asked for without echo; passwords never reach history or --json.",
                    "enable (signed in) makes a Secure Enclave P-256 key named [name] (default fingerprint-login) with",
                    "access biometryCurrentSet, accessible whenPasscodeSetThisDeviceOnly, and binds its public key to the",
                    "account (POST /v1/devices); it replaces this device's earlier key and binding.",
                    "fingerprint asks the server for a challenge (POST /v1/challenges), signs it after a biometric prompt",
                    "on a fresh context (outcomes as for evaluate), and sends the signature (POST /v1/logins).",
                    "After an enrollment change the key is invalidated: fingerprint is refused without a prompt until",
                    "password sign-in and enable again. disable unbinds the device (DELETE /v1/devices/<id>) and deletes the key.",
                    "attest (signed in) binds an App Attest key instead (docs/APP-ATTEST.md): a binding challenge",
                    "(POST /v1/devices/attest-challenges), a new key attested over SHA-256 of it, POST /v1/devices",
                    "{kind: appattest}; the server must trust the device's root (touchstone-server --app-attest-root, `attest",
                    "root`). assert logs in with it: a challenge (POST /v1/challenges), an assertion over SHA-256 of it",
                    "(POST /v1/logins); no prompt (App Attest proves the app and device, not the person).",
                    "Server errors show the HTTP status and the server's message; expect error <code> matches its code,",
                    "e.g. expect error invalid_credentials.",
                ],
                completer: { session, previous in
                    switch previous.count {
                    case 0: return ["server", "register", "password", "enable", "fingerprint", "attest", "assert", "status", "disable"]
                    default: return previous[0] == "fingerprint" ? session.outcomeWords : []
                    }
                },
                redactor: Command.redacting(wordAt: 2, after: ["register", "password"])  // the password, and passcode outcomes
            ) { session, arguments in
                let verb = try arguments.required(0, "server, register, password, enable, fingerprint, attest, assert, status or disable")
                switch verb {
                case "server": return try loginServer(session, arguments)
                case "register": return try loginRegister(session, arguments)
                case "password": return try loginPassword(session, arguments)
                case "enable": return try loginEnable(session, arguments)
                case "fingerprint": return try await loginFingerprint(session, arguments)
                case "attest": return try loginAttest(session, arguments)
                case "assert": return try loginAssert(session, arguments)
                case "status": return try loginStatus(session, arguments)
                case "disable": return try loginDisable(session, arguments)
                default: throw arguments.usageError("unknown login action '\(verb)'")
                }
            },
        ]
    }

    // MARK: Server and accounts

    private static func loginServer(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(2)
        guard let text = arguments[1] else {
            let endpoint = try session.loginEndpoint()
            return CommandOutput("login server: \(endpoint)", result: [("server", .string(endpoint.description))])
        }
        let endpoint = try LoginEndpoint(parsing: text)
        let forgot = session.login.token != nil || session.login.deviceID != nil
        session.login = LoginState(endpoint: endpoint)
        return CommandOutput("login server: \(endpoint)" + (forgot ? " (the session and binding for the previous server are forgotten)" : ""),
                             result: [("server", .string(endpoint.description))])
    }

    private static func credentials(_ session: CommandSession, _ arguments: CommandArguments) throws -> (String, String) {
        let user = try arguments.required(1, "the username")
        try arguments.expectAtMost(3)
        if let password = arguments[2] { return (user, password) }
        guard session.isInteractive, let readSecret = session.readSecret else { throw arguments.usageError("missing the password") }
        guard let password = readSecret("password for \(user): "), !password.isEmpty else { throw arguments.usageError("no password entered") }
        return (user, password)
    }

    private static func loginRegister(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let (user, password) = try credentials(session, arguments)
        let answer = try session.loginRequest("POST", "/v1/accounts", json: .object([("username", .string(user)), ("password", .string(password))]))
        let profile = try answer.string("profileID")
        session.login.username = user
        session.login.profileID = profile
        return CommandOutput("ok: registered \(user) (profile \(profile))", result: [("username", .string(user)), ("profileID", .string(profile))])
    }

    private static func loginPassword(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let (user, password) = try credentials(session, arguments)
        let answer = try session.loginRequest("POST", "/v1/sessions", json: .object([("username", .string(user)), ("password", .string(password))]))
        let token = try answer.string("token"), profile = try answer.string("profileID"), expires = try answer.string("expiresAt")
        session.login.username = user
        session.login.profileID = profile
        session.login.token = token
        session.login.signedInBy = "password"
        return CommandOutput("ok: signed in as \(user) with the password (profile \(profile))",
                             result: [("username", .string(user)), ("profileID", .string(profile)), ("by", .string("password")),
                                      ("expiresAt", .string(expires))])
    }

    // MARK: The device key

    /// The access control of the fingerprint-login key: the key dies with an enrollment change.
    static let loginKeyAccess: AccessControlFlags = [.privateKeyUsage, .biometryCurrentSet]

    private static func loginEnable(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(2)
        let name = arguments[1] ?? "fingerprint-login"
        guard !name.isEmpty, name.count <= 100 else { throw arguments.usageError("a key name is 1 to 100 characters") }
        guard let token = session.login.token else {
            throw LoginError.notReady(name: "notSignedIn", message: "sign in first: login password <user> [password]")
        }
        let keys = session.authenticator.keys
        // Replace this device's earlier binding and key (an enrollment change invalidated it, or
        // the user enables again): the server forgets the old public key, the device the old key.
        var replaced: [String] = []
        if let old = session.login.deviceID {
            do {
                _ = try session.loginRequest("DELETE", "/v1/devices/\(old)", bearer: token)
                replaced.append("unbound device \(old)")
            } catch let error as LoginError where error.code == 404 {
                // Already gone (revoked elsewhere, or another account's): nothing to undo.
            }
            session.login.deviceID = nil
        }
        for oldName in Set([name, session.login.keyName].compactMap { $0 }).sorted() {
            for key in try keys.keys(tag: Data(oldName.utf8), includingInvalidated: true) {
                try keys.delete(key)
                replaced.append("deleted the old key \(oldName)")
            }
        }
        session.login.keyName = nil
        let key = try keys.create(accessControl: try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: loginKeyAccess),
                                  tag: Data(name.utf8), label: name)
        let deviceID: String
        do {
            let answer = try session.loginRequest("POST", "/v1/devices", bearer: token, json: .object([
                ("kind", .string("key")), ("publicKey", .string(key.publicKeyData.base64EncodedString())), ("name", .string(name)),
            ]))
            deviceID = try answer.string("deviceID")
        } catch {
            try? keys.delete(key)  // not bound: keep no key the server does not know
            throw error
        }
        session.login.deviceID = deviceID
        session.login.keyName = name
        var lines = replaced.map { "  " + $0 }
        lines.insert("ok: fingerprint login enabled for \(session.login.username ?? session.login.profileID ?? "this account"): key \(name) (biometryCurrentSet) bound as device \(deviceID)", at: 0)
        return CommandOutput(lines, result: [("key", .string(name)), ("deviceID", .string(deviceID)),
                                             ("publicKey", .string(key.publicKeyData.hexString)), ("replaced", .strings(replaced))])
    }

    nonisolated(nonsending) private static func loginFingerprint(_ session: CommandSession, _ arguments: CommandArguments) async throws -> CommandOutput {
        guard let deviceID = session.login.deviceID, let name = session.login.keyName else {
            throw LoginError.notReady(name: "notEnabled", message: "fingerprint login is not enabled here: login password <user>, then login enable")
        }
        let keys = session.authenticator.keys
        guard let key = try keys.keys(tag: Data(name.utf8), includingInvalidated: true).first else {
            throw LoginError.notReady(name: "notEnabled", message: "the key \(name) is gone: login password <user>, then login enable")
        }
        // As the app does before asking the server: an invalidated key cannot sign, so no prompt
        // and no challenge is spent.
        if try keys.isInvalidated(key) {
            throw AnnotatedError(KeychainError(.invalidated, message: "the key \(name) was invalidated by an enrollment change."),
                                 note: "Fingerprint login is off: sign in with login password, then login enable to bind a new key.")
        }
        let (challengeText, challenge) = try session.loginRequest("POST", "/v1/challenges", json: .object([("deviceID", .string(deviceID))]))
            .base64("challenge")
        // Each sign-in is a fresh LAContext, as in the app: one prompt per login.
        let context = session.authenticator.makeContext()
        let signature = try await session.withScriptedOutcomes(arguments.words.dropFirst(1), arguments: arguments) { _ in
            try await keys.sign(challenge, with: key, context: context, reason: "Sign in with your fingerprint")
        }
        session.lastSignature = signature
        let answer = try session.loginRequest("POST", "/v1/logins", json: .object([
            ("deviceID", .string(deviceID)), ("challenge", .string(challengeText)), ("signature", .string(signature.base64EncodedString())),
        ]))
        let token = try answer.string("token"), profile = try answer.string("profileID"), expires = try answer.string("expiresAt")
        if profile != session.login.profileID { session.login.username = nil }
        session.login.profileID = profile
        session.login.token = token
        session.login.signedInBy = "fingerprint"
        let who = session.login.username ?? "profile \(profile)"
        return CommandOutput("ok: signed in as \(who) with the fingerprint (the server verified \(name)'s signature of its challenge)",
                             result: [("username", .optional(session.login.username)), ("profileID", .string(profile)),
                                      ("by", .string("fingerprint")), ("deviceID", .string(deviceID)), ("expiresAt", .string(expires))])
    }

    private static func loginStatus(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(1)
        let state = session.login
        let endpoint = try session.loginEndpoint()
        var invalidated = false
        var keyPresent = false
        if let name = state.keyName, let key = try session.authenticator.keys.keys(tag: Data(name.utf8), includingInvalidated: true).first {
            keyPresent = true
            invalidated = try session.authenticator.keys.isInvalidated(key)
        }
        let account = state.username.map { user in state.profileID.map { "\(user) (profile \($0))" } ?? user }
            ?? state.profileID.map { "profile \($0)" } ?? "none"
        let by = state.signedInBy ?? "password"
        let signedIn = state.token == nil ? "not signed in" : "signed in with " + (by == "appattest" ? "App Attest" : "the \(by)")
        let fingerprint: String
        switch (state.deviceID, state.keyName) {
        case let (device?, name?) where keyPresent:
            fingerprint = invalidated
                ? "off: key \(name) was invalidated by an enrollment change (device \(device)); password, then login enable"
                : "enabled: key \(name) bound as device \(device)"
        case let (device?, name?):
            fingerprint = "off: key \(name) is gone (device \(device)); login enable binds a new one"
        default:
            fingerprint = "off"
        }
        let appAttest = state.attestDeviceID.map { "bound as device \($0)" } ?? "off"
        return CommandOutput(["login server: \(endpoint)", "account: \(account)", "session: \(signedIn)", "fingerprint login: \(fingerprint)",
                              "app attest login: \(appAttest)"],
                             result: [("server", .string(endpoint.description)), ("username", .optional(state.username)),
                                      ("profileID", .optional(state.profileID)), ("signedIn", .bool(state.token != nil)),
                                      ("signedInBy", .optional(state.token != nil ? state.signedInBy : nil)),
                                      ("deviceID", .optional(state.deviceID)), ("key", .optional(state.keyName)),
                                      ("fingerprintEnabled", .bool(state.deviceID != nil && keyPresent && !invalidated)),
                                      ("appAttestDeviceID", .optional(state.attestDeviceID))])
    }

    private static func loginDisable(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(1)
        guard let deviceID = session.login.deviceID, let name = session.login.keyName else {
            throw LoginError.notReady(name: "notEnabled", message: "fingerprint login is not enabled here")
        }
        guard let token = session.login.token else {
            throw LoginError.notReady(name: "notSignedIn", message: "sign in to unbind the device: login password <user> [password]")
        }
        do {
            _ = try session.loginRequest("DELETE", "/v1/devices/\(deviceID)", bearer: token)
        } catch let error as LoginError where error.code == 404 {
            // The server already forgot it; the key still goes.
        }
        let keys = session.authenticator.keys
        for key in try keys.keys(tag: Data(name.utf8), includingInvalidated: true) { try keys.delete(key) }
        session.login.deviceID = nil
        session.login.keyName = nil
        return CommandOutput("ok: fingerprint login disabled: device \(deviceID) unbound, key \(name) deleted",
                             result: [("deviceID", .string(deviceID)), ("key", .string(name))])
    }
}

/// A JSON object the server answered.
struct LoginAnswer {
    let object: [String: Any]
    let url: String

    /// The string field `key`, or a protocol error naming it.
    func string(_ key: String) throws(LoginError) -> String {
        guard let value = object[key] as? String else { throw .protocolError(url: url, "the answer has no '\(key)'") }
        return value
    }

    /// The base64 field `key` as its text and bytes, or a protocol error naming it.
    func base64(_ key: String) throws(LoginError) -> (text: String, bytes: Data) {
        let text = try string(key)
        guard let bytes = Data(base64Encoded: text) else { throw .protocolError(url: url, "the \(key) is not base64") }
        return (text, bytes)
    }
}

extension CommandSession {
    /// The login server: `login server`, else `TOUCHSTONE_LOGIN_SERVER`, else the default.
    func loginEndpoint() throws(LoginError) -> LoginEndpoint {
        if let endpoint = login.endpoint { return endpoint }
        let text = ProcessInfo.processInfo.environment["TOUCHSTONE_LOGIN_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? LoginState.defaultServer
        let endpoint = try LoginEndpoint(parsing: text)
        login.endpoint = endpoint
        return endpoint
    }

    /// Sends one request to the login server; a non-2xx answer becomes ``LoginError/server``
    /// with the server's `error` and `message`.
    func loginRequest(_ method: String, _ path: String, bearer: String? = nil, json body: JSONValue? = nil) throws -> LoginAnswer {
        let endpoint = try loginEndpoint()
        let client = LoginHTTPClient(endpoint: endpoint)
        let response = try client.request(method, path, json: body.map { Array($0.serialized.utf8) }, bearer: bearer)
        let object = response.body.isEmpty ? nil : (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard (200 ..< 300).contains(response.status) else {
            let code = object?["error"] as? String ?? "http\(response.status)"
            var message = object?["message"] as? String
                ?? (String(decoding: response.body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            if message.isEmpty { message = "no message" }
            if let retry = response.headers["retry-after"] { message += " (Retry-After: \(retry) s)" }
            throw LoginError.server(status: response.status, code: code, message: message)
        }
        if response.status == 204 { return LoginAnswer(object: [:], url: endpoint.description) }
        guard let object else { throw LoginError.protocolError(url: endpoint.description, "the answer is not a JSON object") }
        return LoginAnswer(object: object, url: endpoint.description)
    }
}
