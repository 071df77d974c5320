"""The xen backend with Xen's real-time schedulers: RTDS and null, on the arm64 lab booted
with the "all-schedulers" Xen (built from Debian's source package: xtalk.lab.xen_source;
Debian's binary has credit and credit2 only). The run's guests go into a cpupool of the
asked scheduler, get their RTDS period/budget, and everything is given back."""
from __future__ import annotations

import pytest

from tests.framework.xen_lab import (LAB_GROUP, campaign, extra_pools, lab_exec, run_on_lab, runs,
                                        xtalk_domains)

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["arm64"]]


def test_the_lab_xen_offers_every_scheduler(rt_lab):
    config = lab_exec(rt_lab, "xenhypfs", "cat", "/buildinfo/config")
    for sched in ("CREDIT", "CREDIT2", "RTDS", "NULL", "ARINC653"):
        assert f"CONFIG_SCHED_{sched}=y" in config


def test_null_scheduler_pool(rt_lab, tmp_path):
    arch = rt_lab
    spec, out = campaign(tmp_path, arch, placements='["solo", "other-core"]',
                         backend='lab_xen = "all-schedulers"\nscheduler = "null"')
    run_on_lab(spec, out, f"campaign on the {arch} lab (all-schedulers Xen)", timeout=600)
    found = runs(out)
    assert all(m["status"] == "pass" for m in found.values()), {k: m["reason"] for k, m in found.items()}
    for meta in found.values():
        assert {f["scheduler"] for f in meta["backend_metadata"]["domains"].values()} == {"null"}
    assert xtalk_domains(arch) == [] and extra_pools(arch) == []


def test_rtds_period_and_budget_per_domain(rt_lab, tmp_path):
    """Last in the module: the RTDS pool is made here and left to the lab's end, because
    this Xen (4.17.5, arm64) panics when a pCPU leaves an RTDS pool (rt.c move_repl_timer;
    seen in the lab); xtalk is given the pool by name and moves no pCPU."""
    arch = rt_lab
    lab_exec(arch, "xl", "cpupool-create", 'name="rt-test"', 'sched="rtds"')
    lab_exec(arch, "xl", "cpupool-cpu-remove", "Pool-0", "1")
    lab_exec(arch, "xl", "cpupool-cpu-add", "rt-test", "1")
    spec, out = campaign(tmp_path, arch, placements='["solo", "same-core"]', backend=(
        'lab_xen = "all-schedulers"\ncpupool = "rt-test"\nrtds_period_us = 10000\nrtds_budget_us = 4000\n'
        'rtds_extratime = false'))
    run_on_lab(spec, out, f"campaign on the {arch} lab (all-schedulers Xen)", timeout=600)
    found = runs(out)
    assert {k: m["status"] for k, m in found.items()} == {"solo-r1": "pass", "same-core-r1": "pass"}, \
        {k: m["reason"] for k, m in found.items()}
    for meta in found.values():
        bm = meta["backend_metadata"]
        assert set(bm["schedulers_available"]) == {"credit", "credit2", "rtds", "null", "arinc653"}
        assert bm["lab"]["image"]["xen_flavour"] == "all-schedulers"
        for facts in bm["domains"].values():
            assert facts["scheduler"] == "rtds" and facts["pool"] == "rt-test"
            # xl sched-rtds -d NAME -v all: Name ID VCPU Period Budget Extratime
            rows = [line.split() for line in facts["sched_params"].splitlines()[1:]]
            assert rows and all(r[0] == facts["domain"] and r[3:6] == ["10000", "4000", "no"] for r in rows), \
                facts["sched_params"]
    assert xtalk_domains(arch) == [] and extra_pools(arch) == ["rt-test"]  # not xtalk's: kept
