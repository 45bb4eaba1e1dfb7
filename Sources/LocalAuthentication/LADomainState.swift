#if !canImport(Darwin)
import Foundation
import Touchstone

/// The kinds of companion device (watch, Mac, Vision Pro) a domain state can report.
///
/// Raw values are Apple's (`kLACompanionTypeWatch` = 1, `kLACompanionTypeMac` = 2,
/// `kLACompanionTypeVision` = 4).
public enum LACompanionType: Int, Sendable, Hashable, CaseIterable {
    /// A paired Apple Watch-like device.
    case watch = 1
    /// A paired Mac-like computer.
    case mac = 2
    /// A paired Vision Pro (iOS 26). Touchstone simulates no such companion: never in
    /// `availableCompanionTypes`, and `stateHash(for: .vision)` is nil.
    case vision = 4

    init(_ type: CompanionType) {
        switch type {
        case .watch: self = .watch
        case .mac: self = .mac
        }
    }

    /// The engine's companion type; nil for `.vision`, which cannot be paired here.
    var engineType: CompanionType? {
        switch self {
        case .watch: .watch
        case .mac: .mac
        case .vision: nil
        }
    }
}

/// The newer domain-state API (`LAContext.domainState`): opaque hashes of the biometric and
/// companion state as this app sees them (REFERENCE §7). Captured by `canEvaluatePolicy(_:error:)`
/// and by evaluations; every hash is nil before the first.
///
/// ```swift
/// let context = LAContext()
/// _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
/// if context.domainState.biometry.stateHash != savedHash { /* enrolled set changed */ }
/// ```
public final class LADomainState: NSObject, Sendable {
    /// The biometry part.
    public let biometry: LADomainStateBiometry
    /// The companion part.
    public let companion: LADomainStateCompanion
    /// A hash over both parts; nil when both are nil.
    public let stateHash: Data?

    init(_ state: DomainState) {
        biometry = LADomainStateBiometry(state.biometry)
        companion = LADomainStateCompanion(state.companion)
        stateHash = state.stateHash
    }
}

/// The biometry part of an ``LADomainState``.
public final class LADomainStateBiometry: NSObject, Sendable {
    /// The device's biometry type.
    public let biometryType: LABiometryType
    /// Opaque hash of the enrolled set as this app sees it; nil when nothing is enrolled.
    public let stateHash: Data?

    init(_ biometry: DomainState.Biometry) {
        biometryType = LABiometryType(rawValue: biometry.biometryType.rawValue) ?? .none
        stateHash = biometry.stateHash
    }
}

/// The companion part of an ``LADomainState``.
public final class LADomainStateCompanion: NSObject, Sendable {
    /// The types of companion paired with the device.
    public let availableCompanionTypes: Set<LACompanionType>
    /// Opaque hash over all paired companions; nil when none is paired.
    public let stateHash: Data?
    private let hashes: [LACompanionType: Data]

    init(_ companion: DomainState.Companion) {
        availableCompanionTypes = Set(companion.availableCompanionTypes.map(LACompanionType.init))
        stateHash = companion.stateHash
        var hashes: [LACompanionType: Data] = [:]
        for type in LACompanionType.allCases {
            if let engineType = type.engineType, let hash = companion.stateHash(for: engineType) { hashes[type] = hash }
        }
        self.hashes = hashes
    }

    /// The hash for one companion type; nil when none of that type is paired.
    public func stateHash(for companionType: LACompanionType) -> Data? {
        hashes[companionType]
    }
}
#endif
