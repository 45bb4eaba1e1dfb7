#if !canImport(Darwin)
/// Runs `operation` on a new task and hands its value or error to an Objective-C style
/// completion handler: the value and `nil`, or `nil` and the error. Apple's completion-handler
/// forms call back on a queue of their own; these call back on the task, which runs on the
/// global executor (this function is not isolated to an actor) and keeps the caller's task-local
/// values, so a call inside `LocalAuthenticationSystem.withAuthenticator` uses that device.
func complete<Value: Sendable>(_ completion: @escaping @Sendable (Value?, (any Error)?) -> Void,
                               with operation: @escaping @Sendable () async throws -> Value) {
    Task {
        do { completion(try await operation(), nil) } catch { completion(nil, error) }
    }
}

/// Runs `operation` on a new task, as the other `complete`, and hands its error, or `nil` when
/// it succeeded, to an Objective-C style completion handler.
func complete(_ completion: @escaping @Sendable ((any Error)?) -> Void,
              with operation: @escaping @Sendable () async throws -> Void) {
    Task {
        do { try await operation(); completion(nil) } catch { completion(error) }
    }
}
#endif
