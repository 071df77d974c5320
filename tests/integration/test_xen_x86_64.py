"""The xen backend on an x86-64 Xen lab (Xen 4.17 under QEMU TCG): the PVH probe guest's
Xen console, SCHEDOP_shutdown, the TSC rate from Xen's dmesg, pinning and a timeline;
Debian's PREEMPT_RT kernel as a PVH domU.
See test_xen.py for the arm64 lab and the failure cases."""
from __future__ import annotations

import pytest

from tests.framework.xen_lab import (LAB_GROUP, LINUX_RT_GUESTS, TIMELINE, campaign, check_linux_rt_runs, events,
                                        run_on_lab, runs, xtalk_domains)

pytestmark = [pytest.mark.full, pytest.mark.xen, pytest.mark.slow, LAB_GROUP["x86_64"]]


def test_x86_64_pvh_probe_on_xen(x86_64_lab, tmp_path):
    arch = x86_64_lab
    spec, out = campaign(tmp_path, arch, duration=6, placements='["solo", "same-core"]', timeline=TIMELINE,
                         backend='credit2_cap = 80\nxl_extra = { tsc_mode = "native" }')
    run_on_lab(spec, out, f"campaign of 2 runs on the {arch} lab", timeout=600)
    found = runs(out)
    assert {k: m["status"] for k, m in found.items()} == {"solo-r1": "pass", "same-core-r1": "pass"}, \
        {k: m["reason"] for k, m in found.items()}
    for meta in found.values():
        assert meta["guest_begin"]["platform"] == "xen" and meta["guest_begin"]["arch"] == "x86_64"
        assert int(meta["freq_hz"]) == meta["backend_metadata"]["tsc_hz_from_dmesg"]
        # tsc_mode = "native" (an xl_extra key): Xen would otherwise trap rdtsc on this TCG "hardware"
        assert int(meta["guest_meta"]["overhead_cycles"]) < 10_000
        assert "tsc_mode = \"native\"" in meta["backend_metadata"]["domains"]["measurer"]["config"]
        assert meta["sample_count"] > 0
    assert [e["action"] for e in events(out, "same-core-r1") if e["kind"] == "timeline"] == ["pause", "resume"]
    assert xtalk_domains(arch) == []


def test_x86_64_linux_rt_pvh_domu(x86_64_lab, tmp_path):
    arch = x86_64_lab
    spec, out = campaign(tmp_path, arch, duration=2, guests=LINUX_RT_GUESTS, backend='image = "linux-rt"')
    run_on_lab(spec, out, f"Linux-RT run on the {arch} lab", timeout=600)
    (meta,) = check_linux_rt_runs(out, arch, "-rt-amd64").values()
    assert meta["backend_metadata"]["domains"]["measurer"]["config"].startswith('name = "xtalk-')
