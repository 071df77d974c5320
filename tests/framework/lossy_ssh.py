"""An `ssh` that runs the remote command string here (`sh -c`, as sshd's shell would) and
loses what a dropped master connection loses, on its first send only: the fault for
the executors' exactly-once tests (xtalk/remote/executors.py). Its state (how many sends
came) is a file in STATE_DIR.

Usage: python lossy_ssh.py STATE_DIR FAULT [ssh options...] HOST -- COMMAND
FAULT, what the first send suffers:
  refused   never reaches dom0 (nothing runs; ssh says so, status 255)
  lost      runs whole, but its output and marks are lost (status 255, nothing printed)
  cut       runs whole, but only its start mark comes back (status 255)
  running   starts, and the connection drops while it still runs (it goes on, detached)
  closed    reaches dom0 with its connection already gone: every write to it fails
            (SIGPIPE), from the start mark on; nothing comes back (status 255)
  killed    starts, and is killed with its connection a moment later
  none      no fault
Every later send runs as it would over a working link."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    state, fault, command = Path(sys.argv[1]), sys.argv[2], sys.argv[-1]
    sends = state / "sends"
    count = int(sends.read_text()) + 1 if sends.exists() else 1
    sends.write_text(str(count))
    stdin = sys.stdin.buffer.read()
    if count > 1 or fault == "none":
        p = subprocess.run(["sh", "-c", command], input=stdin, capture_output=True)
        sys.stdout.buffer.write(p.stdout)
        sys.stderr.buffer.write(p.stderr)
        return p.returncode
    if fault == "refused":
        sys.stderr.write("ssh: connect to host dom0 port 22: Connection refused\n")
        return 255
    if fault in ("running", "killed"):
        child = subprocess.Popen(["sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        child.stdin.write(stdin)
        child.stdin.close()
        (state / "running.pid").write_text(str(child.pid))
        if fault == "killed":
            time.sleep(0.3)  # it has claimed the command
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        sys.stderr.write("@@XTGO\n")
        return 255
    if fault == "closed":
        read_end, write_end = os.pipe()
        os.close(read_end)
        subprocess.run(["sh", "-c", command], input=stdin, stdout=write_end, stderr=write_end)
        os.close(write_end)
        return 255
    p = subprocess.run(["sh", "-c", command], input=stdin, capture_output=True)
    if fault == "cut":
        sys.stderr.write("@@XTGO\n")
    return 255


if __name__ == "__main__":
    sys.exit(main())
