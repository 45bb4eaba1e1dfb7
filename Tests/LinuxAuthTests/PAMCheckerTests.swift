import Foundation
import LinuxPAM
import Testing

/// Writes a private PAM service directory with a service `touchstone-test` that checks
/// passwords against a pam_matrix passdb (user `alice`, password `correct horse`).
func makePAMConfdir() throws -> String {
    let modules = try runTool("/usr/bin/pkg-config", ["--variable=modules", "pam_wrapper"])
        .trimmingCharacters(in: .whitespacesAndNewlines)
    let module = "\(modules)/pam_matrix.so"
    guard FileManager.default.fileExists(atPath: module) else {
        throw EnvironmentFailure(description: "pam_matrix.so not found at \(module) (apt libpam-wrapper; scripts/install-deps.sh)")
    }
    let confdir = FileManager.default.temporaryDirectory
        .appendingPathComponent("touchstone-pam-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: confdir, withIntermediateDirectories: true)
    let passdb = "\(confdir)/passdb"
    try "alice:correct horse:touchstone-test\n".write(toFile: passdb, atomically: true, encoding: .utf8)
    try """
        auth required \(module) passdb=\(passdb)
        account required \(module) passdb=\(passdb)

        """.write(toFile: "\(confdir)/touchstone-test", atomically: true, encoding: .utf8)
    try "auth required pam_deny.so\naccount required pam_deny.so\n"
        .write(toFile: "\(confdir)/other", atomically: true, encoding: .utf8)
    return confdir
}

/// The PAM checker against pam_matrix (libpam-wrapper) in a private service directory: no
/// root, nothing of the system's PAM touched.
final class PAMCheckerTests {
    let confdir: String

    init() throws {
        confdir = try makePAMConfdir()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: confdir)
    }

    private func checker(user: String = "alice", service: String = "touchstone-test") -> PAMChecker {
        PAMChecker(service: service, user: user, confdir: confdir)
    }

    @Test func rightPasswordSucceeds() throws {
        #expect(try checker().check(password: "correct horse") == .success)
    }

    @Test func wrongPasswordIsWrong() throws {
        #expect(try checker().check(password: "battery staple") == .wrongPassword)
        #expect(try checker().check(password: "") == .wrongPassword)
    }

    @Test func unknownUserIsRefused() throws {
        // pam_matrix answers PAM_AUTH_ERR for a user it does not know (as pam_unix does, so
        // as not to reveal which users exist); PAM_USER_UNKNOWN maps to .unknownUser.
        let result = try checker(user: "mallory").check(password: "correct horse")
        #expect(result == .wrongPassword || result == .unknownUser)
    }

    @Test func missingServiceFileNamesTheFile() throws {
        #expect(throws: PAMError.serviceFileMissing(path: "\(confdir)/touchstone-absent")) {
            try checker(service: "touchstone-absent").check(password: "correct horse")
        }
        let error = PAMError.serviceFileMissing(path: "/etc/pam.d/touchstone")
        #expect(error.description.contains("/etc/pam.d/touchstone"))
    }

    @Test func currentUserExists() {
        let checker = PAMChecker(service: "touchstone-test", confdir: confdir)
        #expect(!checker.user.isEmpty)
        #expect(checker.userExists)
        #expect(!PAMChecker(user: "touchstone-no-such-user").userExists)
    }
}
