import Testing
@testable import Touchstone
import TouchstoneBuiltins
