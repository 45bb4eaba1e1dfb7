#if !canImport(Darwin)
import LocalAuthentication

// Client code in the style of wrappers that catch `as NSError` (on iOS every LAError is one)
// and of those that catch `as LAError` / `catch LAError.userCancel`: both must see the same
// thrown value.

/// What the sign-in screen does next.
enum SignInStep: Equatable, Sendable {
    case signedIn, stay, showPassword, unlockWithPasscode, showMessage(Int)
}

/// The `catch let error as NSError` style.
func signInCatchingNSError(_ context: LAContext) async -> SignInStep {
    do {
        try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
        return .signedIn
    } catch let error as NSError {
        guard error.domain == LAErrorDomain else { return .showMessage(error.code) }
        switch LAError.Code(rawValue: error.code) {
        case .userCancel?, .systemCancel?, .appCancel?: return .stay
        case .userFallback?: return .showPassword
        case .biometryLockout?: return .unlockWithPasscode
        default: return .showMessage(error.code)
        }
    }
}

/// The `catch LAError.userCancel` / `catch let error as LAError` style.
func signInCatchingLAError(_ context: LAContext) async -> SignInStep {
    do {
        try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
        return .signedIn
    } catch LAError.userCancel {
        return .stay
    } catch let error as LAError where error.code == .userFallback {
        return .showPassword
    } catch let error as LAError {
        switch error.code {
        case .systemCancel, .appCancel: return .stay
        case .biometryLockout: return .unlockWithPasscode
        default: return .showMessage((error as NSError).code)
        }
    } catch {
        return .showMessage(error._code)
    }
}

/// The reply form, with `error as? LAError` and `(error as NSError).code` on the same value.
func signInWithReply(_ context: LAContext, completion: @escaping @Sendable (SignInStep, Int?) -> Void) {
    context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in") { success, error in
        guard !success, let error else { return completion(.signedIn, nil) }
        let code = (error as NSError).code
        guard let laError = error as? LAError else { return completion(.showMessage(code), code) }
        completion(laError.code == .userCancel ? .stay : .showMessage(code), code)
    }
}
#endif
