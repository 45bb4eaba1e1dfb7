#if !canImport(Darwin)
import LocalAuthentication

// Client code in the style of the popular biometric wrappers (our own code): one LAContext per
// request, `canEvaluatePolicy` first, the reply form, and the error mapped by switching on
// Apple's Int32 C constants over `(error as NSError).code`. Only `import LocalAuthentication`:
// Foundation and Security come with it, as on iOS.

/// What went wrong, in the wrapper's own terms.
enum BiometricGateFailure: Error, Equatable, Sendable {
    case cancelledByUser, cancelledBySystem, fallback, failed, lockedOut
    case notEnrolled, notAvailable, passcodeNotSet, other(Int)

    /// The wrapper's mapping, written as iOS code writes it.
    init(_ error: NSError) {
        switch Int32(error.code) {
        case kLAErrorUserCancel: self = .cancelledByUser
        case kLAErrorSystemCancel, kLAErrorAppCancel: self = .cancelledBySystem
        case kLAErrorUserFallback: self = .fallback
        case kLAErrorAuthenticationFailed: self = .failed
        case kLAErrorBiometryLockout: self = .lockedOut
        case kLAErrorTouchIDNotEnrolled: self = .notEnrolled
        case kLAErrorBiometryNotAvailable: self = .notAvailable
        case kLAErrorPasscodeNotSet: self = .passcodeNotSet
        default: self = .other(error.code)
        }
    }
}

/// A biometric gate: `canAuthenticate()` then `authenticate(reason:completion:)`.
struct BiometricGate: Sendable {
    /// The title of the fallback button.
    var fallbackTitle = "Use Password"

    /// Nil when biometrics can be used, else why not.
    func canAuthenticate() -> BiometricGateFailure? {
        let context = LAContext()
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else {
            return error.map(BiometricGateFailure.init) ?? .other(0)
        }
        return nil
    }

    /// The device's biometry, as the wrappers report it.
    func biometryName() -> String {
        let context = LAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        switch Int32(context.biometryType.rawValue) {
        case kLABiometryTypeTouchID: return "Touch ID"
        case kLABiometryTypeFaceID: return "Face ID"
        case kLABiometryTypeOpticID: return "Optic ID"
        default: return "none"
        }
    }

    /// Asks for biometrics; `completion` runs on a background queue.
    func authenticate(reason: String, completion: @escaping @Sendable (Result<Void, BiometricGateFailure>) -> Void) {
        let context = LAContext()
        context.localizedFallbackTitle = fallbackTitle
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason) { success, error in
            if success {
                completion(.success(()))
            } else if let error {
                completion(.failure(BiometricGateFailure(error as NSError)))
            } else {
                completion(.failure(.other(0)))
            }
        }
    }
}
#endif
