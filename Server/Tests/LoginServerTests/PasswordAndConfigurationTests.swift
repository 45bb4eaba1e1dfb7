import Foundation
import GRDB
import _CryptoExtras
import Crypto
import Hummingbird
@testable import LoginServer
import Testing

@Suite("Password hashing and configuration", .timeLimit(.minutes(2)))
struct PasswordAndConfigurationTests {
    @Test("the default is PBKDF2-SHA256 with 210,000 rounds and a fresh salt per hash")
    func defaultHasher() throws {
        let hasher = PasswordHasher()
        #expect(hasher.rounds == 210_000)
        #expect(LoginServerConfiguration().passwordRounds >= 210_000)
        let first = try hasher.hash("correct horse battery")
        let second = try hasher.hash("correct horse battery")
        #expect(first.hasPrefix("pbkdf2-sha256-nfkc$210000$"))
        #expect(first != second)
        #expect(!first.contains("correct horse"))
        #expect(hasher.verify("correct horse battery", against: first))
        #expect(!hasher.verify("correct horse batterx", against: first))
        #expect(!hasher.verify("anything", against: "garbage"))
        #expect(!hasher.verify("anything", against: hasher.decoy()))
    }

    @Test("passwords are hashed in NFKC: composed, decomposed and full-width forms are one password; hashes of the earlier form verify as typed")
    func passwordsAreNormalized() throws {
        let hasher = PasswordHasher(rounds: 1_000)
        let hash = try hasher.hash("p\u{E4}ssw\u{F6}rd-42")             // ä and ö as one character each
        #expect(hasher.verify("pa\u{308}sswo\u{308}rd-42", against: hash))  // a and o + combining diaeresis
        #expect(hasher.verify("\u{FF50}\u{E4}ssw\u{F6}rd-42", against: hash)) // a full-width p
        #expect(!hasher.verify("passwort-42", against: hash))
        // A hash stored before normalization (the decomposed bytes as typed) keeps working for
        // exactly what was typed.
        let salt = Data(count: 16)
        let typed = "pa\u{308}sswo\u{308}rd-42"
        let derived = try KDF.Insecure.PBKDF2.deriveKey(from: Data(typed.utf8), salt: salt, using: .sha256,
                                                        outputByteCount: 32, unsafeUncheckedRounds: 1_000)
        let earlier = "pbkdf2-sha256$1000$\(salt.base64EncodedString())$\(derived.withUnsafeBytes { Data($0) }.base64EncodedString())"
        #expect(hasher.verify(typed, against: earlier))
        #expect(!hasher.verify("p\u{E4}ssw\u{F6}rd-42", against: earlier))
    }

    @Test("database URLs parse; the password is hidden when printed")
    func databaseURLs() throws {
        #expect(try DatabaseLocation(parsing: "sqlite:///var/lib/login.sqlite") == .sqlite(path: "/var/lib/login.sqlite"))
        let postgres = try DatabaseLocation(parsing: "postgres://ts:pw%40x@db.example:6543/login")
        #expect(postgres == .postgres(.init(host: "db.example", port: 6543, username: "ts", password: "pw@x", database: "login")))
        #expect(postgres.description == "postgres://ts:***@db.example:6543/login")
        #expect(try DatabaseLocation(parsing: "postgresql://ts@localhost/login", environment: [:])
            == .postgres(.init(host: "localhost", username: "ts", database: "login")))
        #expect(throws: DatabaseLocation.ParseError.self) { try DatabaseLocation(parsing: "mysql://x@y/z") }
        #expect(throws: DatabaseLocation.ParseError.self) { try DatabaseLocation(parsing: "postgres://host/db") }
        #expect(throws: DatabaseLocation.ParseError.self) { try DatabaseLocation(parsing: "sqlite://") }
        #expect(DatabaseLocation.defaultLocation(environment: ["XDG_DATA_HOME": "/data"]) == .sqlite(path: "/data/touchstone/login.sqlite"))
        #expect(DatabaseLocation.defaultLocation(environment: ["HOME": "/home/ada"]) == .sqlite(path: "/home/ada/.local/share/touchstone/login.sqlite"))
    }

    @Test("a postgres URL asking for TLS or naming another parameter is refused, saying why; PGPASSWORD stands in for a missing password")
    func postgresURLRules() throws {
        func refusal(_ url: String) -> String {
            do {
                _ = try DatabaseLocation(parsing: url, environment: [:])
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal("postgres://ts@db/login?sslmode=require").contains("sslmode=require is not supported"))
        #expect(refusal("postgres://ts@db/login?sslmode=verify-full").contains("does not speak TLS"))
        #expect(refusal("postgres://ts@db/login?application_name=x").contains("unknown postgres URL parameter 'application_name'"))
        #expect(refusal("postgres://ts@db:70000/login").contains("between 1 and 65535"))
        #expect(refusal("postgres://ts@db/login#x").contains("fragment"))
        #expect(try DatabaseLocation(parsing: "postgres://ts@db/login?sslmode=disable", environment: [:])
            == .postgres(.init(host: "db", username: "ts", database: "login")))

        let fromEnvironment = try DatabaseLocation(parsing: "postgres://ts@db/login", environment: ["PGPASSWORD": "s3cret"])
        guard case let .postgres(location) = fromEnvironment else { Issue.record("not postgres"); return }
        #expect(location.password == "s3cret")
        #expect(location.description == "postgres://ts:***@db:5432/login" && "\(location)" == location.description)
        let given = try DatabaseLocation(parsing: "postgres://ts:url-pw@db/login", environment: ["PGPASSWORD": "s3cret"])
        #expect(given == .postgres(.init(host: "db", username: "ts", password: "url-pw", database: "login")))
        #expect(try DatabaseLocation(parsing: "postgres://ts@db/login", environment: ["PGPASSWORD": ""])
            == .postgres(.init(host: "db", username: "ts", database: "login")))
    }

    @Test("time arithmetic on configured durations and stored dates saturates instead of trapping")
    func timeArithmeticSaturates() {
        #expect(Duration.seconds(Int64.max).milliseconds == .max)
        #expect(Duration.seconds(Int64.min).milliseconds == .min)
        #expect(Duration.seconds(90).milliseconds == 90_000)
        #expect(Date(timeIntervalSince1970: 1e300).millisecondsSince1970 == .max)
        #expect(Date(timeIntervalSince1970: -1e300).millisecondsSince1970 == .min)
        #expect(Date.distantFuture.millisecondsSince1970 > 0)
        #expect(Date(timeIntervalSince1970: 1.5).millisecondsSince1970 == 1_500)
    }

    @Test("PostgreSQL's statement_timeout is the database timeout in whole milliseconds, within what PostgreSQL takes")
    func statementTimeoutMilliseconds() {
        #expect(PostgresLoginRepository.milliseconds(.seconds(10)) == 10_000)
        #expect(PostgresLoginRepository.milliseconds(.nanoseconds(1)) == 1)
        #expect(PostgresLoginRepository.milliseconds(.seconds(Int64.max)) == Int(Int32.max))
        #expect(PostgresLoginRepository.milliseconds(.zero) == nil)
        #expect(PostgresLoginRepository.milliseconds(.seconds(-5)) == nil)
    }
}
