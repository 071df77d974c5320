"""Parsers against console logs recorded from real Linux-RT guest runs under QEMU TCG
(tests/data/linux_rt/, recorded with `python -m tests.framework.linux_rt_boot record`;
samples drained over the console there, no ring)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.framework.linux_rt_checks import check_cyclictest, check_kernel_ops, check_thread_metric, report

DATA = Path(__file__).resolve().parent.parent / "data" / "linux_rt"


def log(name: str) -> str:
    return (DATA / f"{name}.log").read_text()


def test_cyclictest_samples_agree_with_its_json_summary():
    values = check_cyclictest(log("cyclictest"), "rec")
    assert len(values) > 300


def test_kernel_ops_has_every_figure_3_3_operation():
    values = check_kernel_ops(log("kernel_ops"), "rec", iterations=20)
    # a context switch costs more than an uncontended mutex lock
    assert sorted(values["sem_give_switch"])[10] > sorted(values["mutex_lock"])[10]


def test_preemptive_thread_metric_counts_advance_in_step():
    rows = check_thread_metric(log("tm_preempt"), "rec", "tm_preempt", threads=5)
    for row in rows:
        assert max(row[1:]) - min(row[1:]) <= 1       # every round increments all five


def test_starved_thread_fails_the_fairness_check():
    rows = check_thread_metric(log("tm_preempt_starved"), "rec", "tm_preempt", threads=5, status="fail")
    rep, _ = report(log("tm_preempt_starved"), "rec")
    assert "fairness" in rep.end["reason"] and "thread 2" in rep.end["reason"]
    assert all(row[3] == 0 for row in rows)            # thread 2 never ran


@pytest.mark.parametrize("bench,threads", [("tm_coop", 5), ("tm_interrupt", 1), ("tm_message", 1),
                                           ("tm_sync", 1), ("tm_memory", 1)])
def test_thread_metric_tests(bench, threads):
    rows = check_thread_metric(log(bench), "rec", bench, threads=threads)
    assert all(row[0] > 0 for row in rows)


def test_stress_ng_stressor():
    rep, samples = report(log("stress_ng"), "rec")
    assert rep.begin["role"] == "stressor" and rep.begin["bench"] == "stress_ng"
    assert "--cpu 1" in rep.meta["cmd"] and "--timeout 1s" in rep.meta["cmd"]
    assert rep.status == "pass" and not samples
    assert "successful run completed" in log("stress_ng")
