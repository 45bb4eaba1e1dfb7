// Placeholder: the encrypted file backend is being written (issue 4).
import Touchstone
