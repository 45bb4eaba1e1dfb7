// Placeholder: the SQLite backend is being written (issue 4).
import Touchstone
