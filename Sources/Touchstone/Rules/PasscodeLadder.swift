/// The escalating delays after wrong device passcodes (REFERENCE §6).
///
/// | failed attempts | delay before the next attempt |
/// |---|---|
/// | 1–4 | none |
/// | 5 | 1 minute |
/// | 6 | 5 minutes |
/// | 7, 8 | 15 minutes |
/// | 9 | 1 hour |
/// | 10 | the device is disabled |
public enum PasscodeLadder {
    /// Failed attempts after which the device is disabled.
    public static let disableAfterFailures = 10

    /// The delay imposed after the `failures`-th consecutive wrong passcode, or nil when that
    /// many failures disable the device.
    public static func delay(afterFailures failures: Int) -> Duration? {
        switch failures {
        case ..<5: .zero
        case 5: .seconds(60)
        case 6: .seconds(5 * 60)
        case 7, 8: .seconds(15 * 60)
        case 9: .seconds(60 * 60)
        default: nil
        }
    }
}
