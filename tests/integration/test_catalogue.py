"""The catalogue is what the programs enforce: for every parameter declared with a range
(every bench's, every suite's common keys), a value just outside it is refused by the
program itself (XT ERROR param=KEY, status badparam, exit 2) and by xtalk's spec check
(Param.problem) alike; a word outside its words too."""
from __future__ import annotations

import subprocess

import pytest

from tests.framework.repo import ROOT
from xtalk.spec import catalogue
from xtalk.spec.catalogue import Param, size_bytes

CAT = catalogue.load()
PROGRAMS = {"probe": "build/native/xtalk-bench", "posix": "build/posix/native/xtalk-rt",
            "steal": "build/native/xtalk-steal"}


def outside(param: Param) -> list[float | str]:
    """Values just outside the declared range (or words)."""
    if param.type == "word":
        return ["nope"]
    low, high = param.range[1:-1].split(",")
    end = size_bytes if param.type == "size" else float
    step = 1 if param.type != "double" else 1e-3
    out = []
    if low:
        out.append(end(low) - step if param.range[0] == "[" else end(low))
    if high:
        out.append(end(high) + step if param.range[-1] == "]" else end(high))
    return [int(v) if param.type != "double" else v for v in out if v >= 0 or param.type == "double"]


def cases() -> list:
    found = []
    for suite in CAT.suites.values():
        first = next(iter(suite.benches.values()))
        owned = [(bench, p) for bench in suite.benches.values() for p in bench.params.values()]
        for bench, param in owned + [(first, p) for p in suite.common.values()]:
            if param.range:
                found += [pytest.param(suite.name, bench.name, param, value, id=f"{bench.name}-{param.name}={value}")
                          for value in outside(param)]
    return found


@pytest.mark.parametrize("suite,bench,param,value", cases())
def test_a_value_outside_its_declaration_is_refused_by_program_and_spec_check(suite, bench, param, value):
    assert param.problem(value) is not None
    proc = subprocess.run([str(ROOT / PROGRAMS[suite]), f"bench={bench}", "run=cat", f"{param.name}={value}"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"XT ERROR run=cat param={param.name} " in proc.stdout and "status=badparam" in proc.stdout, proc.stdout
