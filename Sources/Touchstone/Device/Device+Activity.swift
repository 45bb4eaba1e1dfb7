/// The device's evaluation on screen and its last trace.
extension Device {
    /// Starts tracking `handle` as the device's evaluation; an evaluation already on screen
    /// ends with `systemCancel` (REFERENCE §8, our rule).
    func begin(_ handle: EvaluationHandle) {
        let previous = activity.withLock { activity -> EvaluationHandle? in
            defer { activity.activeEvaluation = handle }
            return activity.activeEvaluation
        }
        if let previous, previous.interrupt(with: .systemCancel) {
            interruptPrompts()
        }
    }

    /// Ends `handle`'s evaluation and records its trace as the device's last, under one lock.
    func end(_ handle: EvaluationHandle, trace: Trace) {
        activity.withLock { activity in
            if activity.activeEvaluation === handle { activity.activeEvaluation = nil }
            activity.lastTrace = trace
        }
    }

    func interruptPrompts() {
        sensor?.interrupt()
        interaction.interrupt()
    }

    /// The trace of the device's most recent evaluation, from any app or context.
    public var lastTrace: Trace? { activity.withLock { $0.lastTrace } }
}
