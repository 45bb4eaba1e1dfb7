import Foundation

/// IP address ranges in CIDR notation (`10.0.0.0/8`, `192.168.1.7`, `fd00::/8`, `::1`): the
/// proxies the server believes (``TrustedProxies``) and the clients that may read `/metrics`.
public struct AddressRanges: Sendable, Equatable {
    /// One address range.
    struct Range: Sendable, Equatable {
        let network: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var bits = prefix
            for (have, want) in zip(address, network) {
                guard bits > 0 else { return true }
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                guard have & mask == want & mask else { return false }
                bits -= 8
            }
            return true
        }
    }

    /// Why a range was refused.
    public struct ParseError: Error, CustomStringConvertible {
        /// What was wrong, for the user.
        public var description: String
    }

    let ranges: [Range]

    /// The loopback addresses: `127.0.0.0/8` and `::1`.
    public static let loopback = AddressRanges(ranges: [Range(network: [127, 0, 0, 0], prefix: 8),
                                                        Range(network: Array(repeating: 0, count: 15) + [1], prefix: 128)])

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses ranges such as `10.0.0.0/8`, `192.168.1.7` (one address), `fd00::/8`.
    public init(parsing texts: [String]) throws {
        ranges = try texts.map { text in
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let address = Self.bytes(of: parts[0]) else {
                throw ParseError(description: "'\(text)' is not an IP address or range (such as 10.0.0.0/8 or fd00::/8)")
            }
            let width = address.count * 8
            guard parts.count == 1 || (Int(parts[1]).map { (0...width).contains($0) } ?? false) else {
                throw ParseError(description: "'\(text)': the prefix length must be a number from 0 to \(width)")
            }
            return Range(network: address, prefix: parts.count == 1 ? width : Int(parts[1]) ?? width)
        }
    }

    /// Whether there are no ranges.
    var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (text) lies in one of the ranges. An IPv4-mapped IPv6 address
    /// (`::ffff:127.0.0.1`) is its IPv4 address.
    func contains(_ address: String) -> Bool {
        Self.bytes(of: address).map(contains(bytes:)) ?? false
    }

    /// Whether the address of these bytes lies in one of the ranges.
    func contains(bytes: [UInt8]) -> Bool {
        let mapped = bytes.count == 16 && bytes.prefix(12).elementsEqual(Array(repeating: 0, count: 10) + [0xFF, 0xFF])
        let address = mapped ? Array(bytes.suffix(4)) : bytes
        return ranges.contains { $0.contains(address) }
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text (an IPv6 one may be in brackets).
    static func bytes(of text: String) -> [UInt8]? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// An address's usual text form.
    static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "unknown" }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}
