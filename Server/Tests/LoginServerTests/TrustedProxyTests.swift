import Foundation
import Hummingbird
@testable import LoginServer
import Testing

/// Behind a load balancer: `X-Forwarded-For` names the client only when the peer is a trusted proxy.
@Suite("Trusted proxies and X-Forwarded-For")
struct TrustedProxyTests {
    @Test("ranges parse (IPv4, IPv6, one address); a bad one is refused saying why")
    func parsing() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "192.168.1.7", "fd00::/8", "::1"])
        #expect(proxies.trusts("10.200.3.4") && proxies.trusts("192.168.1.7") && proxies.trusts("fd12::1") && proxies.trusts("::1"))
        #expect(!proxies.trusts("11.0.0.1") && !proxies.trusts("192.168.1.8") && !proxies.trusts("fe80::1") && !proxies.trusts("junk"))
        #expect(try TrustedProxies(parsing: ["0.0.0.0/0"]).trusts("203.0.113.9"))
        #expect(try TrustedProxies(parsing: ["10.1.2.3/31"]).trusts("10.1.2.2"))
        #expect(!(try TrustedProxies(parsing: ["10.1.2.3/31"]).trusts("10.1.2.4")))
        for bad in ["10.0.0.0/33", "fd00::/129", "10.0.0.0/x", "example.com", "10.0.0/8", ""] {
            #expect(throws: TrustedProxies.ParseError.self, "\(bad)") { try TrustedProxies(parsing: [bad]) }
        }
    }

    @Test("the client is the right-most forwarded address that is not a trusted proxy; an untrusted peer's header is ignored")
    func clientResolution() throws {
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8"])
        #expect(proxies.client(peer: "10.0.0.1", forwardedFor: ["203.0.113.7"]) == "203.0.113.7")
        // A chain through two of ours: the client is left of them.
        #expect(proxies.client(peer: "10.0.0.1", forwardedFor: ["203.0.113.7, 10.0.0.9"]) == "203.0.113.7")
        // What the client wrote itself (further left) is never believed.
        #expect(proxies.client(peer: "10.0.0.1", forwardedFor: ["6.6.6.6", "203.0.113.7"]) == "203.0.113.7")
        #expect(proxies.client(peer: "10.0.0.1", forwardedFor: ["6.6.6.6, 203.0.113.7"]) == "203.0.113.7")
        // Not an address where an address must be: nothing further left is believed.
        #expect(proxies.client(peer: "10.0.0.1", forwardedFor: ["203.0.113.7, junk"]) == "10.0.0.1")
        #expect(proxies.client(peer: "10.0.0.1", forwardedFor: []) == "10.0.0.1")
        #expect(proxies.client(peer: "198.51.100.2", forwardedFor: ["203.0.113.7"]) == "198.51.100.2")
        #expect(TrustedProxies.none.client(peer: "10.0.0.1", forwardedFor: ["203.0.113.7"]) == "10.0.0.1")
        #expect(try TrustedProxies(parsing: ["::1"]).client(peer: "::1", forwardedFor: ["[2001:db8::5]"]) == "2001:db8::5")
    }

    @Test("the per-address limits count the forwarded client behind a trusted proxy, and the peer otherwise")
    func limitsFollowTheClient() async throws {
        @Sendable func create(_ client: Client, _ name: String, from address: String) async throws -> Int {
            let body = Array(#"{"username":"\#(name)","password":"correct horse battery"}"#.utf8)
            let headers = [("Content-Type", "application/json"), ("X-Forwarded-For", address)]
            return try await client.send(.post, "/v1/accounts", headers: headers, body: body).status.code
        }
        let trusted = try await TestServer.make(.sqlite) {
            $0.accountCreationLimit = 1
            $0.trustedProxies = TrustedProxies(ranges: [.init(network: [127, 0, 0, 1], prefix: 32)])
        }
        let behindProxy = try await trusted.run { client in
            [try await create(client, "ada", from: "203.0.113.1"), try await create(client, "bob", from: "203.0.113.1"),
             try await create(client, "cy", from: "203.0.113.2")]
        }
        #expect(behindProxy == [201, 429, 201])
        let direct = try await TestServer.make(.sqlite) { $0.accountCreationLimit = 1 }
        let ignored = try await direct.run { client in
            [try await create(client, "ada", from: "203.0.113.1"), try await create(client, "cy", from: "203.0.113.2")]
        }
        #expect(ignored == [201, 429], "an untrusted peer's X-Forwarded-For must not buy a new allowance")
    }
}
