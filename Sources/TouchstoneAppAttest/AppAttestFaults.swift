/// The App Attest faults a test or a script asks of a device (the REPL's `attest fault`),
/// stored with the device (`appattest/faults`) so that every process using the device sees
/// them. Counts are how many of the next calls fail; each failing call uses one.
public struct AppAttestFaults: Codable, Sendable, Equatable, CustomStringConvertible {
    /// A device or OS without App Attest: `isSupported` is false and every call fails with
    /// `featureUnsupported`, until cleared.
    public var unsupported = false
    /// The next `attestKey` calls fail with `serverUnavailable` (the key stays usable: retry).
    public var serverUnavailable = 0
    /// The next attestations chain to a root no server trusts (a tampered device).
    public var unknownRoot = 0
    /// The next assertions repeat the previous assertion's counter (a cloned key).
    public var repeatedCounter = 0
    /// The next assertions carry a signature over other bytes.
    public var badSignature = 0

    /// The largest count a fault takes.
    public static let maximumCount = 1_000_000

    /// No faults.
    public init() {}

    /// Whether no fault is set.
    public var isEmpty: Bool { self == AppAttestFaults() }

    /// `none`, or the faults set: `unsupported server-unavailable=2 cloned-key=1`.
    public var description: String {
        var parts: [String] = []
        if unsupported { parts.append("unsupported") }
        for (name, count) in [("server-unavailable", serverUnavailable), ("unknown-root", unknownRoot),
                              ("cloned-key", repeatedCounter), ("bad-signature", badSignature)] where count > 0 {
            parts.append("\(name)=\(count)")
        }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }

    /// Refuses counts outside 0...``maximumCount`` (a stored record is checked too).
    func validated() throws(AppAttestError) -> AppAttestFaults {
        for count in [serverUnavailable, unknownRoot, repeatedCounter, badSignature] where !(0 ... Self.maximumCount).contains(count) {
            throw AppAttestError(.unknownSystemFailure, "a fault count of \(count) is outside 0...\(Self.maximumCount)")
        }
        return self
    }
}
