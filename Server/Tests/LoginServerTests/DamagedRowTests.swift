import Foundation
import GRDB
import Hummingbird
@testable import LoginServer
import Testing

/// A SQLite database edited outside the server: SQLite stores a value of any type in any
/// column, so a row can hold what the schema does not say.
extension RobustnessTests {
    /// A connection of another program to the server's SQLite file, which waits for the
    /// server's own transactions (its group commit, its pruning) as any such program should:
    /// without a busy timeout, GRDB fails at once with SQLITE_BUSY while one is open.
    static func outsideConnection(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    @Test("a device row edited to hold text in an integer column (sign_count, created_at) is a 500 for the requests that read it, logged with the table and column and never the value; the server keeps serving, and the row is left as it was")
    func damagedRowIsAnErrorNotACrash() async throws {
        let server = try await TestServer.make(.sqlite)
        guard case let .sqlite(path) = server.database.location else { throw CancellationError() }
        let device = try await server.run { client in try await EnrolledDevice.make(client) }
        let other = try Self.outsideConnection(path)
        try await other.write { db in
            try db.execute(sql: "UPDATE devices SET sign_count = 'secret-looking text', created_at = 'x' WHERE device_id = ?",
                           arguments: [device.deviceID])
        }
        try other.close()
        let statuses = try await server.run { client -> [HTTPResponse.Status] in
            let challenge = try await client.send(.post, "/v1/challenges", json: ["deviceID": device.deviceID])
            let devices = try await client.send(.get, "/v1/devices", token: device.sessionToken)
            let health = try await client.send(.get, "/health")
            return [challenge.status, devices.status, health.status]
        }
        #expect(statuses == [.ok, .internalServerError, .ok])
        #expect(server.logs.text.contains("devices.sign_count holds a value of the wrong type"))
        #expect(!server.logs.text.contains("secret-looking text"))
        let stored = try Self.outsideConnection(path)
        let signCount = try await stored.read { db in
            try String.fetchOne(db, sql: "SELECT CAST(sign_count AS TEXT) FROM devices WHERE device_id = ?", arguments: [device.deviceID])
        }
        try stored.close()
        #expect(signCount == "secret-looking text")
    }

    @Test("a failure row edited to hold text in login_failures.at (which SQLite sorts above every time, so it is never pruned) is a 500 for the logins that count it, not a server stopped at each restart")
    func damagedFailureRowIsAnErrorNotACrash() async throws {
        let server = try await TestServer.make(.sqlite)
        guard case let .sqlite(path) = server.database.location else { throw CancellationError() }
        let device = try await server.run { client -> EnrolledDevice in
            let device = try await EnrolledDevice.make(client)
            let challenge = try await client.challenge(device.deviceID)
            #expect(try await client.login(device.deviceID, challenge: challenge, signature: try P256Key().sign(challenge)).status == .unauthorized)
            return device
        }
        let other = try Self.outsideConnection(path)
        let edited = try await other.write { db -> Int in
            try db.execute(sql: "UPDATE login_failures SET at = 'x'")
            return db.changesCount
        }
        try other.close()
        #expect(edited > 0)
        let statuses = try await server.run { client -> [HTTPResponse.Status] in
            let challenge = try await client.challenge(device.deviceID)
            let login = try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge))
            return [login.status, try await client.send(.get, "/health").status]
        }
        #expect(statuses == [.internalServerError, .ok])
        #expect(server.logs.text.contains("login_failures.MIN(at) holds a value of the wrong type"))
    }
}
