/// The rule that decided a step of an evaluation. Each names one line of REFERENCE.md, so a
/// trace says not only what happened but why.
public enum Rule: String, Sendable, CaseIterable, CustomStringConvertible {
    case precedence = "precedence"
    case deviceDisabled = "passcode.disabled-fails-at-once"
    case reuseWindow = "reuse.window"
    /// An `LAContext` that succeeded proves it again without asking (Apple's sample code).
    case contextKeepsItsAuthentication = "context.keeps-its-authentication"
    case interactionNotAllowed = "context.interaction-not-allowed"
    case fallbackAfterFirstFailure = "biometry.fallback-after-first-failure"
    case faceIDFallbackAfterSecondFailure = "faceid.fallback-after-second-failure"
    case matchResetsFailures = "biometry.match-resets-failures"
    case touchIDThreeFailuresEnd = "touchid.three-failures-end-evaluation"
    case faceIDTwoFailuresStopScanning = "faceid.two-failures-stop-scanning"
    case fiveFailuresLockOut = "biometry.five-consecutive-failures-lock-out"
    case fallbackEndsWithUserFallback = "biometrics.fallback-ends-with-userFallback"
    case fallbackOpensPasscode = "owner.fallback-opens-passcode"
    case passcodeAfterBiometricLimit = "owner.passcode-after-biometric-limit"
    case passcodeWhenBiometryUnusable = "owner.passcode-when-biometry-unusable"
    case passcodeCorrectClearsCounts = "passcode.correct-clears-counts-and-lockout"
    case passcodeDelayLadder = "passcode.delay-ladder"
    case passcodeRepeatNotCounted = "passcode.repeat-not-counted"
    case passcodeRefusedDuringDelay = "passcode.refused-during-delay"
    case passcodeTenthFailureDisables = "passcode.tenth-failure-disables"
    case userCancel = "user.cancel"
    case systemCancel = "system.cancel"
    case secondEvaluationCancelsFirst = "device.second-evaluation-cancels-first"
    case invalidateCancels = "context.invalidate-app-cancel"
    case companionApproval = "companion.approval"
    case unavailableOnLinux = "policy.unavailable-on-linux"
    case retryNotCounted = "biometry.retry-not-counted"
    case sensorLostDuringCapture = "biometry.sensor-lost-during-capture"

    /// One sentence stating the rule.
    public var summary: String {
        switch self {
        case .precedence: "invalidContext, then hardware, passcode, enrollment, lockout decide first (REFERENCE §3)"
        case .deviceDisabled: "a disabled device fails every evaluation at once with authenticationFailed"
        case .reuseWindow: "within the reuse duration after a biometric device unlock no new scan is needed"
        case .contextKeepsItsAuthentication: "an LAContext that succeeded satisfies what it proved again without asking (Apple's sample makes a fresh context for each login for that reason)"
        case .interactionNotAllowed: "with interactionNotAllowed an evaluation that needs the user fails with notInteractive"
        case .fallbackAfterFirstFailure: "the fallback button appears after the first failed match unless its title is empty"
        case .faceIDFallbackAfterSecondFailure: "Face ID / Optic ID: no fallback button after the first failure (Cancel and Try Again); it appears after the second"
        case .matchResetsFailures: "a successful match resets the consecutive-failure count"
        case .touchIDThreeFailuresEnd: "Touch ID: 3 failed matches end a biometrics-only evaluation with authenticationFailed"
        case .faceIDTwoFailuresStopScanning: "Face ID: after 2 failures scanning stops; only Cancel and fallback remain"
        case .fiveFailuresLockOut: "5 consecutive failed matches, device-wide, lock biometry out"
        case .fallbackEndsWithUserFallback: "biometrics-only: the fallback button ends the evaluation with userFallback"
        case .fallbackOpensPasscode: "device-owner: the fallback button opens the passcode prompt"
        case .passcodeAfterBiometricLimit: "device-owner: the biometric attempt limit or lockout switches to the passcode"
        case .passcodeWhenBiometryUnusable: "device-owner: passcode alone when biometry is missing, not enrolled or locked out"
        case .passcodeCorrectClearsCounts: "a correct passcode resets the passcode count and clears the biometric lockout"
        case .passcodeDelayLadder: "wrong passcodes 1-4: no delay; 5th 1m; 6th 5m; 7th-8th 15m; 9th 1h"
        case .passcodeRepeatNotCounted: "the same wrong passcode twice in a row counts once"
        case .passcodeRefusedDuringDelay: "while a delay runs an entry is refused without counting"
        case .passcodeTenthFailureDisables: "the 10th wrong passcode disables the device"
        case .userCancel: "Cancel ends the evaluation with userCancel"
        case .systemCancel: "a system interruption ends the evaluation with systemCancel"
        case .secondEvaluationCancelsFirst: "a second evaluation on the device ends the first with systemCancel"
        case .invalidateCancels: "invalidate() during an evaluation ends it with appCancel"
        case .companionApproval: "approval on a paired, reachable companion satisfies the step"
        case .unavailableOnLinux: "wrist detection is watch-only: biometryNotAvailable on Linux"
        case .retryNotCounted: "an unusable capture (finger moved, swipe too short) is not a failed match: the prompt stays up (our rule)"
        case .sensorLostDuringCapture: "a sensor that goes away during a capture ends the evaluation: biometryNotAvailable, or biometryDisconnected for a removable one (our rule)"
        }
    }

    public var description: String { rawValue }
}

/// The counters a trace step shows before and after it.
public struct CounterSnapshot: Sendable, Equatable, CustomStringConvertible {
    /// Failed matches in this evaluation.
    public var evaluationFailures: Int
    /// Consecutive failed matches device-wide.
    public var biometricFailures: Int
    /// Consecutive wrong passcodes device-wide.
    public var passcodeFailures: Int

    public var description: String {
        "eval=\(evaluationFailures) bio=\(biometricFailures) pass=\(passcodeFailures)"
    }
}

/// What happened in one step.
public enum TraceEvent: Sendable, Equatable, CustomStringConvertible {
    /// The preflight check passed, or failed with this code.
    case checked(AuthenticationError.Code?)
    /// A prompt was shown.
    case prompt(Prompt.Kind, fallbackButton: String?)
    /// The user acted. A passcode's entry is not kept: it is recorded as `.passcode("")`.
    case action(UserAction)
    /// The presented identity matched the enrolled template of this name.
    case matched(String)
    /// The presented identity matched nothing.
    case notMatched
    /// The capture was unusable; not counted (the sensor's reason).
    case captureRetry(String)
    /// A correct passcode.
    case passcodeAccepted
    /// A wrong passcode; the delay it started.
    case passcodeRejected(delay: Duration)
    /// The same wrong passcode again, not counted.
    case passcodeRepeated
    /// Refused during a delay; time remaining.
    case passcodeRefused(remaining: Duration)
    /// The device got disabled.
    case deviceDisabled(erased: Bool)
    /// Satisfied by the reuse window; how long ago the device was unlocked.
    case reused(unlockedAgo: Duration)
    /// Satisfied by what an earlier success on the same context proved, without a prompt.
    case proven(AuthenticationMethod)
    /// The companion approved.
    case companionApproved
    /// The evaluation moved to the passcode prompt.
    case switchedToPasscode
    /// The person waited this long on the prompt (the device clock let the time pass).
    case waited(Duration)
    /// The evaluation was interrupted.
    case interrupted(AuthenticationError.Code)
    /// The evaluation ended: success (nil) or this code.
    case finished(AuthenticationError.Code?)

    public var description: String {
        switch self {
        case let .checked(code): code.map { "check failed: \($0.name) (\($0.rawValue))" } ?? "check passed"
        case let .prompt(kind, fallback): "prompt: \(kind.rawValue)" + (fallback.map { " [fallback button: \"\($0)\"]" } ?? "")
        case let .action(action): "user: \(action)"
        case let .matched(name): "match: \(name)"
        case .notMatched: "no match"
        case let .captureRetry(reason): "capture not usable (\(reason)): not counted, scan again"
        case .passcodeAccepted: "passcode accepted"
        case let .passcodeRejected(delay): delay > .zero ? "passcode rejected; next attempt in \(delay.compactDescription)" : "passcode rejected"
        case .passcodeRepeated: "same wrong passcode again: not counted"
        case let .passcodeRefused(remaining): "passcode refused: delay running, \(remaining.compactDescription) remaining"
        case let .deviceDisabled(erased): erased ? "device disabled and erased" : "device disabled"
        case let .reused(ago): "reused device unlock from \(ago.compactDescription) ago"
        case let .proven(method): "already proven on this context (\(method.rawValue)): no prompt"
        case .companionApproved: "companion approved"
        case .switchedToPasscode: "switched to passcode"
        case let .waited(duration): "waited \(duration.compactDescription)"
        case let .interrupted(code): "interrupted: \(code.name) (\(code.rawValue))"
        case let .finished(code): code.map { "failed: \($0.name) (\($0.rawValue))" } ?? "succeeded"
        }
    }
}

/// One step of an evaluation: what happened, the rule that decided, the counters around it.
public struct TraceStep: Sendable, Equatable, CustomStringConvertible {
    /// Device time of the step.
    public var at: Timestamp
    /// What happened.
    public var event: TraceEvent
    /// The rule that decided, when one did.
    public var rule: Rule?
    /// Counters before the step.
    public var before: CounterSnapshot
    /// Counters after the step.
    public var after: CounterSnapshot

    public var description: String {
        var text = "\(at)  \(event)"
        if before != after { text += "  [\(before) -> \(after)]" }
        if let rule { text += "  (rule \(rule.rawValue))" }
        return text
    }
}

/// Everything an evaluation did, in order: what tests assert on and what the REPL shows.
///
/// A trace is a value that is never changed once the evaluation ends, kept by the result, the
/// context and the device: its fields live in one shared, immutable record, so each copy is
/// one reference.
public struct Trace: Sendable, Equatable, CustomStringConvertible {
    /// The policy's name.
    public var policy: String { record.policy }
    /// The app that asked.
    public var appID: String { record.appID }
    /// The steps, in order.
    public var steps: TraceSteps { record.steps }
    /// How it ended: nil for success, else the LAError code (or nil with `failure` set for a
    /// non-LAError problem such as an exhausted script).
    public var result: AuthenticationError.Code? { record.result }
    /// A non-LAError failure (script, storage), as text.
    public var failure: String? { record.failure }

    private let record: Record

    private final class Record: Sendable {
        let policy: String
        let appID: String
        let steps: TraceSteps
        let result: AuthenticationError.Code?
        let failure: String?

        init(policy: String, appID: String, steps: TraceSteps, result: AuthenticationError.Code?, failure: String?) {
            self.policy = policy
            self.appID = appID
            self.steps = steps
            self.result = result
            self.failure = failure
        }
    }

    init(policy: String, appID: String, steps: TraceSteps, result: AuthenticationError.Code?, failure: String?) {
        record = Record(policy: policy, appID: appID, steps: steps, result: result, failure: failure)
    }

    public static func == (lhs: Trace, rhs: Trace) -> Bool {
        lhs.record === rhs.record
            || (lhs.policy == rhs.policy && lhs.appID == rhs.appID && lhs.steps == rhs.steps
                && lhs.result == rhs.result && lhs.failure == rhs.failure)
    }

    /// The rules that fired, in order.
    public var rules: [Rule] { steps.compactMap(\.rule) }

    public var description: String {
        var lines = ["evaluate \(policy) (app \(appID))"]
        lines += steps.map { "  " + $0.description }
        if let failure { lines.append("  error: \(failure)") }
        return lines.joined(separator: "\n")
    }
}

/// The steps of a ``Trace``, in order.
public struct TraceSteps: RandomAccessCollection, Sendable, Equatable, CustomStringConvertible {
    let elements: [TraceStep]

    /// Zero.
    public var startIndex: Int { elements.startIndex }
    /// The number of steps.
    public var endIndex: Int { elements.endIndex }

    /// The step at `position` (`0..<count`).
    public subscript(position: Int) -> TraceStep { elements[position] }

    /// The steps as an array prints them.
    public var description: String { elements.description }
}

/// Writes one evaluation's trace: steps appended, then sealed into a ``Trace``.
struct TraceRecorder {
    /// Room for a successful evaluation's steps, and for most failures, before the array grows.
    static let initialCapacity = 8

    let policy: String
    let appID: String
    private var steps: [TraceStep] = []

    init(policy: String, appID: String) {
        self.policy = policy
        self.appID = appID
        steps.reserveCapacity(Self.initialCapacity)
    }

    /// The last step written.
    var last: TraceStep? { steps.last }

    mutating func append(_ step: consuming TraceStep) {
        steps.append(step)
    }

    /// The trace as written so far, ending with `result` or `failure`.
    func seal(result: AuthenticationError.Code?, failure: String?) -> Trace {
        Trace(policy: policy, appID: appID, steps: TraceSteps(elements: steps), result: result, failure: failure)
    }
}

/// What a successful evaluation used.
public enum AuthenticationMethod: String, Sendable, Equatable, Codable {
    /// A biometric match.
    case biometry
    /// The device passcode.
    case passcode
    /// A recent biometric device unlock (reuse window).
    case reuse
    /// Approval on a companion device.
    case companion

    /// `[method]`, one shared array per method (no allocation per evaluation).
    static func alone(_ method: AuthenticationMethod) -> [AuthenticationMethod] {
        switch method {
        case .biometry: onlyBiometry
        case .passcode: onlyPasscode
        case .reuse: onlyReuse
        case .companion: onlyCompanion
        }
    }

    private static let onlyBiometry: [AuthenticationMethod] = [.biometry]
    private static let onlyPasscode: [AuthenticationMethod] = [.passcode]
    private static let onlyReuse: [AuthenticationMethod] = [.reuse]
    private static let onlyCompanion: [AuthenticationMethod] = [.companion]
}

/// A successful evaluation.
public struct EvaluationResult: Sendable, Equatable {
    /// The factors used, one per policy step.
    public var methods: [AuthenticationMethod]
    /// What happened.
    public var trace: Trace
}
