#!/usr/bin/env python3
"""Drive a command in a pseudo-terminal from a JSON script; print the transcript.

Needs only python3's standard library (pty, os, select), so it runs on a fresh
Debian machine. Linux/macOS only.

USAGE
    pty_session.py [options] --steps JSON -- COMMAND [ARG...]
    pty_session.py [options] --steps-file FILE -- COMMAND [ARG...]   (FILE "-" = stdin)

OPTIONS
    --timeout S      default seconds an "expect"/"exit" step waits (default 10)
    --cols N --rows N  terminal size (default 100x30)
    --env K=V        set an environment variable for COMMAND (repeatable);
                     TERM defaults to xterm, LANG to C.UTF-8 unless set here
    --raw            print the raw transcript (escape sequences shown as \\x1b)
                     instead of the cleaned one
    --quiet          print the transcript only when a step fails
    --block-signals NAMES
                     start COMMAND with these signals blocked (comma-separated,
                     e.g. HUP,TERM), as a parent spawning from a thread that
                     blocks them leaves them

STEPS: a JSON array, run in order; each step is an object with one of:
    {"send": "text"}          write text to the terminal. After JSON decoding,
                              these escapes are also expanded: \\t \\n \\r \\e
                              \\xHH \\uHHHH \\\\ -- so in JSON write "\\\\x03" or
                              just use JSON's own "\\u0003". "\\r" is Enter.
    {"key": "NAME"}           send a named key: enter, tab, backspace, escape,
                              up, down, right, left, home, end, delete,
                              ctrl-a ... ctrl-z (e.g. ctrl-c, ctrl-d)
    {"expect": "snippet"}     wait until snippet appears in the output written
                              after the previous match (as pexpect does).
                              Output is matched both raw and with escape
                              sequences and carriage returns removed.
                              Optional "timeout": seconds.
    {"expect_re": "regex"}    same with a Python regular expression.
    {"absent": "snippet"}     fail if snippet appears anywhere in the output so
                              far (e.g. a passcode that must not be echoed).
                              Optional "settle": seconds to wait first (0.3).
    {"sleep": S}              wait S seconds, reading output meanwhile.
    {"signal": "NAME"}        send the signal (HUP, TERM, WINCH, ...) to COMMAND.
    {"exit": CODE}            wait for the command to exit with CODE
                              (null = any code); optional "timeout".
    Any step may carry "note": "..." which is shown when it fails.

EXIT STATUS
    0 every step passed; 1 a step failed (a clear message goes to stderr, then
    the transcript); 2 usage error or the command could not be started.
    A command still running after the last step gets SIGHUP, then SIGKILL.

EXAMPLE
    pty_session.py --steps '[
        {"expect": "demo> "},
        {"send": "he\\t"}, {"expect": "help"},
        {"key": "ctrl-c"}, {"expect": "(interrupted)"},
        {"expect": "demo> "}, {"key": "ctrl-d"}, {"exit": 0}
    ]' -- .build/debug/le-demo

    Always wait for the prompt before sending: keys typed while the program is
    not reading yet are echoed by the terminal, and a Ctrl-C typed between two
    reads is a real SIGINT.
"""

import argparse
import codecs
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import time

try:
    import fcntl
    import termios
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None
    termios = None

NAMED_KEYS = {
    "enter": "\r",
    "return": "\r",
    "tab": "\t",
    "backspace": "\x7f",
    "escape": "\x1b",
    "esc": "\x1b",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "delete": "\x1b[3~",
}
for _letter in "abcdefghijklmnopqrstuvwxyz":
    NAMED_KEYS["ctrl-" + _letter] = chr(ord(_letter) - ord("a") + 1)

# CSI sequences, OSC sequences, other two-byte escapes, and carriage returns.
ANSI_RE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_=>()][0-9A-Za-z]?|\r|\x07")


class StepFailed(Exception):
    pass


def expand_escapes(text):
    """Expand \\t \\n \\r \\e \\xHH \\uHHHH \\\\ in text; leave other characters intact."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 >= len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        simple = {"t": "\t", "n": "\n", "r": "\r", "e": "\x1b", "\\": "\\", "a": "\x07", "b": "\b"}
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 2:i + 4]):
            out.append(chr(int(text[i + 2:i + 4], 16)))
            i += 4
        elif nxt == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[i + 2:i + 6]):
            out.append(chr(int(text[i + 2:i + 6], 16)))
            i += 6
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def clean(text):
    return ANSI_RE.sub("", text)


class Session:
    def __init__(self, argv, env, cols, rows, blocked=()):
        self.output = ""          # everything decoded so far
        self.search_from = 0      # expectations look at output[search_from:]
        self.exit_code = None
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pid, fd = pty.fork()
        if pid == 0:  # child
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, set(blocked))
                os.execvpe(argv[0], argv, env)
            except OSError as error:
                os.write(2, ("pty_session: cannot run %s: %s\n" % (argv[0], error)).encode())
            os._exit(127)
        self.pid, self.fd = pid, fd
        if fcntl and termios:
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    # -- I/O -------------------------------------------------------------
    def pump(self, seconds):
        """Read whatever arrives within `seconds`; returns False at end of output."""
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining < 0:
                return True
            try:
                ready, _, _ = select.select([self.fd], [], [], remaining)
            except InterruptedError:
                continue
            if not ready:
                return True
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                data = b""
            if not data:
                self.output += self._decoder.decode(b"", final=True)
                self._reap(block=False)
                return False
            self.output += self._decoder.decode(data)

    def send(self, text):
        data = text.encode("utf-8")
        while data:
            written = os.write(self.fd, data)
            data = data[written:]

    def _reap(self, block):
        if self.exit_code is not None:
            return True
        try:
            pid, status = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return True
        if pid == 0:
            return False
        if os.WIFEXITED(status):
            self.exit_code = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            self.exit_code = -os.WTERMSIG(status)
        return True

    # -- steps -------------------------------------------------------------
    def wait_for(self, matcher, timeout, describe):
        """Wait until matcher(text) gives a match end; text is raw or cleaned output."""
        deadline = time.monotonic() + timeout
        ended = False
        while True:
            window = self.output[self.search_from:]
            end = matcher(window)
            if end is None and matcher(clean(window)) is not None:
                # Matched only once escapes are removed: find the shortest raw
                # prefix that matches when cleaned, to advance past it.
                low, high = 0, len(window)
                while low < high:
                    middle = (low + high) // 2
                    if matcher(clean(window[:middle])) is not None:
                        high = middle
                    else:
                        low = middle + 1
                end = low
            if end is not None:
                self.search_from += end
                return
            if ended:
                raise StepFailed("the command ended (exit code %s) before %s appeared"
                                 % (self.exit_code, describe))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StepFailed("timed out after %.1fs waiting for %s" % (timeout, describe))
            if not self.pump(min(remaining, 0.1)):
                ended = True

    def wait_exit(self, timeout):
        deadline = time.monotonic() + timeout
        while not self._reap(block=False):
            if time.monotonic() > deadline:
                raise StepFailed("the command did not exit within %.1fs" % timeout)
            self.pump(0.05)
        self.pump(0.05)
        return self.exit_code

    def close(self):
        if not self._reap(block=False):
            try:
                os.kill(self.pid, signal.SIGHUP)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 2
            while not self._reap(block=False) and time.monotonic() < deadline:
                self.pump(0.05)
            if not self._reap(block=False):
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self._reap(block=True)
        try:
            os.close(self.fd)
        except OSError:
            pass


def signal_number(name):
    """The number of signal NAME (HUP or SIGHUP)."""
    name = str(name).upper()
    number = getattr(signal, name if name.startswith("SIG") else "SIG" + name, None)
    if not isinstance(number, int):
        raise StepFailed("unknown signal %r" % name)
    return number


def run_step(session, step, default_timeout):
    timeout = float(step.get("timeout", default_timeout))
    if "send" in step:
        session.send(expand_escapes(step["send"]))
        session.pump(0.02)
    elif "key" in step:
        name = str(step["key"]).lower()
        if name not in NAMED_KEYS:
            raise StepFailed("unknown key name %r (known: %s)" % (name, ", ".join(sorted(NAMED_KEYS))))
        session.send(NAMED_KEYS[name])
        session.pump(0.02)
    elif "expect" in step:
        snippet = step["expect"]

        def find(text):
            index = text.find(snippet)
            return None if index < 0 else index + len(snippet)
        session.wait_for(find, timeout, "%r" % snippet)
    elif "expect_re" in step:
        pattern = re.compile(step["expect_re"])

        def find_re(text):
            match = pattern.search(text)
            return None if match is None else match.end()
        session.wait_for(find_re, timeout, "/%s/" % step["expect_re"])
    elif "absent" in step:
        session.pump(float(step.get("settle", 0.3)))
        snippet = step["absent"]
        if snippet in session.output or snippet in clean(session.output):
            raise StepFailed("%r appeared in the output but must not" % snippet)
    elif "sleep" in step:
        session.pump(float(step["sleep"]))
    elif "signal" in step:
        os.kill(session.pid, signal_number(step["signal"]))
        session.pump(0.02)
    elif "exit" in step:
        code = session.wait_exit(timeout)
        if step["exit"] is not None and code != step["exit"]:
            raise StepFailed("the command exited with %s, expected %s" % (code, step["exit"]))
    else:
        raise StepFailed("unknown step %r" % (step,))


def show(text, raw):
    if raw:
        return "".join(ch if ch == "\n" or ch >= " " and ch != "\x7f" else "\\x%02x" % ord(ch)
                       for ch in text)
    return clean(text)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Drive a command in a pseudo-terminal (see the top of this file).")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--steps", help="JSON array of steps")
    group.add_argument("--steps-file", help="file holding the JSON steps, - for stdin")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--cols", type=int, default=100)
    parser.add_argument("--rows", type=int, default=30)
    parser.add_argument("--env", action="append", default=[], metavar="K=V")
    parser.add_argument("--raw", action="store_true")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--block-signals", default="", metavar="NAMES")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    try:
        if args.steps is not None:
            steps = json.loads(args.steps)
        elif args.steps_file == "-":
            steps = json.load(sys.stdin)
        else:
            with open(args.steps_file, encoding="utf-8") as handle:
                steps = json.load(handle)
    except (OSError, ValueError) as error:
        print("pty_session: cannot read steps: %s" % error, file=sys.stderr)
        return 2
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        print("pty_session: steps must be a JSON array of objects", file=sys.stderr)
        return 2

    env = dict(os.environ)
    env.setdefault("TERM", "xterm")
    env.setdefault("LANG", "C.UTF-8")
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error("--env needs K=V, got %r" % item)
        env[key] = value

    try:
        blocked = [signal_number(name) for name in args.block_signals.split(",") if name.strip()]
    except StepFailed as error:
        parser.error(str(error))
    session = Session(command, env, args.cols, args.rows, blocked)
    failure = None
    for number, step in enumerate(steps, start=1):
        try:
            run_step(session, step, args.timeout)
        except StepFailed as error:
            note = (" (%s)" % step["note"]) if "note" in step else ""
            failure = "pty_session: step %d %s failed%s: %s" % (
                number, json.dumps(step, ensure_ascii=False), note, error)
            break
    session.pump(0.05)
    session.close()

    if failure is None and args.quiet:
        return 0
    print(show(session.output, args.raw), end="" if session.output.endswith("\n") else "\n")
    if failure is not None:
        unmatched = session.output[session.search_from:]
        print(failure, file=sys.stderr)
        print("pty_session: output after the last match: %r" % clean(unmatched)[-400:], file=sys.stderr)
        return 1
    print("pty_session: %d steps passed (exit code %s)" % (len(steps), session.exit_code), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
