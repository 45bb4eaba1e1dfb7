import Foundation
@testable import LoginServer
import Testing

/// `Server/openapi.json` (OpenAPI 3.1) describes the API the server serves: the same paths and
/// methods as its routes (`LoginAPI.routes`, which another test checks are all served).
@Suite("The OpenAPI document")
struct OpenAPITests {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("openapi.json")

    static func load() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: document)) as? [String: Any])
    }

    @Test("it is OpenAPI 3.1 and lists exactly the server's paths and methods (HEAD and OPTIONS, which every path answers, aside)")
    func pathsMatchTheRoutes() throws {
        let document = try Self.load()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, operations in
            operations.keys.filter { $0 != "parameters" }.map { "\($0.uppercased()) \(path)" }
        })
        let served = Set(LoginAPI.routes.flatMap { path, methods in
            // `:id` in the router is `{id}` in OpenAPI.
            let openAPIPath = path.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return methods.map { "\($0.rawValue) \(openAPIPath)" }
        })
        #expect(documented == served, "documented only: \(documented.subtracting(served).sorted()); served only: \(served.subtracting(documented).sorted())")
    }

    @Test("every operation has an operationId, a success response, and a bearer requirement exactly where the route needs a session")
    func operationsAreComplete() throws {
        let paths = try #require(try Self.load()["paths"] as? [String: [String: Any]])
        let bearerRoutes: Set<String> = [
            "DELETE /v1/sessions", "PUT /v1/accounts/password", "DELETE /v1/accounts/sessions", "GET /v1/devices",
            "POST /v1/devices", "DELETE /v1/devices/{id}", "POST /v1/devices/attest-challenges",
        ]
        var operationIDs = Set<String>()
        for (path, operations) in paths {
            for (method, value) in operations where method != "parameters" {
                let operation = try #require(value as? [String: Any], "\(method) \(path)")
                let name = "\(method.uppercased()) \(path)"
                let id = try #require(operation["operationId"] as? String, "\(name) has no operationId")
                #expect(operationIDs.insert(id).inserted, "\(id) twice")
                let responses = try #require(operation["responses"] as? [String: Any], "\(name)")
                #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(name) has no success response")
                #expect((operation["security"] != nil) == bearerRoutes.contains(name), "\(name): bearer requirement")
            }
        }
    }
}
