"""One process at a time builds from an architecture's private apt (images/apt.py `exclusive`):
a second waits, says so, and goes on once the first is done; other architectures do not wait."""
from __future__ import annotations

import subprocess
import sys
import time

from xtalk.images.apt import exclusive

SECOND = """
import sys, time
from pathlib import Path
from xtalk.images.apt import exclusive
with exclusive(sys.argv[1], Path(sys.argv[2]), log=lambda m: print(m, flush=True)):
    print("held", time.monotonic(), flush=True)
"""


def second(arch: str, cache) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SECOND, arch, str(cache)], stdout=subprocess.PIPE, text=True)


def test_a_second_builder_of_the_same_arch_waits_and_says_so(tmp_path):
    with exclusive("arm64", tmp_path, log=lambda m: None):
        waiting = second("aarch64", tmp_path)  # another spelling of the same Debian architecture
        assert waiting.stdout.readline().startswith("waiting for another xtalk building from the aarch64 packages")
        time.sleep(0.3)
        assert waiting.poll() is None
        released = time.monotonic()
    out, _ = waiting.communicate(timeout=30)
    assert out.startswith("held ") and float(out.split()[1]) >= released


def test_another_arch_does_not_wait(tmp_path):
    with exclusive("arm64", tmp_path, log=lambda m: None):
        out, _ = second("x86_64", tmp_path).communicate(timeout=30)
    assert out.startswith("held ")
