import Testing
import Touchstone

/// How an evaluation ended, for assertions on a `Trace`.
public enum EvaluationOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The evaluation succeeded.
    case succeeded
    /// The evaluation failed with this LAError code.
    case failed(AuthenticationError.Code)
    /// The evaluation stopped on a problem that is not an LAError (a scripting mistake, a
    /// storage failure); the text is the trace's `Trace/failure`.
    case stopped(String)

    public var description: String {
        switch self {
        case .succeeded: "succeeded"
        case let .failed(code): "failed with \(code.name) (\(code.rawValue))"
        case let .stopped(reason): "stopped: \(reason)"
        }
    }
}

extension Trace {
    /// How the evaluation ended.
    public var outcome: EvaluationOutcome {
        if let result { return .failed(result) }
        if let failure { return .stopped(failure) }
        return .succeeded
    }

    /// The rule of the last step that had one: the rule that decided how the evaluation ended
    /// (`biometry.five-consecutive-failures-lock-out` for a lockout), nil when no rule fired.
    public var endingRule: Rule? { rules.last }
}

extension TestDevice {
    /// The trace of the device's most recent evaluation (any app, any context), nil before
    /// the first.
    public var lastTrace: Trace? { device.lastTrace }

    /// Checks the device's most recent evaluation and records a test issue for each
    /// difference: how it ended (`outcome`), the rule that ended it (`endedBy`, see
    /// `Trace.endingRule`) and rules that must have fired on the way (`applied`). Arguments
    /// left nil or empty are not checked. Returns the trace, or nil (and an issue) when nothing
    /// was evaluated yet.
    ///
    /// ```swift
    /// _ = try? await device.evaluate(.biometrics, .failures(3))   // Touch ID ends a prompt after 3
/// _ = try? await device.evaluate(.biometrics, .failures(2))   // the 5th in a row locks out
    /// device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut)
    /// ```
    @discardableResult
    public func expectLastEvaluation(
        _ outcome: EvaluationOutcome? = nil,
        endedBy rule: Rule? = nil,
        applied rules: [Rule] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Trace? {
        guard let trace = lastTrace else {
            Issue.record("no evaluation has run on this device", sourceLocation: sourceLocation)
            return nil
        }
        for problem in trace.differences(outcome: outcome, endedBy: rule, applied: rules) {
            Issue.record(Comment(rawValue: "\(problem)\n\(trace)"), sourceLocation: sourceLocation)
        }
        return trace
    }
}

extension Trace {
    /// What differs from the expectation, one sentence each; empty when the trace matches.
    /// (``TestDevice/expectLastEvaluation(_:endedBy:applied:sourceLocation:)`` records these as
    /// issues; XCTest users can `XCTAssertEqual(trace.differences(...), [])`.)
    public func differences(outcome expected: EvaluationOutcome? = nil, endedBy rule: Rule? = nil, applied expectedRules: [Rule] = []) -> [String] {
        var problems: [String] = []
        if let expected, outcome != expected {
            problems.append("the evaluation \(outcome), expected it \(expected)")
        }
        if let rule, endingRule != rule {
            problems.append("the evaluation ended by rule \(endingRule?.rawValue ?? "(none)"), expected \(rule.rawValue)")
        }
        for expectedRule in expectedRules where !rules.contains(expectedRule) {
            problems.append("rule \(expectedRule.rawValue) did not fire (fired: \(rules.map(\.rawValue).joined(separator: ", ")))")
        }
        return problems
    }
}
