"""xen backend, a guest with several vCPUs (the spec's vcpus, issue 45): its xl config, the
`xl vcpu-pin` of each vCPU to its own pCPU, the check of each vCPU's hard affinity in
`xl vcpu-list`, and the vCPU list kept at its stop (pure, or against a fake dom0; the lab
runs them for real: tests/integration/test_xen.py)."""
from __future__ import annotations

from types import SimpleNamespace

from xtalk.backends.base import GuestHandle
from xtalk.backends.xen.backend import XenBackend
from xtalk.backends.xen.metadata import XenGuestFacts
from xtalk.backends.xen.xl import XenOptions, affinity_problem, domain_config, parse_vcpu_list, pin_commands
from xtalk.spec.plan import GuestPlan

HEAD = "Name                                ID  VCPU   CPU State   Time(s) Affinity (Hard / Soft)\n"


def vcpu_list(*rows: tuple[int, str, str]) -> list[dict]:
    """(vcpu, cpu, hard) rows of one domain as `xl vcpu-list` prints them."""
    return parse_vcpu_list(HEAD + "".join(f"xtalk-1-r0-measurer  5  {v}  {cpu}  -b-  0.4  {hard} / all\n"
                                          for v, cpu, hard in rows))


def config(cpus) -> dict[str, str]:
    text = domain_config("d", "/k", "bench=lock vcpus=2", XenOptions(), cpus, None)
    return dict(line.split(" = ", 1) for line in text.strip().splitlines())


def test_stacked_vcpus_are_each_pinned_to_the_same_pcpu():
    assert config((1, 1))["vcpus"] == "2" and config((1, 1))["cpus"] == '["1", "1"]'
    assert config((1, 2))["cpus"] == '["1", "2"]'
    assert pin_commands("d", (1, 1)) == [["xl", "vcpu-pin", "d", "0", "1", "-"], ["xl", "vcpu-pin", "d", "1", "1", "-"]]
    assert pin_commands("d", (1, 2), "1,2") == [["xl", "vcpu-pin", "d", "0", "1", "1,2"],
                                                ["xl", "vcpu-pin", "d", "1", "2", "1,2"]]


def test_one_vcpu_guest_is_pinned_whole_as_before():
    assert pin_commands("d", (3,)) == [["xl", "vcpu-pin", "d", "all", "3", "-"]]
    # backend.vcpus = 2 for a one-vCPU spec guest: every vCPU on the guest's pCPU
    assert affinity_problem("d", (3,), vcpu_list((0, "3", "3"), (1, "-", "3"))) is None
    assert "hard affinity 2-3 is not 3" in affinity_problem("d", (3,), vcpu_list((0, "3", "2-3")))


def test_each_vcpu_must_have_its_own_pcpu_as_hard_affinity():
    # right after `xl create -p` and the pins: a secondary is still down (CPU "-")
    assert affinity_problem("d", (1, 2), vcpu_list((0, "1", "1"), (1, "-", "2"))) is None
    assert affinity_problem("d", (1, 1), vcpu_list((0, "1", "1"), (1, "-", "1"))) is None
    assert affinity_problem("d", (1, 2), vcpu_list((0, "1", "1"), (1, "-", "1"))) == \
        "d: vCPU 1 hard affinity 1 is not 2"
    assert affinity_problem("d", (1, 2), vcpu_list((0, "1", "1"), (1, "-", "1-2"))) == \
        "d: vCPU 1 hard affinity 1-2 is not 2"
    assert affinity_problem("d", (1, 2), vcpu_list((0, "1", "1"), (1, "-", "all"))) == \
        "d: vCPU 1 hard affinity all is not 2"


def test_a_missing_or_extra_vcpu_is_a_problem_not_a_pass():
    assert affinity_problem("d", (1, 2), vcpu_list((0, "1", "1"))) == \
        "d: xl vcpu-list shows vCPUs [0], not the 2 asked for (0-1)"
    assert "vCPUs [0, 1, 2]" in affinity_problem("d", (1, 2), vcpu_list((0, "1", "1"), (1, "-", "2"), (2, "-", "2")))
    assert affinity_problem("d", (1,), []) == "d: xl vcpu-list shows no vCPU"


class FakeDom0:
    def __init__(self, listing: str):
        self.listing, self.calls = listing, []

    def xl(self, *args, timeout=60.0, check=True):
        self.calls.append(args)
        return SimpleNamespace(ok=True, returncode=0, stdout=self.listing if args[0] == "vcpu-list" else "", stderr="")


def stopped(cpus: tuple[int, ...], listing: str) -> tuple[GuestHandle, XenBackend, FakeDom0]:
    backend = XenBackend.__new__(XenBackend)
    dom0 = FakeDom0(listing)
    backend.host, backend.run_dir = dom0, None
    backend.guard = SimpleNamespace(reachable=lambda: True)
    backend.run_meta = {"domains": {"measurer": {"domain": "xtalk-1-r0-measurer"}}, "vcpu_list": [], "sched": {}}
    plan = GuestPlan(name="measurer", role="measurer", bench="lock", params={}, cpus=cpus)
    state = {"name": "xtalk-1-r0-measurer", "stopped": False, "created_ns": 1, "console": None, "log": "/x.log"}
    handle = GuestHandle(plan, backend_state=state)
    backend.stop(handle)
    return handle, backend, dom0


def test_the_vcpus_are_listed_before_the_domain_is_destroyed():
    listing = HEAD + ("xtalk-1-r0-measurer  5  0  1  ---s  1.9  1 / all\n"
                      "xtalk-1-r0-measurer  5  1  2  ---s  1.8  2 / all\n")
    handle, backend, dom0 = stopped((1, 2), listing)
    assert dom0.calls == [("vcpu-list", "xtalk-1-r0-measurer"), ("destroy", "xtalk-1-r0-measurer")]
    rows = backend.run_meta["domains"]["measurer"]["vcpus_at_stop"]
    assert [(r["vcpu"], r["cpu"], r["time_s"]) for r in rows] == [(0, "1", 1.9), (1, "2", 1.8)]
    assert handle.facts["vcpus_at_stop"] == rows
    XenGuestFacts.model_validate(backend.run_meta["domains"]["measurer"])  # what meta.json takes


def test_a_one_vcpu_guest_costs_no_extra_command_at_its_stop():
    handle, backend, dom0 = stopped((1,), HEAD)
    assert dom0.calls == [("destroy", "xtalk-1-r0-measurer")]
    assert "vcpus_at_stop" not in backend.run_meta["domains"]["measurer"] and "vcpus_at_stop" not in handle.facts


def test_an_x86_probe_of_several_vcpus_is_refused_under_xen_before_anything_starts():
    from xtalk.backends.xen.backend import XenBackend
    raw = {"backend": {"kind": "xen", "xen": {"arch": "x86_64"}}, "measurer": {"bench": "lock", "vcpus": 2},
           "stressors": [{"name": "s", "bench": "cpu_spin", "vcpus": 1}]}
    (loc, why), = XenBackend.check_spec(raw)
    assert loc == ("measurer", "vcpus") and "one vCPU under Xen" in why
    raw["backend"]["xen"]["arch"] = "arm64"
    assert XenBackend.check_spec(raw) == []
