import Foundation

/// What the iOS 18 `LAEnvironment` reports for one app, without a prompt: the status query in
/// Apple's own shape (REFERENCE §10).
public struct EnvironmentState: Sendable, Equatable {
    /// The biometry mechanism; nil when the device has no biometric sensor.
    public struct Biometry: Sendable, Equatable {
        /// The sensor's biometry type.
        public var biometryType: BiometryType
        /// Whether an identity is enrolled.
        public var isEnrolled: Bool
        /// Whether biometry is locked out (five consecutive failures).
        public var isLockedOut: Bool
        /// The history-based hash of the enrolled set, as `domainState.biometry.stateHash`
        /// (empty when nothing is enrolled).
        public var stateHash: Data
        /// Whether the built-in sensor is present but cannot be reached (disconnected).
        public var builtInSensorInaccessible: Bool
        /// Whether biometry can be used now (present, permitted, enrolled, not locked out, with
        /// a passcode).
        public var isUsable: Bool
    }

    /// One paired companion.
    public struct Companion: Sendable, Equatable {
        /// Watch or Mac.
        public var type: CompanionType
        /// Its domain-state hash for this app.
        public var stateHash: Data?
        /// Whether it is reachable now.
        public var isUsable: Bool
    }

    /// The biometry mechanism, nil without a sensor.
    public var biometry: Biometry?
    /// Whether the device passcode (the user password) is set.
    public var passcodeIsSet: Bool
    /// The paired companions.
    public var companions: [Companion]

    /// A state; ``unavailable`` when the device cannot be read.
    public init(biometry: Biometry?, passcodeIsSet: Bool, companions: [Companion]) {
        self.biometry = biometry
        self.passcodeIsSet = passcodeIsSet
        self.companions = companions
    }

    /// No mechanism at all (the default device could not be composed).
    public static let unavailable = EnvironmentState(biometry: nil, passcodeIsSet: false, companions: [])
}

extension Device {
    /// The environment state `appID` sees now.
    public func environmentState(appID: String) throws -> EnvironmentState {
        let snapshot = try snapshot()
        let domain = domainState(appID: appID, snapshot: snapshot)
        var biometry: EnvironmentState.Biometry?
        if let sensor {
            let enrolled = !snapshot.state.identities.isEmpty
            let lockedOut = sensor.biometryType.attemptRules.isLockedOut(after: snapshot.counters.consecutiveBiometricFailures)
            let hardware = sensor.hardwareState(for: appID)
            biometry = EnvironmentState.Biometry(
                biometryType: sensor.biometryType, isEnrolled: enrolled, isLockedOut: lockedOut,
                stateHash: domain.biometry.stateHash ?? Data(),
                builtInSensorInaccessible: !sensor.isRemovable && hardware == .disconnected,
                isUsable: biometricProblem(appID: appID, snapshot: snapshot, requiresPasscodeSet: true) == nil)
        }
        var companions: [EnvironmentState.Companion] = []
        if let companion, companion.isPaired {
            companions.append(EnvironmentState.Companion(
                type: companion.companionType, stateHash: domain.companion.stateHash(for: companion.companionType),
                isUsable: companion.isReachable))
        }
        return EnvironmentState(biometry: biometry, passcodeIsSet: passcodeIsSet(snapshot.state), companions: companions)
    }

    /// A stream with one element after every change of the device records made through this
    /// `Device` (enrollment, lockout counters, passcode, lock state), for as long as the caller
    /// iterates. Changes made by other processes on a shared store are not seen.
    public func recordChanges() -> AsyncStream<Void> {
        subscribe(\.changeSubscribers, buffering: .bufferingNewest(1))
    }
}
