import Crypto
import Foundation
import Hummingbird
import LoginServer
import Testing

@Suite("Device binding", .timeLimit(.minutes(2)))
struct DeviceTests {
    @Test("binding needs a session", arguments: Backend.available)
    func bindingNeedsSession(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let body: [String: any Sendable] = ["kind": "key", "publicKey": P256Key().publicKeyBase64, "name": "phone"]
            let guessed = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            for token in [nil, "not base64!", guessed] {
                let reply = try await client.send(.post, "/v1/devices", json: body, token: token)
                #expect(reply.status == .unauthorized)
                #expect(reply.errorCode == "unauthorized")
            }
        }
    }

    @Test("a key is listed after binding, with kind, name and times", arguments: Backend.available)
    func bindAndList(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            let deviceID = try await client.bindKey(P256Key(), token: token, name: "Ada's phone")
            let list = try await client.send(.get, "/v1/devices", token: token)
            #expect(list.status == .ok)
            let devices = try #require(list.json["devices"] as? [[String: Any]])
            #expect(devices.count == 1)
            #expect(devices.first?["deviceID"] as? String == deviceID)
            #expect(devices.first?["kind"] as? String == "key")
            #expect(devices.first?["name"] as? String == "Ada's phone")
            #expect(devices.first?["createdAt"] is String)
            #expect(devices.first?["lastUsedAt"] is NSNull)
        }
    }

    @Test("one device, one account: a bound key or token is 409 for any account", arguments: Backend.available)
    func oneDeviceOneAccount(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            try await client.register("bob")
            let ada = try await client.signIn("ada")
            let bob = try await client.signIn("bob")
            let key = P256Key()
            _ = try await client.bindKey(key, token: ada)
            let body: [String: any Sendable] = ["kind": "key", "publicKey": key.publicKeyBase64, "name": "x"]
            let sameAccount = try await client.send(.post, "/v1/devices", json: body, token: ada)
            let otherAccount = try await client.send(.post, "/v1/devices", json: body, token: bob)
            #expect(sameAccount.status == .conflict)
            #expect(otherAccount.status == .conflict)
            #expect(otherAccount.errorCode == "device_bound")

            let deviceToken = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let tokenBody: [String: any Sendable] = ["kind": "token", "deviceToken": deviceToken, "name": "y"]
            #expect(try await client.send(.post, "/v1/devices", json: tokenBody, token: ada).status == .created)
            #expect(try await client.send(.post, "/v1/devices", json: tokenBody, token: bob).status == .conflict)

            // One account, many devices.
            _ = try await client.bindKey(P256Key(), token: ada)
            let list = try await client.send(.get, "/v1/devices", token: ada)
            #expect((list.json["devices"] as? [Any])?.count == 3)
        }
    }

    @Test("malformed keys and short tokens are 400", arguments: Backend.available)
    func malformedCredentials(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            var offCurve = [UInt8](repeating: 1, count: 65)
            offCurve[0] = 4
            let compressed = P256.Signing.PrivateKey().publicKey.compressedRepresentation
            for (body, code) in [
                (["kind": "key", "publicKey": Data(offCurve).base64EncodedString()], "invalid_public_key"),
                (["kind": "key", "publicKey": compressed.base64EncodedString()], "invalid_public_key"),
                (["kind": "key", "publicKey": "%%%"], "invalid_public_key"),
                (["kind": "key"], "malformed_request"),  // a missing field, as the docs say
                (["kind": "token", "deviceToken": Data(count: 31).base64EncodedString()], "invalid_device_token"),
                (["kind": "fingerprint", "deviceToken": Data(count: 32).base64EncodedString()], "malformed_request"),
            ] as [([String: String], String)] {
                let reply = try await client.send(.post, "/v1/devices", json: body, token: token)
                #expect(reply.status == .badRequest, "\(body)")
                #expect(reply.errorCode == code)
            }
        }
    }

    @Test("deleting another account's device is 404; deleting one's own is 204", arguments: Backend.available)
    func deleteDevice(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            try await client.register("bob")
            let ada = try await client.signIn("ada")
            let bob = try await client.signIn("bob")
            let deviceID = try await client.bindKey(P256Key(), token: ada)
            #expect(try await client.send(.delete, "/v1/devices/\(deviceID)", token: bob).status == .notFound)
            #expect(try await client.send(.delete, "/v1/devices/\(deviceID)").status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/devices/\(deviceID)", token: ada).status == .noContent)
            #expect(try await client.send(.delete, "/v1/devices/\(deviceID)", token: ada).status == .notFound)
            let list = try await client.send(.get, "/v1/devices", token: ada)
            #expect((list.json["devices"] as? [Any])?.isEmpty == true)
        }
    }
    @Test("deleting a device ends the sessions it logged in; password sessions and other devices' sessions stay", arguments: Backend.available)
    func deletingDeviceEndsItsSessions(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let phone = try await EnrolledDevice.make(client)
            let laptop = P256Key()
            let laptopID = try await client.bindKey(laptop, token: phone.sessionToken, name: "laptop")
            let deviceToken = Data((0..<48).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let bind = try await client.send(.post, "/v1/devices", json: ["kind": "token", "deviceToken": deviceToken, "name": "tablet"],
                                             token: phone.sessionToken)
            let tabletID = try #require(bind.string("deviceID"))

            func signedIn(_ key: P256Key, _ deviceID: String) async throws -> String {
                let challenge = try await client.challenge(deviceID)
                let reply = try await client.login(deviceID, challenge: challenge, signature: try key.sign(challenge))
                return try #require(reply.string("token"))
            }
            let phoneSession = try await signedIn(phone.key, phone.deviceID)
            let laptopSession = try await signedIn(laptop, laptopID)
            let tabletSession = try #require(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": deviceToken]).string("token"))
            func works(_ session: String) async throws -> Bool {
                try await client.send(.get, "/v1/devices", token: session).status == .ok
            }
            #expect(try await works(phoneSession))
            #expect(try await works(laptopSession))
            #expect(try await works(tabletSession))

            // The phone is lost: its owner deletes it from the laptop.
            #expect(try await client.send(.delete, "/v1/devices/\(phone.deviceID)", token: laptopSession).status == .noContent)
            #expect(try await !works(phoneSession))
            #expect(try await client.send(.get, "/v1/devices", token: phoneSession).errorCode == "unauthorized")
            #expect(try await works(laptopSession))
            #expect(try await works(tabletSession))
            #expect(try await works(phone.sessionToken))  // the password session

            // A token device too.
            #expect(try await client.send(.delete, "/v1/devices/\(tabletID)", token: laptopSession).status == .noContent)
            #expect(try await !works(tabletSession))
            #expect(try await works(laptopSession))
        }
    }
}
