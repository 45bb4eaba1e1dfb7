// Placeholder: the LocalAuthentication module is being written (issue 5).
import Touchstone
