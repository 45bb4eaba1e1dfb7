import CPAM
import Foundation
import Touchstone

/// What PAM said about one password.
public enum PAMResult: Sendable, Equatable {
    /// `pam_authenticate` and `pam_acct_mgmt` both returned `PAM_SUCCESS`.
    case success
    /// `PAM_AUTH_ERR`: the password is wrong (some modules say this for unknown users too).
    case wrongPassword
    /// `PAM_USER_UNKNOWN`: the service's modules do not know the user.
    case unknownUser
    /// The password was right but the account may not be used now (`pam_acct_mgmt`:
    /// expired, password change required, not permitted): `code` and PAM's text.
    case accountRefused(code: Int32, message: String)
}

/// Why a password could not be checked at all.
public enum PAMError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libpam (`libpam.so.0`) could not be loaded: the loader's reason.
    case libraryUnavailable(reason: String)
    /// No PAM service file: names the file that is needed.
    case serviceFileMissing(path: String)
    /// A PAM call failed with something other than a verdict on the password (`step`, code, text).
    case failed(step: String, code: Int32, message: String)

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .libraryUnavailable(let reason):
            "the PAM passcode needs libpam (Debian: apt-get install libpam0g): \(reason)"
        case .serviceFileMissing(let path):
            "the PAM service file \(path) does not exist (see Examples/LinuxLogin/pam.d/ for one that includes common-auth)"
        case .failed(let step, let code, let message):
            "PAM \(step) failed (\(code)): \(message)"
        }
    }
}

/// Checks a user's password through PAM: `pam_start` (or `pam_start_confdir` with a private
/// service directory), `pam_authenticate`, `pam_acct_mgmt`, `pam_end`.
///
/// The password reaches PAM only through the conversation (a C function answering echo-off
/// prompts with a `strdup` of it); the working copy is wiped when the check ends. Blocking:
/// modules may sleep (pam_unix delays failures), so call it off latency-sensitive threads.
public struct PAMChecker: Sendable {
    /// The PAM service (a file in `/etc/pam.d/`, or in ``confdir``).
    public var service: String
    /// The user whose password is checked.
    public var user: String
    /// A private service directory (`pam_start_confdir`, Linux-PAM 1.4+); nil: the system's.
    public var confdir: String?

    /// Creates a checker; `user` nil means the user running this process.
    public init(service: String = "touchstone", user: String? = nil, confdir: String? = nil) {
        self.service = service
        self.user = user ?? PAMChecker.currentUser
        self.confdir = confdir
    }

    /// The name of the user running this process ("" when the password database has none).
    public static var currentUser: String {
        passwordEntry { entry, buffer, count, result in getpwuid_r(geteuid(), entry, buffer, count, result) } ?? ""
    }

    /// Whether the system's password database knows ``user`` (`getpwnam_r`).
    public var userExists: Bool {
        user.withCString { name in
            Self.passwordEntry { entry, buffer, count, result in getpwnam_r(name, entry, buffer, count, result) }
        } != nil
    }

    /// The user name of the entry `lookup` finds (the reentrant getpw*_r calls), or nil.
    private static func passwordEntry(
        _ lookup: (UnsafeMutablePointer<passwd>, UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<UnsafeMutablePointer<passwd>?>) -> Int32
    ) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        // The entry's strings live in `buffer`: read the name before leaving it.
        return buffer.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, lookup(&entry, base, buffer.count, &result) == 0,
                  result != nil, let name = entry.pw_name else { return nil }
            return String(cString: name)
        }
    }

    /// The service file PAM will read, or nil when there is none.
    public var serviceFile: String? {
        let candidates = confdir.map { ["\($0)/\(service)"] } ?? ["/etc/pam.d/\(service)", "/usr/lib/pam.d/\(service)"]
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Checks `password`. Throws ``PAMError/serviceFileMissing(path:)`` before calling PAM when
    /// the service has no file (PAM would silently use `other`).
    public func check(password: String) throws -> PAMResult {
        guard serviceFile != nil else {
            throw PAMError.serviceFileMissing(path: confdir.map { "\($0)/\(service)" } ?? "/etc/pam.d/\(service)")
        }
        var pam = try PAMLibrary.shared.get().functions
        var secret = Array(password.utf8CString)
        defer { secret.withUnsafeMutableBytes { ts_wipe($0.baseAddress, $0.count) } }
        return try secret.withUnsafeBufferPointer { buffer in
            var handle: OpaquePointer?
            let started: Int32 = service.withCString { service in
                user.withCString { user in
                    if let confdir {
                        confdir.withCString { ts_pam_start(&pam, service, user, $0, buffer.baseAddress, &handle) }
                    } else {
                        ts_pam_start(&pam, service, user, nil, buffer.baseAddress, &handle)
                    }
                }
            }
            guard started == PAM_SUCCESS, let handle else {
                throw PAMError.failed(step: "pam_start", code: started, message: Self.text(pam, nil, started))
            }
            var status = pam.pam_authenticate(handle, Int32(bitPattern: UInt32(PAM_SILENT)))
            defer { _ = pam.pam_end(handle, status) }
            switch status {
            case PAM_SUCCESS: break
            case PAM_AUTH_ERR: return .wrongPassword
            case PAM_USER_UNKNOWN: return .unknownUser
            default: throw PAMError.failed(step: "pam_authenticate", code: status, message: Self.text(pam, handle, status))
            }
            status = pam.pam_acct_mgmt(handle, Int32(bitPattern: UInt32(PAM_SILENT)))
            switch status {
            case PAM_SUCCESS: return .success
            case PAM_USER_UNKNOWN: return .unknownUser
            case PAM_ACCT_EXPIRED, PAM_NEW_AUTHTOK_REQD, PAM_PERM_DENIED, PAM_AUTH_ERR:
                return .accountRefused(code: status, message: Self.text(pam, handle, status))
            default: throw PAMError.failed(step: "pam_acct_mgmt", code: status, message: Self.text(pam, handle, status))
            }
        }
    }

    private static func text(_ pam: ts_pam, _ handle: OpaquePointer?, _ code: Int32) -> String {
        pam.pam_strerror(handle, code).map { String(cString: $0) } ?? "PAM error \(code)"
    }
}

/// libpam's functions, opened with `dlopen` the first time a password is checked (shim.h):
/// the programs that carry the plugin neither link nor load libpam until then.
struct PAMLibrary: @unchecked Sendable {
    // @unchecked: the table holds C function pointers only, written once by the loader.
    let functions: ts_pam

    /// The loaded library, or why it could not be loaded (kept: the loader runs once).
    static let shared: Result<PAMLibrary, PAMError> = SystemLibrary.load(ts_pam_load)
        .map { PAMLibrary(functions: $0) }
        .mapError { .libraryUnavailable(reason: $0.reason) }
}
