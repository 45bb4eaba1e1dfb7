/// An App Attest failure, with `DCError`'s codes (REFERENCE §12).
public struct AppAttestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `DCError.Code`'s cases and raw values.
    public enum Code: Int, Sendable, CaseIterable {
        /// A failure of the device (here: a damaged store).
        case unknownSystemFailure = 0
        /// The device or OS has no App Attest (a fault a test asked for).
        case featureUnsupported = 1
        /// A malformed argument: a key id that is not base64 of 32 bytes.
        case invalidInput = 2
        /// No such key for this app, a key attested already (attestKey), or one not yet
        /// attested (generateAssertion).
        case invalidKey = 3
        /// Apple's attestation server could not be reached; retry `attestKey` later with the same key.
        case serverUnavailable = 4
    }

    /// The code.
    public let code: Code
    /// What happened, in words.
    public let message: String

    /// An error with `code` saying `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code) (\(code.rawValue)): \(message)" }
}
