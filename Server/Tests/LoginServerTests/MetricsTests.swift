import Foundation
import Hummingbird
@testable import LoginServer
import Testing

/// `GET /metrics`: Prometheus text through swift-metrics and swift-prometheus.
@Suite("Prometheus metrics", .timeLimit(.minutes(2)))
struct MetricsTests {
    /// The samples of a Prometheus text exposition, by series (`name{label="value",...}` with
    /// the labels sorted by name, or the bare name).
    struct Samples {
        var values: [String: Double] = [:]

        init(_ text: String) throws {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                    Issue.record("not a sample line: \(line)")
                    continue
                }
                values[try Self.canonical(String(line[..<space]))] = value
            }
        }

        /// The series with its labels sorted, so a test need not know the order they print in.
        static func canonical(_ series: String) throws -> String {
            guard let brace = series.firstIndex(of: "{") else { return series }
            let name = series[..<brace]
            let inner = series[series.index(after: brace)..<series.index(before: series.endIndex)]
            let labels = inner.split(separator: ",").map(String.init).sorted()
            return name + "{" + labels.joined(separator: ",") + "}"
        }

        subscript(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            let key = labels.isEmpty ? name : name + "{" + labels.map { "\($0.key)=\"\($0.value)\"" }.sorted().joined(separator: ",") + "}"
            return values[key]
        }
    }

    func scrape(_ client: Client) async throws -> Samples {
        let reply = try await client.send(.get, "/metrics")
        try #require(reply.status == .ok, "GET /metrics: \(reply.status)")
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try Samples(String(decoding: reply.body, as: UTF8.self))
    }

    @Test("logins, failures by reason and rate-limit refusals are counted; every request is timed under its route and status",
          arguments: Backend.available)
    func loginsFailuresAndRefusals(backend: Backend) async throws {
        let server = try await TestServer.make(backend) { $0.addressFailureLimit = 3 }
        try await server.run { client in
            let before = try await scrape(client)
            // Every fixed series is there from the start, at 0.
            #expect(before["touchstone_logins_total", ["kind": "appattest"]] == 0)
            #expect(before["touchstone_login_failures_total", ["kind": "appattest", "reason": "counter_not_increased"]] == 0)
            #expect(before["touchstone_rate_limit_refusals_total", ["limit": "connections_per_address"]] == 0)
            #expect(before["touchstone_database_errors_total", ["kind": "unavailable"]] == 0)

            let device = try await EnrolledDevice.make(client)  // one password login
            let challenge = try await client.challenge(device.deviceID)
            let signature = try device.key.sign(challenge)
            #expect(try await client.login(device.deviceID, challenge: challenge, signature: signature).status == .ok)
            // Three failures from this address (its limit): a wrong password, a bad signature,
            // a valid signature over a spent challenge.
            let wrong = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "not the password"])
            #expect(wrong.status == .unauthorized)
            let other = try await client.challenge(device.deviceID)
            #expect(try await client.login(device.deviceID, challenge: other, signature: try P256Key().sign(other)).status == .unauthorized)
            #expect(try await client.login(device.deviceID, challenge: challenge, signature: signature).status == .unauthorized)
            // The fourth is refused by the limit before it is tried.
            let token = Data(repeating: 7, count: 32).base64EncodedString()
            #expect(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": token]).status == .tooManyRequests)

            let after = try await scrape(client)
            #expect(after["touchstone_logins_total", ["kind": "password"]] == 1)
            #expect(after["touchstone_logins_total", ["kind": "signature"]] == 1)
            #expect(after["touchstone_login_failures_total", ["kind": "password", "reason": "wrong_password"]] == 1)
            #expect(after["touchstone_login_failures_total", ["kind": "signature", "reason": "bad_signature"]] == 1)
            #expect(after["touchstone_login_failures_total", ["kind": "signature", "reason": "challenge_spent"]] == 1)
            #expect(after["touchstone_login_failures_total", ["kind": "token", "reason": "unknown_device"]] == 0)
            #expect(after["touchstone_rate_limit_refusals_total", ["limit": "failed_logins"]] == 1)
            let logins = ["route": "/v1/logins", "method": "POST"]
            #expect(after["touchstone_http_request_duration_seconds_count", logins.merging(["status": "200"]) { $1 }] == 1)
            #expect(after["touchstone_http_request_duration_seconds_count", logins.merging(["status": "401"]) { $1 }] == 2)
            #expect(after["touchstone_http_request_duration_seconds_bucket",
                          logins.merging(["status": "401", "le": "+Inf"]) { $1 }] == 2)
            // Unrouted requests share one series: a client cannot grow the registry.
            _ = try await client.send(.get, "/no/such/\(UUID())")
            _ = try await client.send(.get, "/no/such/\(UUID())")
            let unmatched = try await scrape(client)
            #expect(unmatched["touchstone_http_request_duration_seconds_count",
                              ["route": "unmatched", "method": "GET", "status": "404"]] == 2)
        }
    }

    @Test("token logins and their failures count under their own kind", arguments: Backend.available)
    func tokenKind(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            _ = try await client.register("ada")
            let session = try await client.signIn("ada")
            let token = Data((0..<32).map { UInt8($0) }).base64EncodedString()
            let bind = try await client.send(.post, "/v1/devices", json: ["kind": "token", "deviceToken": token, "name": "watch"],
                                             token: session)
            try #require(bind.status == .created)
            #expect(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": token]).status == .ok)
            let unknown = Data(repeating: 9, count: 32).base64EncodedString()
            #expect(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": unknown]).status == .unauthorized)
            let samples = try await scrape(client)
            #expect(samples["touchstone_logins_total", ["kind": "token"]] == 1)
            #expect(samples["touchstone_login_failures_total", ["kind": "token", "reason": "unknown_device"]] == 1)
        }
    }

    @Test("only the configured clients read /metrics; the rest get the 404 of a missing path")
    func onlyAllowedClients() async throws {
        let ranges = try AddressRanges(parsing: ["10.0.0.0/8"])
        let elsewhere = try await TestServer.make(.sqlite) { $0.metricsClients = ranges }
        try await elsewhere.run { client in
            let reply = try await client.send(.get, "/metrics")
            #expect(reply.status == .notFound)
            #expect(reply.errorCode == "not_found")
        }
        #expect(AddressRanges.loopback.contains("127.0.0.1") && AddressRanges.loopback.contains("::1"))
        #expect(AddressRanges.loopback.contains("::ffff:127.0.0.2"), "an IPv4-mapped address is its IPv4 address")
        #expect(!AddressRanges.loopback.contains("10.0.0.1") && !AddressRanges.loopback.contains("::2"))
    }

    @Test("a database that does not answer is counted as a database error")
    func databaseErrors() async throws {
        let server = try await TestServer.make(.sqlite) { $0.databaseTimeout = .milliseconds(50) }
        try await server.run(wrap: { StalledRepository(base: $0, latch: nil) }) { client in
            #expect(try await client.send(.get, "/health/ready").status == .serviceUnavailable)
            let samples = try await scrape(client)
            #expect(samples["touchstone_database_errors_total", ["kind": "unavailable"]] == 1)
            #expect(samples["touchstone_http_request_duration_seconds_count",
                            ["route": "/health/ready", "method": "GET", "status": "503"]] == 1)
        }
    }
}
