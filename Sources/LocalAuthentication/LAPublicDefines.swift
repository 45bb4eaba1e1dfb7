#if !canImport(Darwin)
// Apple's C constants from LAPublicDefines.h, as Swift imports them (`Int32`), for code that
// switches on raw codes:
//
//     switch Int32((error as NSError).code) {
//     case kLAErrorUserCancel, kLAErrorSystemCancel, kLAErrorAppCancel: break
//     case kLAErrorBiometryLockout: unlockWithPasscode()
//     default: showError(error)
//     }

// MARK: Errors (LAError.Code raw values)

/// `LAError.Code.authenticationFailed` (-1).
public let kLAErrorAuthenticationFailed: Int32 = -1
/// `LAError.Code.userCancel` (-2).
public let kLAErrorUserCancel: Int32 = -2
/// `LAError.Code.userFallback` (-3).
public let kLAErrorUserFallback: Int32 = -3
/// `LAError.Code.systemCancel` (-4).
public let kLAErrorSystemCancel: Int32 = -4
/// `LAError.Code.passcodeNotSet` (-5).
public let kLAErrorPasscodeNotSet: Int32 = -5
/// `LAError.Code.biometryNotAvailable` (-6), iOS 8 name.
public let kLAErrorTouchIDNotAvailable: Int32 = -6
/// `LAError.Code.biometryNotEnrolled` (-7), iOS 8 name.
public let kLAErrorTouchIDNotEnrolled: Int32 = -7
/// `LAError.Code.biometryLockout` (-8), iOS 9 name.
public let kLAErrorTouchIDLockout: Int32 = -8
/// `LAError.Code.appCancel` (-9).
public let kLAErrorAppCancel: Int32 = -9
/// `LAError.Code.invalidContext` (-10).
public let kLAErrorInvalidContext: Int32 = -10
/// `LAError.Code.companionNotAvailable` (-11), macOS 10.15 name.
public let kLAErrorWatchNotAvailable: Int32 = -11
/// `LAError.Code.companionNotAvailable` (-11).
public let kLAErrorCompanionNotAvailable: Int32 = -11
/// `LAError.Code.biometryNotPaired` (-12).
public let kLAErrorBiometryNotPaired: Int32 = -12
/// `LAError.Code.biometryDisconnected` (-13).
public let kLAErrorBiometryDisconnected: Int32 = -13
/// `LAError.Code.invalidDimensions` (-14).
public let kLAErrorInvalidDimensions: Int32 = -14
/// `LAError.Code.biometryNotAvailable` (-6).
public let kLAErrorBiometryNotAvailable: Int32 = -6
/// `LAError.Code.biometryNotEnrolled` (-7).
public let kLAErrorBiometryNotEnrolled: Int32 = -7
/// `LAError.Code.biometryLockout` (-8).
public let kLAErrorBiometryLockout: Int32 = -8
/// `LAError.Code.notInteractive` (-1004).
public let kLAErrorNotInteractive: Int32 = -1004

// MARK: Policies (LAPolicy raw values)

/// `LAPolicy.deviceOwnerAuthenticationWithBiometrics` (1).
public let kLAPolicyDeviceOwnerAuthenticationWithBiometrics: Int32 = 1
/// `LAPolicy.deviceOwnerAuthentication` (2).
public let kLAPolicyDeviceOwnerAuthentication: Int32 = 2
/// `LAPolicy.deviceOwnerAuthenticationWithWatch` (3), macOS 10.15 name.
public let kLAPolicyDeviceOwnerAuthenticationWithWatch: Int32 = 3
/// `LAPolicy.deviceOwnerAuthenticationWithCompanion` (3).
public let kLAPolicyDeviceOwnerAuthenticationWithCompanion: Int32 = 3
/// `LAPolicy.deviceOwnerAuthenticationWithBiometricsOrWatch` (4), macOS 10.15 name.
public let kLAPolicyDeviceOwnerAuthenticationWithBiometricsOrWatch: Int32 = 4
/// `LAPolicy.deviceOwnerAuthenticationWithBiometricsOrCompanion` (4).
public let kLAPolicyDeviceOwnerAuthenticationWithBiometricsOrCompanion: Int32 = 4
/// `LAPolicy.deviceOwnerAuthenticationWithWristDetection` (5).
public let kLAPolicyDeviceOwnerAuthenticationWithWristDetection: Int32 = 5

// MARK: Biometry types (LABiometryType raw values)

/// `LABiometryType.none` (0).
public let kLABiometryTypeNone: Int32 = 0
/// `LABiometryType.touchID` (1).
public let kLABiometryTypeTouchID: Int32 = 1
/// `LABiometryType.faceID` (2).
public let kLABiometryTypeFaceID: Int32 = 2
/// `LABiometryType.opticID` (4).
public let kLABiometryTypeOpticID: Int32 = 4

// MARK: Credential types (LACredentialType raw values)

/// `LACredentialType.applicationPassword` (0).
public let kLACredentialTypeApplicationPassword: Int32 = 0
/// `LACredentialType.smartCardPIN` (-3).
public let kLACredentialSmartCardPIN: Int32 = -3

// MARK: Access-control operations (LAAccessControlOperation raw values)

/// `LAAccessControlOperation.createItem` (0).
public let kLAAccessControlOperationCreateItem: Int32 = 0
/// `LAAccessControlOperation.useItem` (1).
public let kLAAccessControlOperationUseItem: Int32 = 1
/// `LAAccessControlOperation.createKey` (2).
public let kLAAccessControlOperationCreateKey: Int32 = 2
/// `LAAccessControlOperation.useKeySign` (3).
public let kLAAccessControlOperationUseKeySign: Int32 = 3
/// `LAAccessControlOperation.useKeyDecrypt` (4).
public let kLAAccessControlOperationUseKeyDecrypt: Int32 = 4
/// `LAAccessControlOperation.useKeyKeyExchange` (5).
public let kLAAccessControlOperationUseKeyKeyExchange: Int32 = 5

// MARK: Companion types (LACompanionType raw values)

/// No companion type (0): the value of no `LACompanionType` case.
public let kLACompanionTypeNone: Int32 = 0
/// `LACompanionType.watch` (1).
public let kLACompanionTypeWatch: Int32 = 1
/// `LACompanionType.mac` (2).
public let kLACompanionTypeMac: Int32 = 2
/// `LACompanionType.vision` (4).
public let kLACompanionTypeVision: Int32 = 4
#endif
#if !canImport(Darwin)
/// The LAError domain as Apple's C macro spells it (`kLAErrorDomain`), equal to ``LAErrorDomain``.
public let kLAErrorDomain: String = "com.apple.LocalAuthentication"
#endif
