"""Guests with several vCPUs in a spec: each vCPU's host CPU as planned (spread, stacked,
given), and metric names of vCPU copies matching their bench's metric (the checks that
refuse a wrong CPU list or a one-vCPU bench on several: tests/blackbox/test_spec_check.py)."""
from __future__ import annotations

from xtalk.spec.load import parse_campaign
from xtalk.spec.catalogue import Metric
from xtalk.spec.plan import plan

SPEC = """
name = "v"
cpus = [0, 1]
[backend]
kind = "native"
[measurer]
bench = "lock"
vcpus = 2
{measurer}
[[stressors]]
name = "hog"
bench = "cpu_spin"
{stressor}
[matrix]
placement = ["solo", "same-core", "other-core"]
{matrix}
"""


def runs(measurer: str = "", stressor: str = "", matrix: str = ""):
    spec, raw = parse_campaign(SPEC.format(measurer=measurer, stressor=stressor, matrix=matrix), "spec.toml")
    return {r.config_id: r for r in plan(spec, raw)}


def test_vcpus_spread_over_the_cpus_from_the_guests_own_by_default():
    by_id = runs(stressor="vcpus = 2")
    assert by_id["solo"].measurer.cpus == (0, 1) and by_id["solo"].measurer.vcpus == 2
    assert by_id["same-core"].stressors[0].cpus == (0, 1)
    assert by_id["other-core"].stressors[0].cpus == (1, 0)  # from its own CPU on


def test_stacked_puts_every_vcpu_on_the_guests_cpu_and_is_a_matrix_dimension():
    by_id = runs(matrix='"measurer.vcpu_placement" = ["spread", "stacked"]')
    assert by_id["solo_vcpu_placement-stacked"].measurer.cpus == (0, 0)
    assert by_id["solo_vcpu_placement-spread"].measurer.cpus == (0, 1)


def test_cpus_given_per_vcpu_win_over_the_placement():
    by_id = runs(measurer="cpus = [1, 1]")
    assert all(r.measurer.cpus == (1, 1) for r in by_id.values())


def test_a_vcpus_copy_of_a_metric_matches_the_metric():
    m = Metric("lock_acquire", "cycles", "latency")
    assert m.matches("lock_acquire") and m.matches("lock_acquire_vcpu1")
    assert not m.matches("lock_acquire_vcpux") and not m.matches("lock_handover_vcpu0")


def test_the_design_check_says_each_vcpus_cpu_and_what_shares_it():
    from xtalk.design.check import vcpu_notes
    spec, raw = parse_campaign(SPEC.format(measurer="", stressor="",
                                           matrix='"measurer.vcpu_placement" = ["spread", "stacked"]'), "spec.toml")
    notes = vcpu_notes(plan(spec, raw))
    assert "measurer vCPU0→0 vCPU1→1 in solo_vcpu_placement-spread" in notes
    assert ("measurer vCPU0→0 vCPU1→0; stacked: vCPUs 0, 1 on CPU 0 in solo_vcpu_placement-stacked, "
            "other-core_vcpu_placement-stacked") in notes  # one note per layout
    assert ("measurer vCPU0→0 vCPU1→1; shared: vCPU1 with hog on CPU 1 in other-core_vcpu_placement-spread"
            in notes)
