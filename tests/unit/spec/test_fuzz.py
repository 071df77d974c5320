"""Property: no spec makes `xtalk spec check` or `run --dry-run` crash or hang. Over
mutated experiments/*.toml and random TOML (tests/framework/spec_fuzz.py), the exit status
is 0 or 2, never an "unexpected" error or a traceback, every problem names its line, and
each spec is done within the deadline. Derandomized, without an example database, so CI
sees the same cases each time; XTALK_FUZZ_EXAMPLES=2000 runs a bigger search."""
from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from tests.framework.spec_fuzz import outcome, specs

EXAMPLES = int(os.environ.get("XTALK_FUZZ_EXAMPLES", "200"))


@settings(max_examples=EXAMPLES, deadline=timedelta(seconds=10), derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(specs)
def test_no_spec_crashes_or_hangs_the_loader(text):
    with tempfile.TemporaryDirectory() as directory:
        for seen in outcome(text, Path(directory)):
            assert seen.code in (0, 2), seen.stderr
            assert not seen.unexpected, seen.stderr
            assert not seen.lineless, seen.stderr
