import Foundation
import Hummingbird
@testable import LoginServer
import Testing

/// Request bodies are JSON exactly as RFC 8259 writes it, with distinct member names.
@Suite("Strict JSON bodies (RFC 8259, distinct member names)")
struct StrictJSONTests {
    func refusal(_ text: String) -> String? {
        do {
            try StrictJSON.check(Data(text.utf8))
            return nil
        } catch {
            return error.description
        }
    }

    @Test("what JSON writers produce is accepted")
    func acceptsJSON() throws {
        let texts = [
            #"{"username":"ada","password":"correct horse battery"}"#,
            " { \"a\" : [ 1 , -0 , 0.5 , -12.5e+3 , 1E-2 , true , false , null , { } , [ ] ] } \n",
            #"{"name":"\u00e9\ud83d\ude00 \"quoted\" \\ \/ \b\f\n\r\t","nested":{"x":{"y":[[[]]]}}}"#,
            #""just a string""#, "42", "null",
        ]
        for text in texts { #expect(refusal(text) == nil, "\(text)") }
        let written = try JSONSerialization.data(withJSONObject: ["a": [1, 2.5, "x\u{1}y"], "b": ["c": NSNull()]])
        try StrictJSON.check(written)
    }

    @Test("what Foundation's decoder forgives is refused, saying what and where")
    func refusesLenientForms() {
        let cases: [(String, String)] = [
            (#"{"a":1,}"#, "trailing comma"),
            (#"{"a":[1,2,]}"#, "trailing comma"),
            (#"{"a":01}"#, "leading zero"),
            ("{\"a\":\"tab\there\"}", "control character"),
            ("{\"a\":\"line\nbreak\"}", "control character"),
            (#"{"a":"\q"}"#, "unknown escape '\\q'"),
            (#"{"a":"\x41"}"#, "unknown escape '\\x'"),
            (#"{"a":"\u12"}"#, "four hex digits"),
            (#"{"a":"\ud83d"}"#, "without its low half"),
            (#"{"a":"\ude00"}"#, "without its high half"),
            (#"{"a":1}{"#, "content after"),
            (#"{"a" 1}"#, "':' expected"),
            (#"{a:1}"#, "member name expected"),
            (#"[1 2]"#, "',' or ']'"),
            (#"{"a":tru}"#, "value expected"),
            (#"{"a":1."#, "digit expected after '.'"),
            (#"{"a":1e}"#, "exponent"),
            (#"{"a":-}"#, "digit expected"),
            (#"{"a":"open"#, "closing quote"),
            ("", "body ended"),
            (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), "nesting deeper than 32"),
        ]
        for (text, expected) in cases {
            let problem = refusal(text)
            #expect(problem?.contains(expected) == true, "\(text): \(problem ?? "accepted")")
            #expect(problem?.contains("at byte") == true)
        }
        #expect(throws: StrictJSON.Problem(description: "bytes that are not UTF-8")) {
            try StrictJSON.check(Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]))
        }
    }

    @Test("a number past a double's range is refused (Foundation's reader refuses it too); a small or long one is not")
    func numbersBeyondADoubleAreRefused() {
        for text in [#"{"n":1e400}"#, #"{"n":-2.5e753}"#, #"{"n":[1,1E+999]}"#] {
            #expect(refusal(text)?.contains("outside the range of a double") == true, "\(text)")
        }
        for text in [#"{"n":1e308}"#, #"{"n":-2.5e3}"#, #"{"n":1e-400}"#, #"{"n":123456789012345678901234567890}"#] {
            #expect(refusal(text) == nil, "\(text): \(refusal(text) ?? "")")
        }
    }

    @Test("a member name given twice is refused, also when one is spelt with escapes")
    func refusesDuplicateNames() {
        #expect(refusal(#"{"username":"A","username":"B","password":"p"}"#)?.contains(#""username" given twice"#) == true)
        #expect(refusal(#"{"a":1,"\u0061":2}"#)?.contains(#""a" given twice"#) == true)
        #expect(refusal(#"{"outer":{"x":1,"x":2}}"#)?.contains("given twice") == true)
        // Names Swift's decoder would read as one (canonically equivalent) never both pass: the
        // one not in NFC is refused.
        #expect(refusal("{\"é\":1,\"e\\u0301\":2}")?.contains("not in Unicode NFC") == true)
        // A lone name in another normalization form: Swift's decoder reads KELVIN SIGN as
        // "K" (so "public\u212Aey" as publicKey); a code-point parser does not.
        #expect(refusal(#"{"public\u212Aey":"x"}"#)?.contains("not in Unicode NFC") == true)
        #expect(refusal("{\"e\u{301}\":1}")?.contains("not in Unicode NFC") == true)
        #expect(refusal(#"{"é":1}"#) == nil)
        // The same name in two different objects is fine.
        #expect(refusal(#"{"a":{"x":1},"b":{"x":2},"x":3}"#) == nil)
    }

    @Test("everything the strict check accepts, JSONSerialization reads too (2,000 mutated bodies)")
    func neverLooserThanFoundation() {
        var random = SystemRandomNumberGenerator()
        let base = Array(#"{"username":"ada","password":"correct horse","n":[1,-2.5e3,true,null],"o":{"k":"\u00e9"}}"#.utf8)
        let alphabet = Array(#"{}[]":,.-+eE0123456789\"tfnu ab"#.utf8) + [0x09, 0x0A]
        var accepted = 0
        for _ in 0..<2_000 {
            var bytes = base
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random) ?? 0x20
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random) ?? 0x20, at: index)
                }
            }
            let data = Data(bytes)
            guard (try? StrictJSON.check(data)) != nil else { continue }
            accepted += 1
            #expect((try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil,
                    "accepted but Foundation refuses: \(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 0)
    }

    @Test("the API answers a lenient or ambiguous body with 400 malformed_request", arguments: Backend.available)
    func apiRefusesAmbiguousBodies(_ backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let twice = try await client.send(.post, "/v1/accounts",
                                              raw: #"{"username":"ada","username":"eve","password":"correct horse battery"}"#)
            #expect(twice.status == .badRequest && twice.errorCode == "malformed_request")
            #expect(twice.string("message")?.contains("given twice") == true)
            let trailing = try await client.send(.post, "/v1/accounts", raw: #"{"username":"ada","password":"correct horse battery",}"#)
            #expect(trailing.status == .badRequest && trailing.errorCode == "malformed_request")
            // Neither created anything: the plain body still can.
            let plain = try await client.send(.post, "/v1/accounts", raw: #"{"username":"ada","password":"correct horse battery"}"#)
            #expect(plain.status == .created)
        }
    }
}
