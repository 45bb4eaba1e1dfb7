#if !canImport(Darwin)
import Foundation

/// The out-parameter of `canEvaluatePolicy(_:error:)`, which Foundation on Linux lacks.
///
/// On Apple platforms it is `AutoreleasingUnsafeMutablePointer<NSError?>?`; here it is
/// `UnsafeMutablePointer<NSError?>?`. Both forms call sites use compile unchanged:
/// ```swift
/// var error: NSError?
/// context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
/// context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
/// ```
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
#endif
