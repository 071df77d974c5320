"""The loopback fleet lab as a module's fixture (`lab`), for the fleet test modules that
use it as it is: import it into the module (pytest finds fixtures by name there)."""
from __future__ import annotations

import pytest

from tests.framework.fleet_checks import lab_for_module


@pytest.fixture(scope="module")
def lab(tmp_path_factory, native_bench):
    yield from lab_for_module(tmp_path_factory)
