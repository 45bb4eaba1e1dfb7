import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// Reading request bodies strictly, and writing JSON responses.
extension LoginAPI {
    // MARK: Bodies

    /// The bytes of `text` when it is canonical standard base64 (the padding the length needs,
    /// zero unused bits): one value has one spelling, so a token is not accepted in several.
    static func canonicalBase64(_ text: String) -> Data? {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
        return data
    }

    /// Whether the JSON text holds a string with U+0000, written `\u0000` (a raw NUL byte is
    /// not valid JSON and fails decoding). No field accepts it: SQLite would cut a bound string
    /// at it and PostgreSQL refuses it, so it is a 400 before any field is read.
    static func containsEscapedNUL(_ bytes: Data) -> Bool {
        let zero = UInt8(ascii: "0")
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            let next = bytes.index(after: index)
            if next < bytes.endIndex, bytes[next] == UInt8(ascii: "u"), bytes.distance(from: next, to: bytes.endIndex) > 4,
               bytes[(next + 1)...(next + 4)].allSatisfy({ $0 == zero }) {
                return true
            }
            index += 2  // the escaped character is never the start of another escape
        }
        return false
    }

    /// Reads at most ``LoginServerConfiguration/maxBodySize`` bytes (413 past that) and decodes
    /// them; malformed JSON and wrong types are 400.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        // A body declared larger than the limit is refused before any of it is read (a client
        // sending `Expect: 100-continue` learns it without sending the body).
        // (A length too large for an Int is over the limit too.)
        if let declared = request.headers[.contentLength].map({ Int($0) ?? .max }), declared > configuration.maxBodySize {
            throw APIError(.contentTooLarge, "body_too_large", "The request body is larger than 64 KiB.")
        }
        let buffer = try await request.body.collect(upTo: configuration.maxBodySize)
        let data = Data(buffer: buffer)
        // A zero byte is never in UTF-8 JSON, and always in UTF-16 or UTF-32 JSON (which
        // JSONDecoder would convert, hiding an escaped NUL from the scan below): bodies are
        // UTF-8 (RFC 8259 §8.1).
        if data.contains(0) {
            throw APIError.badRequest("malformed_request", "The body must be JSON in UTF-8.")
        }
        if Self.containsEscapedNUL(data) {
            throw APIError.badRequest("malformed_request", "A string in the body holds U+0000 (NUL), which no field accepts.")
        }
        do {
            try StrictJSON.check(data)
        } catch {
            throw APIError.badRequest("malformed_request", "The body is not valid JSON (RFC 8259): \(error).")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest("malformed_request", Self.describe(error))
        } catch {
            throw APIError.badRequest("malformed_request", "The body is not valid JSON.")
        }
    }

    /// A client-facing description of a decoding error that never quotes the body.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "the body" : "'\(keys)'"
        }
        switch error {
        case .keyNotFound(let key, _): return "The field '\(key.stringValue)' is missing."
        case .typeMismatch(_, let context): return "Wrong type for \(path(context))."
        case .valueNotFound(_, let context): return "A value is missing for \(path(context))."
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "The body is not valid JSON." : "Invalid value for \(path(context))."
        @unknown default: return "The body is not valid JSON."
        }
    }
}

/// A JSON response.
func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(value)
    return Response(
        status: status,
        headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: data))
    )
}
