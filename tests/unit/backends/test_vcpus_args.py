"""What each backend is told about a guest with several vCPUs: the bench's vcpus=, QEMU's
-smp, the native program's vcpu_cpus=, Xen's vcpus with one CPU per vCPU (pure: nothing
starts)."""
from __future__ import annotations

import dataclasses

from xtalk.backends import qemu
from xtalk.backends.base import workload_args
from xtalk.backends.xen.xl import XenOptions, domain_config
from xtalk.spec.load import parse_campaign
from xtalk.spec.plan import plan

SPEC = """
name = "v"
cpus = [0, 1]
[backend]
kind = "{kind}"
[measurer]
bench = "lock"
vcpus = 2
[[stressors]]
name = "b"
bench = "qsort"
[matrix]
placement = ["same-core"]
"""


def first_run(kind: str):
    spec, raw = parse_campaign(SPEC.format(kind=kind), "spec.toml")
    return plan(spec, raw)[0]


def test_an_smp_bench_is_told_its_vcpus_and_a_one_vcpu_guest_nothing():
    run = first_run("native")
    assert {"vcpus=2", "vcpu_cpus=0,1"} <= set(workload_args(run.measurer, run))
    assert "vcpu_cpus=0,1" in workload_args(dataclasses.replace(run.measurer, cpus=(3, 3)), run)  # in a VM: its own
    assert "vcpu_cpus=3,3" in workload_args(dataclasses.replace(run.measurer, cpus=(3, 3)), run, host_cpus=True)
    assert not any(a.startswith("vcpus=") for a in workload_args(run.stressors[0], run))


def test_qemu_gives_a_guest_one_vcpu_thread_per_vcpu(monkeypatch, tmp_path):
    facts = {"machine": "x86_64", "caches": [], "llc_bytes": 0,
             "kvm": {"available": True, "kind": "kvm_pvm", "reason": "", "emulates_ring0": True}}
    monkeypatch.setattr(qemu, "host_facts", lambda: facts)
    monkeypatch.setattr(qemu, "tool_version", lambda argv: "test")
    run = first_run("qemu")
    backend = qemu.QemuBackend(run.spec.backend.options)
    backend.image = tmp_path / "probe.elf"
    argv = backend.argv(run.measurer, run, tmp_path / "ram", 3)
    assert argv[argv.index("-smp") + 1] == "2" and "vcpus=2" in argv[argv.index("-append") + 1]
    assert "-smp" not in backend.argv(run.stressors[0], run, tmp_path / "ram", 3)


def test_xen_pins_each_vcpu_to_its_own_cpu():
    cfg = domain_config("d", "/k", "bench=lock run=r role=measurer vcpus=2", XenOptions(), (1, 0), None)
    lines = dict(line.split(" = ", 1) for line in cfg.strip().splitlines())
    assert lines["vcpus"] == "2" and lines["cpus"] == '["1", "0"]'
    one = dict(line.split(" = ", 1) for line in domain_config("d", "/k", "", XenOptions(vcpus=1), (3,), None).strip().splitlines())
    assert one["vcpus"] == "1" and one["cpus"] == '"3"'


def test_a_posix_bench_of_several_vcpus_gets_a_cpu_each_as_cpus():
    spec, raw = parse_campaign(SPEC.format(kind="native").replace('bench = "lock"', 'bench = "cyclictest"'), "spec.toml")
    run = plan(spec, raw)[0]
    assert "cpus=0,1" in workload_args(run.measurer, run)  # inside a VM: the guest's CPUs
    assert "cpus=3" in workload_args(dataclasses.replace(run.measurer, cpus=(3, 3)), run, host_cpus=True)
    assert not any(a.startswith("vcpus=") for a in workload_args(run.measurer, run))
