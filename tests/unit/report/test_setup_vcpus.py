"""The report's setup row of a measurer with several vCPUs says where they run."""
from xtalk.report.setup import setup_table


def measurer_row(measurer: dict) -> str:
    res = {"spec": {"cpus": [0, 1], "measurer": {"bench": "lock", **measurer}}, "runs": [], "host": {},
           "analysis": {"alpha": 0.01, "negligible_pct": 5, "negligible_points": 1}, "configs": []}
    return dict((r[0], r[1]) for r in setup_table(res).rows)["measurer"]


def test_one_vcpu_its_cpu_several_their_cpus_or_placement():
    assert measurer_row({"vcpus": 1}).endswith("on CPU 0")
    assert "on 2 vCPUs from CPU 0, stacked" in measurer_row({"vcpus": 2, "vcpu_placement": "stacked"})
    assert "on 2 vCPUs, vCPU0→1 vCPU1→0" in measurer_row({"vcpus": 2, "cpus": [1, 0]})
