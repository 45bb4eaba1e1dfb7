#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone

extension LAEnvironment {
    /// Gets told when an ``LAEnvironment``'s state changes (iOS 18). Apple's protocol is an
    /// Objective-C one with an optional method; here the method has an empty default, so a class
    /// implements only what it needs:
    ///
    /// ```swift
    /// final class BiometrySettings: NSObject, LAEnvironment.Observer {
    ///     func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironment.State) {
    ///         if environment.state.biometry?.isEnrolled != oldState.biometry?.isEnrolled { reload() }
    ///     }
    ///     func reload() { /* show the new state */ }
    /// }
    /// let settings = BiometrySettings()
    /// LAEnvironment.currentUser.addObserver(settings)
    /// ```
    public protocol Observer: AnyObject {
        /// The environment's state changed; `oldState` is the state before, `environment.state` now.
        func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironment.State)
    }
}

extension LAEnvironment.Observer {
    /// Does nothing (Apple's method is optional).
    public func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironment.State) {}
}

/// The Objective-C names of ``LAEnvironment``'s nested types. iOS Swift code spells them
/// `LAEnvironment.Observer`, `LAEnvironment.State` and so on; these exist for code written
/// against the Objective-C names.
public typealias LAEnvironmentObserver = LAEnvironment.Observer
/// The Objective-C name of ``LAEnvironment/State``.
public typealias LAEnvironmentState = LAEnvironment.State
/// The Objective-C name of ``LAEnvironment/Mechanism``.
public typealias LAEnvironmentMechanism = LAEnvironment.Mechanism
/// The Objective-C name of ``LAEnvironment/MechanismBiometry``.
public typealias LAEnvironmentMechanismBiometry = LAEnvironment.MechanismBiometry
/// The Objective-C name of ``LAEnvironment/MechanismUserPassword``.
public typealias LAEnvironmentMechanismUserPassword = LAEnvironment.MechanismUserPassword
/// The Objective-C name of ``LAEnvironment/MechanismCompanion``.
public typealias LAEnvironmentMechanismCompanion = LAEnvironment.MechanismCompanion

/// The authentication environment of the current user (iOS 18): which mechanisms exist and
/// whether they can be used — biometry, the device passcode ("user password"), companions —
/// read without a prompt, with observers told about enrollment, lockout and passcode changes.
///
/// ```swift
/// let biometry = LAEnvironment.currentUser.state.biometry
/// if biometry?.isLockedOut == true { showPasscodeHint() }
/// ```
///
/// `currentUser` is the environment of the process-wide default device
/// (``LocalAuthenticationSystem``); ``init(authenticator:)`` (Touchstone only) gives another
/// device's. Observers are held weakly and called on a background task after a change made
/// through this process's device (changes by other processes sharing a store are not seen).
public final class LAEnvironment: NSObject, @unchecked Sendable {
    // @unchecked: the authenticator is Sendable and every mutable field is behind a `Locked`.

    private let authenticator: Authenticator?

    private struct Watch: @unchecked Sendable {
        // @unchecked: observers are only called, never mutated, from the watching task.
        struct Box {
            weak var observer: (any Observer)?
        }
        var observers: [Box] = []
        var task: Task<Void, Never>?
        var last: EnvironmentState?
    }

    private let watch = Locked(Watch())

    private static let environments = Locked(LocalAuthenticationSystem.DeviceTable<LAEnvironment>())

    /// The environment of the default device (the same object every time for one device, so
    /// `addObserver` and `removeObserver` meet).
    public static var currentUser: LAEnvironment {
        guard let authenticator = try? LocalAuthenticationSystem.authenticator else { return LAEnvironment(nil) }
        return environments.withLock { table in
            if let existing = table.value(for: authenticator.device) { return existing }
            let environment = LAEnvironment(authenticator)
            table.update(authenticator.device, default: environment) { _ in }
            return environment
        }
    }

    /// The environment of `authenticator`'s device and app (Touchstone only).
    public convenience init(authenticator: Authenticator) {
        self.init(authenticator)
    }

    private init(_ authenticator: Authenticator?) {
        self.authenticator = authenticator
        super.init()
    }

    deinit {
        watch.withLock { $0.task?.cancel() }
    }

    /// The state now.
    public var state: State {
        State(currentState())
    }

    private func currentState() -> EnvironmentState {
        guard let authenticator,
              let state = try? authenticator.device.environmentState(appID: authenticator.appID) else {
            return .unavailable
        }
        return state
    }

    /// Starts telling `observer` about state changes (held weakly; adding it twice is harmless).
    public func addObserver(_ observer: any Observer) {
        // Subscribe before reading the state, so no change falls between the two.
        let changes = authenticator?.device.recordChanges()
        let initial = currentState()
        watch.withLock { watch in
            watch.observers.removeAll { $0.observer == nil || $0.observer === observer }
            watch.observers.append(Watch.Box(observer: observer))
            if watch.task == nil, let changes {
                watch.last = initial
                watch.task = Task.detached { [weak self] in
                    for await _ in changes {
                        guard let self else { return }
                        self.deliverIfChanged()
                    }
                }
            }
        }
    }

    /// Stops telling `observer`.
    public func removeObserver(_ observer: any Observer) {
        watch.withLock { watch in
            watch.observers.removeAll { $0.observer == nil || $0.observer === observer }
            if watch.observers.isEmpty {
                watch.task?.cancel()
                watch.task = nil
            }
        }
    }

    private func deliverIfChanged() {
        let now = currentState()
        let (old, observers) = watch.withLock { watch -> (EnvironmentState?, Watch) in
            let old = watch.last
            watch.last = now
            return (old, watch)
        }
        guard let old, old != now else { return }
        let oldState = State(old)
        for box in observers.observers {
            box.observer?.environment(self, stateDidChangeFromOldState: oldState)
        }
    }
}

extension LAEnvironment {
    /// A snapshot of an ``LAEnvironment``'s mechanisms.
    public final class State: NSObject, NSCopying, @unchecked Sendable {
        // @unchecked: immutable after init.

        /// Biometry; nil when the device has no biometric sensor.
        public let biometry: MechanismBiometry?
        /// The device passcode.
        public let userPassword: MechanismUserPassword?
        /// The paired companions (watch, Mac).
        public let companions: [MechanismCompanion]

        /// Every mechanism: biometry, the user password, then the companions.
        public var allMechanisms: [Mechanism] {
            [biometry as Mechanism?, userPassword].compactMap { $0 } + companions
        }

        init(_ state: EnvironmentState) {
            biometry = state.biometry.map(MechanismBiometry.init)
            userPassword = MechanismUserPassword(isSet: state.passcodeIsSet)
            companions = state.companions.map(MechanismCompanion.init)
            super.init()
        }

        /// The state is immutable: a copy is the same object.
        public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// One authentication mechanism of an ``LAEnvironment/State``.
public class Mechanism: NSObject, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// Whether the mechanism can be used for authentication now.
    public let isUsable: Bool
    /// Its user-facing name ("Touch ID", "Face ID", "Optic ID", "Passcode", "Apple Watch", "Mac").
    public let localizedName: String
    /// The SF Symbol name of its icon ("touchid", "faceid", "opticid", "lock", "applewatch", "macbook").
    public let iconSystemName: String

    init(isUsable: Bool, localizedName: String, iconSystemName: String) {
        self.isUsable = isUsable
        self.localizedName = localizedName
        self.iconSystemName = iconSystemName
        super.init()
    }
}

/// Biometry in an ``LAEnvironment/State``.
public final class MechanismBiometry: Mechanism, @unchecked Sendable {
    /// The sensor's type.
    public let biometryType: LABiometryType
    /// Whether an identity is enrolled.
    public let isEnrolled: Bool
    /// Whether biometry is locked out.
    public let isLockedOut: Bool
    /// The history-based hash of the enrolled set (as `LADomainStateBiometry.stateHash`; empty
    /// when nothing is enrolled).
    public let stateHash: Data
    /// Whether the built-in sensor cannot be reached.
    public let builtInSensorInaccessible: Bool

    init(_ biometry: EnvironmentState.Biometry) {
        biometryType = LABiometryType(rawValue: biometry.biometryType.rawValue) ?? .none
        isEnrolled = biometry.isEnrolled
        isLockedOut = biometry.isLockedOut
        stateHash = biometry.stateHash
        builtInSensorInaccessible = biometry.builtInSensorInaccessible
        let (name, icon) = switch biometryType {
        case .touchID: ("Touch ID", "touchid")
        case .faceID: ("Face ID", "faceid")
        case .opticID: ("Optic ID", "opticid")
        case .none: ("Biometry", "lock")
        }
        super.init(isUsable: biometry.isUsable, localizedName: name, iconSystemName: icon)
    }
}

/// The device passcode in an ``LAEnvironment/State``.
public final class MechanismUserPassword: Mechanism, @unchecked Sendable {
    /// Whether a passcode is set.
    public let isSet: Bool

    init(isSet: Bool) {
        self.isSet = isSet
        super.init(isUsable: isSet, localizedName: "Passcode", iconSystemName: "lock")
    }
}

/// A paired companion in an ``LAEnvironment/State``.
public final class MechanismCompanion: Mechanism, @unchecked Sendable {
    /// Watch or Mac.
    public let type: LACompanionType
    /// Its domain-state hash for this app.
    public let stateHash: Data?

    init(_ companion: EnvironmentState.Companion) {
        type = LACompanionType(companion.type)
        stateHash = companion.stateHash
        let (name, icon) = type == .watch ? ("Apple Watch", "applewatch") : ("Mac", "macbook")
        super.init(isUsable: companion.isUsable, localizedName: name, iconSystemName: icon)
    }
}
}
#endif
