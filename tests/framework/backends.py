"""The backends an integration test runs on as a user would: natively everywhere, under
QEMU where qemu-system-x86_64 is installed (skipped with the reason otherwise).
SLOW_ON_QEMU: a long timing test (it takes the host alone for half a minute or more a
backend) runs natively in the gate and under QEMU in `make test-all` only."""
from __future__ import annotations

import shutil

import pytest

NEEDS_QEMU = pytest.mark.skipif(shutil.which("qemu-system-x86_64") is None,
                                reason="qemu-system-x86_64 is not installed")
BACKENDS = ["native", pytest.param("qemu", marks=NEEDS_QEMU)]
SLOW_ON_QEMU = ["native", pytest.param("qemu", marks=[NEEDS_QEMU, pytest.mark.full])]
