import Foundation
import Logging
import Synchronization
import Touchstone

/// fprintd's D-Bus names (LINUX-AUTH.md, checked against the installed introspection).
enum Fprintd {
    static let busName = "net.reactivated.Fprint"
    static let managerPath = "/net/reactivated/Fprint/Manager"
    static let managerInterface = "net.reactivated.Fprint.Manager"
    static let deviceInterface = "net.reactivated.Fprint.Device"
    static let errorPrefix = "net.reactivated.Fprint.Error."
}

/// Why an fprintd operation could not be carried out.
public enum FprintdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libsystemd (`libsystemd.so.0`, for sd-bus) could not be loaded: the loader's reason.
    case libraryUnavailable(reason: String)
    /// No connection to the system bus (no socket, refused).
    case busUnavailable(address: String, reason: String)
    /// The bus answered but nothing owns `net.reactivated.Fprint` (fprintd not installed or
    /// not running, and not activatable).
    case daemonUnavailable(reason: String)
    /// fprintd knows no fingerprint reader (or not the one asked for).
    case noDevice(reason: String)
    /// polkit refused the action (claiming, verifying, enrolling or deleting).
    case permissionDenied(reason: String)
    /// Another client holds the reader.
    case deviceBusy(reason: String)
    /// The user has no enrolled fingerprint on the reader.
    case noEnrolledPrints
    /// fprintd does not know this finger name.
    case invalidFinger(String)
    /// Another fprintd error (`net.reactivated.Fprint.Error.*` or a D-Bus error).
    case daemon(name: String, message: String)
    /// The bus connection failed while talking (a local sd-bus failure).
    case bus(operation: String, reason: String)
    /// An enrollment ended without a print (`enroll-failed`, `enroll-data-full`,
    /// `enroll-duplicate`, ...: fprintd's result).
    case enrollmentFailed(String)
    /// An enrollment did not finish within its time.
    case timedOut(operation: String)

    /// Maps a D-Bus error reply.
    init(busError name: String?, message: String, operation: String) {
        guard let name else {
            self = .bus(operation: operation, reason: message)
            return
        }
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            self = .daemonUnavailable(reason: message)
        case "org.freedesktop.DBus.Error.UnknownObject", Fprintd.errorPrefix + "NoSuchDevice":
            self = .noDevice(reason: message)
        case Fprintd.errorPrefix + "PermissionDenied", "org.freedesktop.DBus.Error.AccessDenied":
            self = .permissionDenied(reason: message)
        case Fprintd.errorPrefix + "AlreadyInUse", Fprintd.errorPrefix + "ClaimDevice":
            self = .deviceBusy(reason: message)
        case Fprintd.errorPrefix + "NoEnrolledPrints":
            self = .noEnrolledPrints
        case Fprintd.errorPrefix + "InvalidFingername":
            self = .invalidFinger(message)
        default:
            self = .daemon(name: name, message: message)
        }
    }

    /// A sentence for the user.
    public var description: String {
        switch self {
        case .libraryUnavailable(let reason):
            "the fprintd sensor needs libsystemd for D-Bus (Debian: apt-get install libsystemd0): \(reason)"
        case .busUnavailable(let address, let reason):
            "cannot reach the system D-Bus at \(address): \(reason)"
        case .daemonUnavailable(let reason):
            "fprintd is not running on the system bus (install fprintd, or start it): \(reason)"
        case .noDevice(let reason):
            "fprintd has no such fingerprint reader: \(reason)"
        case .permissionDenied(let reason):
            "polkit refused the fingerprint operation: \(reason)"
        case .deviceBusy(let reason):
            "the fingerprint reader is in use by another program: \(reason)"
        case .noEnrolledPrints:
            "no fingerprint is enrolled for this user"
        case .invalidFinger(let message):
            "fprintd does not know this finger name: \(message)"
        case .daemon(let name, let message):
            "fprintd failed (\(name)): \(message)"
        case .bus(let operation, let reason):
            "D-Bus \(operation) failed: \(reason)"
        case .enrollmentFailed(let result):
            result == "enroll-duplicate"
                ? "the finger is already enrolled as another finger (enroll-duplicate)"
                : "the enrollment failed (\(result))"
        case .timedOut(let operation):
            "the reader was not touched in time (\(operation))"
        }
    }
}

/// How one verification (one `VerifyStart`) ended.
public enum FprintdVerifyResult: Sendable, Equatable {
    /// `verify-match`. `finger` is the finger fprintd selected (`VerifyFingerSelected`), or
    /// the only enrolled finger; nil when several are enrolled and fprintd only said `any`
    /// (it does not say which one matched).
    case match(finger: String?)
    /// `verify-no-match`: one failed attempt.
    case noMatch
    /// A retry result (`verify-retry-scan`, `verify-swipe-too-short`,
    /// `verify-finger-not-centered`, `verify-remove-and-retry`): the scan was unusable, not a
    /// failed attempt. The verification was stopped; start another to continue.
    case retry(String)
    /// `verify-disconnected`: the reader went away.
    case disconnected
    /// `verify-unknown-error` or a result this client does not know (given).
    case deviceError(String)
    /// Nothing was presented within the timeout (fprintd has none of its own); stopped.
    case timedOut
}

/// One step of an enrollment, as fprintd reported it.
public enum FprintdEnrollEvent: Sendable, Equatable {
    /// `enroll-stage-passed`: stage `stage` (1-based) of `of` (the reader's
    /// `num-enroll-stages`) is done.
    case stagePassed(stage: Int, of: Int)
    /// A retry result (`enroll-retry-scan`, `enroll-swipe-too-short`, ...): that scan did not
    /// count; present the finger again.
    case retry(String)
}

/// How one enrollment ended.
public enum FprintdEnrollResult: Sendable, Equatable {
    /// `enroll-completed`: the finger is enrolled (replacing an earlier print of it).
    case completed
    /// `enroll-failed`, `enroll-data-full`, `enroll-duplicate` (the print is already enrolled
    /// as another finger), `enroll-disconnected`, `enroll-unknown-error` (given).
    case failed(String)
    /// Not finished within the timeout; stopped.
    case timedOut
}

/// A client of fprintd, the system fingerprint daemon, over sd-bus.
///
/// Every operation opens its own connection on a thread of its own (sd-bus connections are
/// not thread-safe), claims the reader only when the operation needs it, and releases it and
/// closes the connection on every path: success, failure, timeout, error and cancellation of
/// the calling task (noticed within ``pollInterval``).
///
/// ```swift
/// let client = FprintdClient()
/// switch try await client.verify(timeout: .seconds(10)) {
/// case .match: print("welcome")
/// default: print("try again")
/// }
/// ```
public struct FprintdClient: Sendable {
    /// The bus to use; nil: the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
    public var busAddress: String?
    /// The reader's object path; nil: fprintd's default device.
    public var devicePath: String?
    /// Whose prints are used; "" (the default): the calling user.
    public var user: String
    /// The longest wait for one method call's reply.
    public var callTimeout: Duration
    /// How often a waiting operation checks for cancellation.
    public var pollInterval: Duration = .milliseconds(20)
    /// Where the client logs a clean-up call that failed (`VerifyStop`, `EnrollStop`,
    /// `Release`: the reader may then stay claimed, and the next operation finds it busy).
    public var logger: Logger

    /// Creates a client; see the properties. `logger` defaults to `Logger.touchstoneSilent`.
    public init(busAddress: String? = nil, devicePath: String? = nil, user: String = "", callTimeout: Duration = .seconds(10),
                logger: Logger = .touchstoneSilent) {
        self.busAddress = busAddress
        self.devicePath = devicePath
        self.user = user
        self.callTimeout = callTimeout
        self.logger = logger
    }

    // MARK: - Queries (no claim)

    /// The object paths of every reader fprintd knows.
    public func devices(interrupt: FprintdInterrupt?) throws -> [String] {
        try perform(interrupt) { bus, _ in
            try bus.call(Fprintd.managerPath, Fprintd.managerInterface, "GetDevices").objectPaths()
        }
    }

    /// The default reader's object path (``FprintdError/noDevice(reason:)`` when none).
    public func defaultDevice(interrupt: FprintdInterrupt?) throws -> String {
        try perform(interrupt) { bus, _ in try resolveDevice(bus) }
    }

    /// The reader's name (fprintd's `name` property).
    public func deviceName(interrupt: FprintdInterrupt?) throws -> String {
        try perform(interrupt) { bus, _ in
            try bus.property(try resolveDevice(bus), Fprintd.deviceInterface, "name").variantString()
        }
    }

    /// The reader's number of enrollment stages (`num-enroll-stages`).
    public func enrollStages(interrupt: FprintdInterrupt?) throws -> Int {
        try perform(interrupt) { bus, _ in
            Int(try bus.property(try resolveDevice(bus), Fprintd.deviceInterface, "num-enroll-stages").variantInt32())
        }
    }

    /// The user's enrolled fingers (fprintd's names, e.g. `right-index-finger`); empty when
    /// none (fprintd's `NoEnrolledPrints`).
    public func enrolledFingers(interrupt: FprintdInterrupt?) throws -> [String] {
        try perform(interrupt) { bus, _ in try listFingers(bus, device: try resolveDevice(bus)) }
    }

    // MARK: - Operations (claimed for their length)

    /// Verifies the presented finger against every enrolled one (`VerifyStart("any")`) and
    /// returns the first result; waits at most `timeout`, then stops. Signals after the stop
    /// are ignored. Throws ``FprintdError/noEnrolledPrints`` when nothing is enrolled and
    /// `CancellationError` once `interrupt` fires (after `VerifyStop`). Blocks the calling thread.
    public func verify(timeout: Duration, interrupt: FprintdInterrupt?) throws -> FprintdVerifyResult {
        try perform(interrupt) { bus, cancel in
            let device = try resolveDevice(bus)
            return try claimed(bus, device: device) {
                let collector = SignalCollector()
                let subscriptions = [
                    try bus.subscribe(path: device, member: "VerifyStatus", collector: collector),
                    try bus.subscribe(path: device, member: "VerifyFingerSelected", collector: collector),
                ]
                defer { withExtendedLifetime((subscriptions, collector)) {} }
                try bus.call(device, Fprintd.deviceInterface, "VerifyStart", ["any"])
                defer { cleanUp(bus, device, "VerifyStop") }
                var selected: String?
                let deadline = ContinuousClock.now + timeout
                while true {
                    try bus.pump(wait: .zero)
                    if let error = collector.readError { throw error }
                    for signal in collector.take() {
                        if signal.member == "VerifyFingerSelected" {
                            selected = signal.result
                            continue
                        }
                        // The first status ends this attempt; later ones (after the stop) are ignored.
                        // VerifyFingerSelected may come after it: wait briefly for it on a match.
                        // It is sometimes missing altogether: then a user with one enrolled
                        // finger matched that one.
                        let grace = ContinuousClock.now + .milliseconds(50)
                        while signal.result == "verify-match", selected == nil || selected == "any", ContinuousClock.now < grace {
                            try bus.pump(wait: .milliseconds(10))
                            for late in collector.take() where late.member == "VerifyFingerSelected" { selected = late.result }
                        }
                        if signal.result == "verify-match", selected == nil || selected == "any",
                           let fingers = try? listFingers(bus, device: device), fingers.count == 1 {
                            selected = fingers[0]
                        }
                        return Self.verifyResult(signal.result, finger: selected)
                    }
                    if cancel.isInterrupted { throw CancellationError() }
                    let remaining = deadline - ContinuousClock.now
                    if remaining <= .zero { return .timedOut }
                    try bus.pump(wait: min(remaining, pollInterval))
                }
            }
        }
    }

    /// Enrolls `finger` (`EnrollStart`), reporting every stage and retry to `onEvent` (called
    /// on the operation's thread); waits at most `timeout`, then stops.
    public func enroll(
        finger: String, timeout: Duration, interrupt: FprintdInterrupt?,
        onEvent: @escaping @Sendable (FprintdEnrollEvent) -> Void = { _ in }
    ) throws -> FprintdEnrollResult {
        try perform(interrupt) { bus, cancel in
            let device = try resolveDevice(bus)
            let stages = Int((try? bus.property(device, Fprintd.deviceInterface, "num-enroll-stages").variantInt32()) ?? 0)
            return try claimed(bus, device: device) {
                let collector = SignalCollector()
                let subscription = try bus.subscribe(path: device, member: "EnrollStatus", collector: collector)
                defer { withExtendedLifetime((subscription, collector)) {} }
                try bus.call(device, Fprintd.deviceInterface, "EnrollStart", [finger])
                defer { cleanUp(bus, device, "EnrollStop") }
                var passed = 0
                let deadline = ContinuousClock.now + timeout
                while true {
                    try bus.pump(wait: .zero)
                    if let error = collector.readError { throw error }
                    for signal in collector.take() {
                        switch signal.result {
                        case "enroll-completed":
                            // The last stage ends with this result instead of a stage-passed.
                            onEvent(.stagePassed(stage: passed + 1, of: max(stages, passed + 1)))
                            return .completed
                        case "enroll-stage-passed":
                            passed += 1
                            onEvent(.stagePassed(stage: passed, of: max(stages, passed)))
                        case "enroll-retry-scan", "enroll-swipe-too-short", "enroll-finger-not-centered", "enroll-remove-and-retry":
                            onEvent(.retry(signal.result))
                        default:
                            if signal.done { return .failed(signal.result) }
                        }
                        if signal.done { return .failed(signal.result) }
                    }
                    if cancel.isInterrupted { throw CancellationError() }
                    let remaining = deadline - ContinuousClock.now
                    if remaining <= .zero { return .timedOut }
                    try bus.pump(wait: min(remaining, pollInterval))
                }
            }
        }
    }

    /// Deletes the user's print of `finger` (`DeleteEnrolledFinger`, claimed).
    public func deleteFinger(_ finger: String, interrupt: FprintdInterrupt?) throws {
        try perform(interrupt) { bus, _ in
            let device = try resolveDevice(bus)
            _ = try claimed(bus, device: device) {
                _ = try bus.call(device, Fprintd.deviceInterface, "DeleteEnrolledFinger", [finger])
            }
        }
    }

    /// Deletes every print of the user (`DeleteEnrolledFingers2`, claimed); nothing enrolled
    /// is not an error.
    public func deleteAllFingers(interrupt: FprintdInterrupt?) throws {
        try perform(interrupt) { bus, _ in
            let device = try resolveDevice(bus)
            try claimed(bus, device: device) {
                do {
                    _ = try bus.call(device, Fprintd.deviceInterface, "DeleteEnrolledFingers2")
                } catch FprintdError.noEnrolledPrints {}
            }
        }
    }

    // MARK: - Plumbing

    static func verifyResult(_ result: String, finger: String?) -> FprintdVerifyResult {
        switch result {
        case "verify-match": .match(finger: finger == "any" ? nil : finger)
        case "verify-no-match": .noMatch
        case "verify-retry-scan", "verify-swipe-too-short", "verify-finger-not-centered", "verify-remove-and-retry":
            .retry(result)
        case "verify-disconnected": .disconnected
        default: .deviceError(result)
        }
    }

    private func resolveDevice(_ bus: BusConnection) throws -> String {
        if let devicePath { return devicePath }
        return try bus.call(Fprintd.managerPath, Fprintd.managerInterface, "GetDefaultDevice").string("o")
    }

    private func listFingers(_ bus: BusConnection, device: String) throws -> [String] {
        do {
            return try bus.call(device, Fprintd.deviceInterface, "ListEnrolledFingers", [user]).strings()
        } catch FprintdError.noEnrolledPrints {
            return []
        }
    }

    /// Runs `body` between `Claim(user)` and `Release()` on `bus`; releases on every path.
    private func claimed<T>(_ bus: BusConnection, device: String, _ body: () throws -> T) throws -> T {
        try bus.call(device, Fprintd.deviceInterface, "Claim", [user])
        defer { cleanUp(bus, device, "Release") }
        return try body()
    }

    /// Calls `method` (a clean-up: `VerifyStop`, `EnrollStop`, `Release`) on the way out of an
    /// operation, whatever ended it; a failure is logged, not thrown over the operation's own
    /// result or error.
    private func cleanUp(_ bus: BusConnection, _ device: String, _ method: String) {
        do {
            _ = try bus.call(device, Fprintd.deviceInterface, method)
        } catch {
            logger.info("an fprintd clean-up call failed; the reader may stay claimed until fprintd frees it",
                        error: error, metadata: ["fprintd.call": .string(method), "fprintd.device": .string(device)])
        }
    }

    /// Runs `body` with a fresh connection on the calling thread (closed when it returns).
    private func perform<T>(_ interrupt: FprintdInterrupt?, _ body: (BusConnection, FprintdInterrupt) throws -> T) throws -> T {
        let interrupt = interrupt ?? FprintdInterrupt()
        if interrupt.isInterrupted { throw CancellationError() }
        let bus = try BusConnection(address: busAddress, callTimeout: callTimeout)
        return try body(bus, interrupt)
    }

    /// Runs the blocking `body` on a thread of its own; cancelling the calling task fires the
    /// interrupt `body` is given.
    private func onThread<T: Sendable>(_ body: @escaping @Sendable (FprintdInterrupt) throws -> T) async throws -> T {
        let interrupt = FprintdInterrupt()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let thread = Thread {
                    continuation.resume(with: Result { try body(interrupt) })
                }
                thread.name = "touchstone.fprintd"
                thread.start()
            }
        } onCancel: {
            interrupt.interrupt()
        }
    }
}

extension FprintdClient {
    // MARK: - The same operations for async callers (each on a thread of its own)

    /// The object paths of every reader fprintd knows.
    public func devices() async throws -> [String] {
        try await onThread { try devices(interrupt: $0) }
    }

    /// The default reader's object path (``FprintdError/noDevice(reason:)`` when none).
    public func defaultDevice() async throws -> String {
        try await onThread { try defaultDevice(interrupt: $0) }
    }

    /// The reader's name (fprintd's `name` property).
    public func deviceName() async throws -> String {
        try await onThread { try deviceName(interrupt: $0) }
    }

    /// The reader's number of enrollment stages (`num-enroll-stages`).
    public func enrollStages() async throws -> Int {
        try await onThread { try enrollStages(interrupt: $0) }
    }

    /// The user's enrolled fingers; empty when none.
    public func enrolledFingers() async throws -> [String] {
        try await onThread { try enrolledFingers(interrupt: $0) }
    }

    /// ``verify(timeout:interrupt:)``; cancelling the task stops it (`CancellationError`).
    public func verify(timeout: Duration) async throws -> FprintdVerifyResult {
        try await onThread { try verify(timeout: timeout, interrupt: $0) }
    }

    /// ``enroll(finger:timeout:interrupt:onEvent:)``; cancelling the task stops it.
    public func enroll(
        finger: String, timeout: Duration, onEvent: @escaping @Sendable (FprintdEnrollEvent) -> Void = { _ in }
    ) async throws -> FprintdEnrollResult {
        try await onThread { try enroll(finger: finger, timeout: timeout, interrupt: $0, onEvent: onEvent) }
    }

    /// Deletes the user's print of `finger`.
    public func deleteFinger(_ finger: String) async throws {
        try await onThread { try deleteFinger(finger, interrupt: $0) }
    }

    /// Deletes every print of the user.
    public func deleteAllFingers() async throws {
        try await onThread { try deleteAllFingers(interrupt: $0) }
    }
}

/// Interrupts a blocking fprintd operation from another thread: the operation notices within
/// ``FprintdClient/pollInterval``, stops (`VerifyStop` / `EnrollStop`), releases the reader and
/// throws `CancellationError`. One per operation.
public final class FprintdInterrupt: Sendable {
    private let value = Atomic<Bool>(false)

    /// Creates an interrupt that has not fired.
    public init() {}

    /// Whether ``interrupt()`` was called.
    public var isInterrupted: Bool { value.load(ordering: .acquiring) }

    /// Asks the operation to stop.
    public func interrupt() { value.store(true, ordering: .releasing) }
}
