#if !canImport(Darwin)
/// Runs `operation` on a new task and hands its value or error to an Objective-C style
/// completion handler: the value and `nil`, or `nil` and the error. The task keeps the caller's
/// task-local values, so a call inside `LocalAuthenticationSystem.withAuthenticator` uses that
/// device; the handler is called on a GCD queue, as Apple's are (so it may block), with that
/// device as its default too.
func complete<Value: Sendable>(_ completion: @escaping @Sendable (Value?, (any Error)?) -> Void,
                               with operation: @escaping @Sendable () async throws -> Value) {
    let device = LocalAuthenticationSystem.taskAuthenticator
    Task {
        let result: Result<Value, any Error>
        do { result = .success(try await operation()) } catch { result = .failure(error) }
        LocalAuthenticationSystem.dispatch(with: device) {
            switch result {
            case let .success(value): completion(value, nil)
            case let .failure(error): completion(nil, error)
            }
        }
    }
}

/// Runs `operation` on a new task, as the other `complete`, and hands its error, or `nil` when
/// it succeeded, to an Objective-C style completion handler.
func complete(_ completion: @escaping @Sendable ((any Error)?) -> Void,
              with operation: @escaping @Sendable () async throws -> Void) {
    complete({ (_: Bool?, error) in completion(error) }, with: { try await operation(); return true })
}
#endif
