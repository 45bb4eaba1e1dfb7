import Foundation
import Touchstone

/// Where a detector keeps its baselines: one record per app and account, in the detector's
/// own namespace of the device's storage.
struct BaselineStore {
    let namespace: RecordNamespace

    func key(_ account: String, _ authenticator: Authenticator) -> RecordKey {
        RecordKey(namespace, "\(authenticator.appID)/\(account)")
    }

    func save(_ value: Data, account: String, in authenticator: Authenticator) throws {
        try authenticator.device.storage.commit([
            .put(Record(key: key(account, authenticator), value: value,
                        attributes: ["app": authenticator.appID, "account": account])),
        ])
    }

    func load(account: String, in authenticator: Authenticator) throws -> Record? {
        try authenticator.device.storage.read(key(account, authenticator))
    }

    func clear(account: String, in authenticator: Authenticator) throws {
        try authenticator.device.storage.commit([.delete(key(account, authenticator))])
    }

    func accounts(in authenticator: Authenticator) throws -> [String] {
        let prefix = authenticator.appID + "/"
        return try authenticator.device.storage.list(namespace: namespace, prefix: prefix)
            .map { String($0.key.name.dropFirst(prefix.count)) }
    }
}

/// The seed 000/002/004 detector: stores the app's domain state as a baseline and compares
/// the current value, read through a fresh context's can-evaluate as seed 000 does.
///
/// Verdicts: no baseline → `not-enabled`; equal → `unchanged`; different (including nothing
/// enrolled any more) → `changed`; biometry locked out or otherwise unreadable
/// (hardware unavailable, no passcode) → `unknown` (our rule extends seed 000's lockout
/// exception to every state in which the value cannot be read).
public struct DomainStateDetector: ChangeDetector {
    public static let descriptor = PluginDescriptor(
        id: "detector.domain-state", kind: .detector,
        summary: "compares evaluatedPolicyDomainState with a stored baseline (seeds 000, 002, 004)")

    private let baselines = BaselineStore(namespace: .domainStateBaselines)

    public init(options: PluginOptions, environment: PluginEnvironment) {}

    /// The current value, or the error that keeps it from being read.
    private func current(_ authenticator: Authenticator) throws -> Result<Data, AuthenticationError> {
        let context = authenticator.makeContext()
        if let problem = try context.canEvaluate(authenticator.policy(rawValue: 1)) {
            return .failure(problem)
        }
        guard let value = context.evaluatedPolicyDomainState else {
            return .failure(AuthenticationError(.biometryNotEnrolled))
        }
        return .success(value)
    }

    public func saveBaseline(account: String, in authenticator: Authenticator) throws {
        try baselines.save(try current(authenticator).get(), account: account, in: authenticator)
    }

    public func clearBaseline(account: String, in authenticator: Authenticator) throws {
        try baselines.clear(account: account, in: authenticator)
    }

    public func check(account: String, in authenticator: Authenticator) throws -> ChangeVerdict {
        guard let stored = try baselines.load(account: account, in: authenticator) else { return .notEnabled }
        switch try current(authenticator) {
        case let .success(value):
            return value == stored.value ? .unchanged : .changed
        case let .failure(problem):
            return problem.code == .biometryNotEnrolled ? .changed : .unknown
        }
    }

    public func accounts(in authenticator: Authenticator) throws -> [String] {
        try baselines.accounts(in: authenticator)
    }
}

/// The explicit-event detector: the baseline is the device's enrollment-change sequence, so
/// any change since — even one undone later (add a finger, remove it) — reads `changed`.
/// That differs on purpose from the domain-state detector, which only compares results.
public struct EnrollmentEventDetector: ChangeDetector {
    public static let descriptor = PluginDescriptor(
        id: "detector.events", kind: .detector,
        summary: "any enrollment change event since the baseline counts, even one undone later")

    private let baselines = BaselineStore(namespace: .eventBaselines)

    public init(options: PluginOptions, environment: PluginEnvironment) {}

    public func saveBaseline(account: String, in authenticator: Authenticator) throws {
        let sequence = try authenticator.device.enrollmentSequence()
        try baselines.save(Data(String(sequence).utf8), account: account, in: authenticator)
    }

    public func clearBaseline(account: String, in authenticator: Authenticator) throws {
        try baselines.clear(account: account, in: authenticator)
    }

    public func check(account: String, in authenticator: Authenticator) throws -> ChangeVerdict {
        guard let stored = try baselines.load(account: account, in: authenticator) else { return .notEnabled }
        guard let saved = Int(String(decoding: stored.value, as: UTF8.self)) else {
            throw StorageError.corruptRecord(key: stored.key.description, reason: "not a sequence number")
        }
        return try authenticator.device.enrollmentSequence() == saved ? .unchanged : .changed
    }

    public func accounts(in authenticator: Authenticator) throws -> [String] {
        try baselines.accounts(in: authenticator)
    }
}
