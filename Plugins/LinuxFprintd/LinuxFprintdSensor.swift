import Foundation
import Logging
import Touchstone

/// A real fingerprint reader through fprintd, the Linux fingerprint daemon (issue 11).
///
/// Identities are fprintd's finger names (`right-index-finger`, …). Every operation claims the
/// reader for its own length on its own D-Bus connection and releases it on every path, so the
/// desktop's own login keeps working. Touchstone's rules (3 failures per Touch ID evaluation,
/// lockout after 5, the passcode ladder) apply exactly as for the simulated sensors: fprintd
/// has no lockout of its own.
///
/// Mapping (our rules where Apple has none):
/// - `verify-match` → a match; `verify-no-match` → one failed match (one `VerifyStart` per
///   attempt).
/// - `verify-retry-scan`, `verify-swipe-too-short`, `verify-finger-not-centered`,
///   `verify-remove-and-retry` → not counted, the prompt continues (visible in the trace).
/// - `verify-disconnected`, `verify-unknown-error`, no reader, no daemon → the sensor is gone
///   (`biometryNotAvailable`).
/// - No press within `scan-timeout` → `systemCancel` (fprintd has no timeout of its own).
/// - ``interrupt()`` or a cancelled task → `VerifyStop`, never a failed attempt: `appCancel`
///   after `invalidate`, `userCancel` when nothing in the core asked for it (Ctrl-C in the
///   REPL).
///
/// Domain state: each finger's generation is kept in the device's store (record
/// `sensor/linux.fprintd`) and renewed when the finger is enrolled through Touchstone. A finger
/// added or removed outside Touchstone (`fprintd-enroll`, `fprintd-delete`) changes the enrolled
/// set and is seen the next time the identities are read; the same finger enrolled again
/// outside Touchstone keeps its generation, so it cannot show (fprintd does not say when a
/// print was made).
///
/// Options: `device` (`default` or a D-Bus object path), `user` (whose prints; default the
/// caller), `scan-timeout` (default 30s), `bus` (a D-Bus address; default the system bus, or
/// `DBUS_SYSTEM_BUS_ADDRESS`).
public final class LinuxFprintdSensor: EnrollingSensor, CustomStringConvertible {
    /// The plugin's id `linux.fprintd` and options.
    public static let descriptor = PluginDescriptor(
        id: "linux.fprintd", kind: .sensor,
        summary: "a real fingerprint reader through fprintd (Touch ID rules)",
        options: [
            OptionSpec("device", .string, default: "default", "the reader: default, or fprintd's D-Bus object path"),
            OptionSpec("user", .string, default: "", "whose prints are used (default: the user running Touchstone)"),
            OptionSpec("scan-timeout", .duration, default: "30s", "how long a capture waits for a finger before systemCancel"),
            OptionSpec("bus", .string, default: "", "the D-Bus address of fprintd's bus (default: the system bus)"),
        ])

    /// Touch ID: fingerprint rules.
    public var biometryType: BiometryType { .touchID }
    /// A built-in reader: a vanished reader reports `biometryNotAvailable`.
    public var isRemovable: Bool { false }

    /// The D-Bus client the sensor uses.
    public let client: FprintdClient
    /// How long a capture waits for a finger.
    public let scanTimeout: Duration
    private let generations: FingerGenerations
    private let random: RandomSource
    private let pending = Locked<[ObjectIdentifier: FprintdInterrupt]>([:])
    /// Why fprintd did not answer, when the sensor reports that as an absent reader, and the
    /// fallbacks it takes: the client's logger (the plugin environment's).
    private var logger: Logger { client.logger }

    /// Creates the sensor from its options.
    public init(options: PluginOptions, environment: PluginEnvironment) throws {
        let device = options.string("device").flatMap { $0 == "default" || $0.isEmpty ? nil : $0 }
        let bus = options.string("bus").flatMap { $0.isEmpty ? nil : $0 }
        client = FprintdClient(busAddress: bus, devicePath: device, user: options.string("user") ?? "", logger: environment.logger)
        scanTimeout = options.duration("scan-timeout") ?? .seconds(30)
        generations = FingerGenerations(storage: environment.storage)
        random = environment.random
    }

    /// `present` when fprintd answers with a reader, `absent` otherwise (no daemon, no reader,
    /// no bus).
    public func hardwareState(for appID: String) -> HardwareState {
        do {
            _ = try client.defaultDevice(interrupt: nil)
            return .present
        } catch {
            // Asked before every evaluation: debug, not a warning each time.
            logger.debug("fprintd did not answer; the reader counts as absent", error: error)
            return .absent
        }
    }

    /// The reader's name (fprintd's `name` property).
    public func readerName() throws -> String {
        try client.deviceName(interrupt: nil)
    }

    /// The reader as the REPL's `device` shows it: its name and fprintd object path, or why
    /// fprintd cannot say.
    public var description: String {
        do {
            let path = try client.defaultDevice(interrupt: nil)
            return "\(try client.deviceName(interrupt: nil)) (fprintd \(path))"
        } catch let error as FprintdError {
            return "unavailable: \(error.description)"
        } catch {
            return "unavailable: \(error)"
        }
    }

    /// fprintd's enrolled fingers for the user, each with its generation.
    public func enrolledIdentities() throws -> [SensorIdentity] {
        let fingers = try client.enrolledFingers(interrupt: nil)
        guard !fingers.isEmpty else { return [] }
        let known = try generations.all()
        return fingers.map { SensorIdentity(id: $0, displayName: Self.displayName($0), generation: known[$0] ?? "fprintd") }
    }

    /// One verification on the reader (see the type's mapping).
    public func capture(_ prompt: Prompt) async throws -> CaptureResult {
        let interrupt = FprintdInterrupt()
        let token = ObjectIdentifier(interrupt)
        pending.withLock { $0[token] = interrupt }
        defer { pending.withLock { _ = $0.removeValue(forKey: token) } }
        let client = client
        let timeout = scanTimeout
        let result: FprintdVerifyResult
        do {
            result = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FprintdVerifyResult, any Error>) in
                    let thread = Thread {
                        continuation.resume(with: Result { try client.verify(timeout: timeout, interrupt: interrupt) })
                    }
                    thread.name = "touchstone.fprintd.capture"
                    thread.start()
                }
            } onCancel: {
                interrupt.interrupt()
            }
        } catch is CancellationError where !Task.isCancelled {
            // interrupt(): when the core interrupted the evaluation (invalidate, another
            // evaluation) it reports why once the capture returns; otherwise the person
            // cancelled at the reader (Ctrl-C in the REPL): userCancel.
            return .action(.cancel)
        } catch let error as FprintdError {
            switch error {
            case .busUnavailable, .daemonUnavailable, .noDevice, .permissionDenied, .deviceBusy, .noEnrolledPrints:
                logger.info("fprintd could not scan; the reader counts as absent", error: error)
                return .unavailable(.absent)
            default:
                throw error
            }
        }
        switch result {
        case .match(let finger):
            if let finger { return .matched(finger) }
            // Several fingers enrolled and fprintd only said "any": it does not say which one.
            let first = try enrolledIdentities().first?.id
            return first.map(CaptureResult.matched) ?? .noMatch
        case .noMatch: return .noMatch
        case .retry(let reason): return .retry(reason)
        case .disconnected, .deviceError: return .unavailable(.disconnected)
        case .timedOut: return .action(.systemCancel)
        }
    }

    /// Stops every pending capture or enrollment (`VerifyStop` / `EnrollStop`, then release).
    public func interrupt() {
        for interrupt in pending.withLock({ Array($0.values) }) { interrupt.interrupt() }
    }

    /// Enrolls the finger `id` (`EnrollStart`), reporting each stage; the finger gets a new
    /// generation. Waits up to `scan-timeout` per stage.
    public func enroll(_ id: String, replacing: Bool,
                       progress: @escaping @Sendable (EnrollmentProgress) -> Void) throws -> SensorIdentity {
        let interrupt = FprintdInterrupt()
        let token = ObjectIdentifier(interrupt)
        pending.withLock { $0[token] = interrupt }
        defer { pending.withLock { _ = $0.removeValue(forKey: token) } }
        let stages: Int
        do {
            stages = try client.enrollStages(interrupt: interrupt)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // The number only sizes the wait; fprintd's readers mostly ask for 5. (A bus that
            // is gone fails the enrollment itself, just below.)
            logger.debug("fprintd did not say how many stages an enrollment takes; waiting as for the usual count",
                         error: error, metadata: ["fprintd.stages": "5"])
            stages = 5
        }
        if replacing {
            // fprintd refuses to enroll a finger it already has: the old print goes first.
            try client.deleteFinger(id, interrupt: interrupt)
        }
        let result = try client.enroll(finger: id, timeout: scanTimeout * max(stages, 1), interrupt: interrupt) { event in
            switch event {
            case let .stagePassed(stage, of):
                progress(EnrollmentProgress(result: stage == of ? "enroll-completed" : "enroll-stage-passed", stage: stage, stages: of))
            case let .retry(reason):
                progress(EnrollmentProgress(result: reason))
            }
        }
        switch result {
        case .completed:
            let generation = random.hex(16)
            try generations.set(id, generation)
            return SensorIdentity(id: id, displayName: Self.displayName(id), generation: generation)
        case .failed(let reason):
            throw FprintdError.enrollmentFailed(reason)
        case .timedOut:
            throw FprintdError.timedOut(operation: "enrolling \(id)")
        }
    }

    /// Deletes the finger `id` from the reader.
    public func remove(_ id: String) throws {
        try client.deleteFinger(id, interrupt: nil)
        try generations.set(id, nil)
    }

    /// Deletes every finger of the user from the reader.
    public func removeAll() throws {
        try client.deleteAllFingers(interrupt: nil)
        try generations.clear()
    }

    /// `right-index-finger` → `right index finger`.
    static func displayName(_ finger: String) -> String {
        finger.replacingOccurrences(of: "-", with: " ")
    }
}

/// Each finger's enrollment generation: in the device's store when composed into a device
/// (record `sensor/linux.fprintd`), in memory otherwise.
final class FingerGenerations: Sendable {
    private let storage: (any StorageBackend)?
    private let memory = Locked<[String: String]>([:])
    private let key = RecordKey(.sensor, "linux.fprintd")

    init(storage: (any StorageBackend)?) {
        self.storage = storage
    }

    func all() throws -> [String: String] {
        guard let storage else { return memory.withLock { $0 } }
        return try decode(try storage.read(key))
    }

    func set(_ finger: String, _ generation: String?) throws {
        try modify { $0[finger] = generation }
    }

    func clear() throws {
        try modify { $0.removeAll() }
    }

    private func modify(_ change: @Sendable (inout [String: String]) -> Void) throws {
        guard let storage else { return memory.withLock { change(&$0) } }
        let key = key
        try storage.transaction { transaction in
            var values = try decode(try transaction.read(key))
            change(&values)
            transaction.put(Record(key: key, value: try JSONEncoder().encode(values)))
        }
    }

    private func decode(_ record: Record?) throws -> [String: String] {
        guard let record else { return [:] }
        do {
            return try JSONDecoder().decode([String: String].self, from: record.value)
        } catch {
            throw StorageError.corruptRecord(key: key.description, reason: "\(error)")
        }
    }
}
