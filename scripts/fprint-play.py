#!/usr/bin/python3
"""Plays the finger on libfprint's virtual reader when fprintd starts waiting for one.

    fprint-play.py BUS_ADDRESS READER_SOCKET STEP...

Watches the bus (dbus-monitor) for the Device methods VerifyStart and EnrollStart; at each one
it sends the next STEP's commands to the reader's socket. A STEP is a comma-separated list of
virtual-device commands ("SCAN print-a", "RETRY 1", "UNPLUG"). Commands must be sent after the
claim: the socket accepts them only while the reader is open, and a queue left at release is
lost. Exits when every step was played. With FPRINT_PLAY_READY=FILE it creates FILE once
dbus-monitor listens, so a caller can wait for that before starting the operations.
"""
import os
import socket
import subprocess
import sys
import time


def send(path, command):
    deadline = time.monotonic() + 5
    while True:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            s.sendall(command.encode())
            s.shutdown(socket.SHUT_WR)
            s.recv(512)
            s.close()
            return
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"fprint-play: the reader at {path} never accepted {command!r}")
            time.sleep(0.005)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    address, path, steps = sys.argv[1], sys.argv[2], sys.argv[3:]
    monitor = subprocess.Popen(
        ["dbus-monitor", "--address", address, "type='method_call',interface='net.reactivated.Fprint.Device'"],
        stdout=subprocess.PIPE, text=True)
    ready = os.environ.get("FPRINT_PLAY_READY")
    try:
        for line in monitor.stdout:
            if ready:
                # dbus-monitor's first lines (NameAcquired/NameLost) come once it is a monitor.
                open(ready, "w").close()
                ready = None
            if not steps:
                break
            if "member=VerifyStart" in line or "member=EnrollStart" in line:
                for command in steps.pop(0).split(","):
                    send(path, command)
    finally:
        monitor.kill()
        monitor.wait()


if __name__ == "__main__":
    main()
