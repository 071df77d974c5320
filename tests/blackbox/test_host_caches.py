"""`xtalk host caches` as a user runs it: the hierarchy measured natively, printed beside
sysfs's claim, kept as a fact of the host and backend, listed by `xtalk host show`; the
private levels (L1d, L2) within 25 % of the sizes sysfs gives for them (issue 41), the line
size sysfs's coherency_line_size. A known-answer test (issue 57): where xtalk says the
machine cannot answer for an answer (other work on the run's CPUs, the hypervisor's steal,
an unsteady curve, a private level measured far from its report) or the line test's runs
do not agree, it must say so with its numbers, and the test is
voided by the machine (tests/framework/known_answer.py); where it answers, it must be right."""
from __future__ import annotations

import json
import re

import pytest

from tests.framework.cli import write_spec, xtalk
from tests.framework.known_answer import voided
from tests.framework.repo import ROOT
from xtalk.host.metadata import caches, host_facts

SPEC = ROOT / "experiments" / "caches.toml"


def private_sysfs_sizes() -> dict[int, int]:
    """L1d and L2 of cpu0 where sysfs says only cpu0 has them."""
    return {c["level"]: c["size_bytes"] for c in caches() if c["level"] in (1, 2) and c["type"] in ("Data", "Unified")
            and c["shared_cpus"] in ("0", "")}


def said_with_numbers(why: str) -> str:
    """xtalk's reason for not answering: it names the CPUs' other work with its share, or
    gives the latencies or sizes it measured."""
    assert re.search(r"\d+(\.\d+)? (%|ns|KiB)", why), why
    return why


@pytest.mark.timing
def test_native_hierarchy_is_measured_kept_and_shown(tmp_path, native_bench):
    res = xtalk("host", "caches", SPEC, "--backend", "native", "--out", tmp_path, "--json", timeout=120)
    assert res.returncode == 0, res.stderr
    (record,) = json.loads(res.stdout)
    assert record["backend"] == "native" and record["hostname"] == host_facts()["hostname"]
    assert record["machine"]["state"] in ("measurable", "doubtful", "cannot"), record["machine"]
    not_answered = record.get("voided") or {}
    assert set(not_answered) == set(record["machine"]["cannot"]), (not_answered, record["machine"])
    reasons = [said_with_numbers(why) for why in not_answered.values()]
    measured = {lv["level"]: lv["size_bytes"] for lv in record["levels"]}
    if "levels" not in not_answered:
        assert record["memory_ns"] and len(record["levels"]) >= 2, record["levels"]
        for level, size in private_sysfs_sizes().items():
            assert 0.75 <= measured[level] / size <= 1.25, (level, measured[level], size)
    assert all(lv["shared_with_neighbour"] in (True, False) for lv in record["levels"])
    bandwidth = record["bandwidth"]
    if "bandwidth" not in not_answered:
        assert bandwidth["all_cpus_bytes_s"] > bandwidth["one_cpu_beside_copy_bytes_s"] > 1e8
    line = next((c["line_bytes"] for c in caches() if c.get("line_bytes")), None)
    if record["line_bytes"] is None:  # not answered: the machine could not, or the runs disagree
        why = said_with_numbers(record["line"]["why"])
        if "line" not in not_answered:
            reasons.append(why)
            said = {r["bytes"] for r in record["line"]["runs"]}
            assert len(said) > 1 or None in said, record["line"]  # the runs did not agree on a line
    else:
        assert record["line_bytes"] in ((line,) if line else (32, 64, 128, 256)), (record["line_bytes"], line)
    kept = tmp_path / "platform" / f"{record['hostname']}-native-caches.json"
    assert json.loads(kept.read_text())["levels"] == record["levels"]
    shown = xtalk("host", "show", "--out", tmp_path)
    assert shown.returncode == 0 and "caches measured (native" in shown.stdout and "reported" in shown.stdout
    if "levels" in not_answered:
        assert "not answered (the machine could not" in shown.stdout, shown.stdout
    if reasons:
        voided("; ".join(reasons))


def test_one_cpu_is_refused_naming_the_field(tmp_path):
    spec = write_spec(tmp_path, SPEC.read_text().replace("cpus = [0, 1]", "cpus = [0]"))
    res = xtalk("host", "caches", spec, "--backend", "native", "--out", tmp_path)
    assert res.returncode != 0 and "cpus" in res.stderr and "neighbour" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "platform").exists()


SHARED_SPEC = """
name = "shared"
cpus = [1, 0]
[backend]
kind = "native"
[run]
repetitions = 5
[measurer]
bench = "pointer_chase"
[[stressors]]
name = "copy"
bench = "memcpy"
params = { size = "shared/2" }
[matrix]
placement = ["solo", "other-core"]
"""


def test_spec_check_names_a_size_against_a_level_no_two_cpus_are_known_to_share(tmp_path):
    res = xtalk("spec", "check", write_spec(tmp_path, SHARED_SPEC), "--out", tmp_path)
    assert res.returncode == 2 and "stressors.copy.params.size: shared/2: this host reports no cache level shared " \
        "by CPUs 1, 0" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr
