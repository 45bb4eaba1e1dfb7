import Crypto
import Foundation

/// The newer `LADomainState` shape: opaque hashes of the biometric and companion state as one
/// app sees them (REFERENCE §7).
public struct DomainState: Sendable, Equatable {
    /// The biometry part.
    public struct Biometry: Sendable, Equatable {
        /// Opaque hash of the enrolled set; nil when nothing is enrolled.
        public var stateHash: Data?
        /// The sensor's biometry type.
        public var biometryType: BiometryType
    }

    /// The companion part.
    public struct Companion: Sendable, Equatable {
        /// Opaque hash of all paired companions; nil when none is paired.
        public var stateHash: Data?
        /// The types of companion paired.
        public var availableCompanionTypes: Set<CompanionType>
        var hashes: [CompanionType: Data]

        /// The hash for one companion type; nil when none of that type is paired.
        public func stateHash(for type: CompanionType) -> Data? {
            hashes[type]
        }
    }

    /// The biometry part.
    public var biometry: Biometry
    /// The companion part.
    public var companion: Companion
    /// A hash over both parts; nil when both are nil.
    public var stateHash: Data?

    /// The state before anything was evaluated: every hash nil.
    public static let empty = DomainState(
        biometry: Biometry(stateHash: nil, biometryType: .none),
        companion: Companion(stateHash: nil, availableCompanionTypes: [], hashes: [:]),
        stateHash: nil)
}

/// How domain-state values are derived: HMAC-SHA256 keyed by the device secret over the app
/// id, the OS epoch and the *set* of enrolled identity generations (the template ids the sensor
/// reports) (sorted, so only the resulting set
/// matters: add a finger and remove it again and the value is back where it was — the old
/// `evaluatedPolicyDomainState`, REFERENCE §7). The iOS 18 `domainState.biometry.stateHash` is
/// history-based instead: `history` (the device's enrollment-change count) is mixed in, so
/// adding a finger and removing it again gives a new value. Different apps get unrelated
/// values; an OS upgrade changes them all.
enum DomainStateDerivation {
    static func biometryHash(key: SymmetricKey, appID: String, osEpoch: Int, identities: [SensorIdentity],
                             history: Int? = nil) -> Data? {
        guard !identities.isEmpty else { return nil }
        var hmac = HMAC<SHA256>(key: key)
        if let history {
            hmac.update(data: Array("biometry-history\u{0}\(appID)\u{0}\(osEpoch)\u{0}\(history)".utf8))
        } else {
            hmac.update(data: Array("biometry\u{0}\(appID)\u{0}\(osEpoch)".utf8))
        }
        let ids = identities.count == 1 ? [identities[0].generation] : identities.map(\.generation).sorted()
        for id in ids {
            hmac.update(data: [0])
            hmac.update(data: Array(id.utf8))
        }
        return Data(hmac.finalize())
    }

    static func companionHash(key: SymmetricKey, appID: String, osEpoch: Int, pairingID: String, type: CompanionType) -> Data {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("companion\u{0}\(appID)\u{0}\(osEpoch)\u{0}\(type.rawValue)\u{0}\(pairingID)".utf8))
        return Data(hmac.finalize())
    }

    static func combined(key: SymmetricKey, parts: [Data?]) -> Data? {
        guard parts.contains(where: { $0 != nil }) else { return nil }
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("combined".utf8))
        for part in parts {
            hmac.update(data: [part == nil ? 0 : 1])
            if let part { hmac.update(data: part) }
        }
        return Data(hmac.finalize())
    }
}

extension Device {
    /// The domain state `appID` would see now; its biometry hash is history-based (REFERENCE
    /// §7) and left out (nil) unless `includeBiometry`.
    func domainState(appID: String, snapshot: Snapshot, includeBiometry: Bool = true) -> DomainState {
        let type = biometryType
        let biometry = DomainState.Biometry(
            stateHash: includeBiometry ? historyHash(appID: appID, snapshot: snapshot) : nil,
            biometryType: type)
        var hashes: [CompanionType: Data] = [:]
        if let companion, companion.isPaired {
            hashes[companion.companionType] = DomainStateDerivation.companionHash(
                key: snapshot.secretKey, appID: appID, osEpoch: snapshot.state.osEpoch,
                pairingID: companion.pairingID, type: companion.companionType)
        }
        let companionHash = hashes.isEmpty ? nil : DomainStateDerivation.combined(
            key: snapshot.secretKey, parts: CompanionType.allCases.map { hashes[$0] })
        let companionPart = DomainState.Companion(
            stateHash: companionHash, availableCompanionTypes: Set(hashes.keys), hashes: hashes)
        // Without a companion the combined hash derives from the state alone: memoized with it.
        let combined: Data?
        if companionHash == nil, let biometryHash = biometry.stateHash {
            if let memo = snapshot.derivedKeys.combinedHashes.withLock({ $0[appID] }) {
                combined = memo
            } else {
                combined = DomainStateDerivation.combined(key: snapshot.secretKey, parts: [biometryHash, nil])
                snapshot.derivedKeys.combinedHashes.withLock { $0[appID] = combined }
            }
        } else {
            combined = DomainStateDerivation.combined(key: snapshot.secretKey, parts: [biometry.stateHash, companionHash])
        }
        return DomainState(biometry: biometry, companion: companionPart, stateHash: combined)
    }

    /// The history-based biometry hash, derived once per device state and app (the enrollment
    /// count and OS epoch are part of the state).
    private func historyHash(appID: String, snapshot: Snapshot) -> Data? {
        if let memo = snapshot.derivedKeys.historyHashes.withLock({ $0[appID] }) { return memo.isEmpty ? nil : memo }
        let hash = DomainStateDerivation.biometryHash(
            key: snapshot.secretKey, appID: appID, osEpoch: snapshot.state.osEpoch,
            identities: snapshot.state.identities, history: snapshot.state.enrollmentSequence)
        snapshot.derivedKeys.historyHashes.withLock { $0[appID] = hash ?? Data() }
        return hash
    }

    /// The `evaluatedPolicyDomainState` value `appID` would capture now (nil when nothing is
    /// enrolled). Derived once per device state and app (``Snapshot/derivedKeys``): every input
    /// — secret, OS epoch, enrolled set — is part of that state.
    func biometryDomainState(appID: String, snapshot: Snapshot) -> Data? {
        if let memo = snapshot.derivedKeys.domainStates.withLock({ $0[appID] }) { return memo.isEmpty ? nil : memo }
        let hash = DomainStateDerivation.biometryHash(
            key: snapshot.secretKey, appID: appID, osEpoch: snapshot.state.osEpoch,
            identities: snapshot.state.identities)
        snapshot.derivedKeys.domainStates.withLock { $0[appID] = hash ?? Data() }
        return hash
    }
}
